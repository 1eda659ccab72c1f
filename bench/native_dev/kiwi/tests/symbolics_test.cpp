// kiwi's value types through its public headers: Variable, Term, Expression, the symbolics operators,
// Constraint and the strengths.
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "kiwi/kiwi.h"

namespace {

using kiwi::Constraint;
using kiwi::Expression;
using kiwi::Term;
using kiwi::Variable;
namespace strength = kiwi::strength;

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// The terms in their order and the constant: "x:1 y:-2 | 3".
std::string show(const Expression& e) {
  std::string out;
  for (const Term& t : e.terms()) {
    out += t.variable().name() + ":" + num(t.coefficient()) + " ";
  }
  return out + "| " + num(e.constant());
}

// A constraint's reduced expression with its terms sorted by name (the solver's own order is by address),
// then the relation: "x:1 y:-2 | 3 >=".
std::string show(const Constraint& c) {
  std::map<std::string, double> by_name;
  for (const Term& t : c.expression().terms()) {
    by_name[t.variable().name()] += t.coefficient();
  }
  std::string out;
  for (const auto& [name, coeff] : by_name) {
    out += name + ":" + num(coeff) + " ";
  }
  const char* op = c.op() == kiwi::OP_EQ ? "==" : c.op() == kiwi::OP_LE ? "<=" : ">=";
  return out + "| " + num(c.expression().constant()) + " " + op;
}

class Symbolics : public ::testing::Test {
 protected:
  Variable x{"x"};
  Variable y{"y"};
  Expression ex = x + 1;          // x:1 | 1
  Expression ey = y * 2 + 3;      // y:2 | 3
  Term tx = x * 2;                // x:2
  Term ty = Term(y, 3);           // y:3
};

TEST(Variable, NameAndValue) {
  Variable x("x");
  EXPECT_EQ(x.name(), "x");
  EXPECT_EQ(x.value(), 0.0);
  x.setValue(2.5);
  EXPECT_EQ(x.value(), 2.5);
  x.setName(std::string("width"));
  EXPECT_EQ(x.name(), "width");
  EXPECT_EQ(Variable(std::string("left")).name(), "left");
  EXPECT_EQ(Variable().name(), "");
  Variable a("a");
  Variable b = a;
  b.setValue(4);
  EXPECT_EQ(a.value(), 4.0);
  EXPECT_TRUE(a.equals(b));
  EXPECT_FALSE(a.equals(Variable("a")));
}

TEST(Term, CoefficientAndValue) {
  Variable x("x");
  x.setValue(2);
  EXPECT_EQ(Term(x).coefficient(), 1.0);
  EXPECT_EQ(Term(x, 3).coefficient(), 3.0);
  EXPECT_EQ(Term(x, 3).value(), 6.0);
  EXPECT_EQ(Term(x, -0.5).value(), -1.0);
  EXPECT_TRUE(Variable(Term(x, 3).variable()).equals(x));  // equals() is not const
}

TEST(Expression, ConstantAndValue) {
  Variable x("x");
  Variable y("y");
  x.setValue(3);
  y.setValue(5);
  EXPECT_EQ(Expression().constant(), 0.0);
  EXPECT_EQ(Expression(5).value(), 5.0);
  EXPECT_EQ(Expression(Term(x, 2), 1).value(), 7.0);
  EXPECT_EQ(Expression({Term(x, 2), Term(y, -1)}, 4).value(), 5.0);
  EXPECT_EQ(Expression({Term(x, 2), Term(y, -1)}, 4).terms().size(), 2u);
}

TEST_F(Symbolics, VariableAndTermTimesDivideNegate) {
  EXPECT_EQ(show(Expression(x * 3)), "x:3 | 0");
  EXPECT_EQ(show(Expression(3 * x)), "x:3 | 0");
  EXPECT_EQ(show(Expression(x / 4)), "x:0.25 | 0");
  EXPECT_EQ(show(Expression(-x)), "x:-1 | 0");
  EXPECT_EQ(show(Expression(tx * 3)), "x:6 | 0");
  EXPECT_EQ(show(Expression(3 * tx)), "x:6 | 0");
  EXPECT_EQ(show(Expression(ty / 2)), "y:1.5 | 0");
  EXPECT_EQ(show(Expression(-tx)), "x:-2 | 0");
}

TEST_F(Symbolics, ExpressionTimesDivideNegate) {
  Expression e = x * 2 + y + 3;
  EXPECT_EQ(show(e), "x:2 y:1 | 3");
  EXPECT_EQ(show(e * 2), "x:4 y:2 | 6");
  EXPECT_EQ(show(2 * e), "x:4 y:2 | 6");
  EXPECT_EQ(show(e / 2), "x:1 y:0.5 | 1.5");
  EXPECT_EQ(show(-e), "x:-2 y:-1 | -3");
}

TEST_F(Symbolics, ExpressionPlus) {
  EXPECT_EQ(show(ex + ey), "x:1 y:2 | 4");
  EXPECT_EQ(show(ex + ty), "x:1 y:3 | 1");
  EXPECT_EQ(show(ex + y), "x:1 y:1 | 1");
  EXPECT_EQ(show(ex + 2.5), "x:1 | 3.5");
}

TEST_F(Symbolics, ExpressionMinus) {
  EXPECT_EQ(show(ex - ey), "x:1 y:-2 | -2");
  EXPECT_EQ(show(ex - ty), "x:1 y:-3 | 1");
  EXPECT_EQ(show(ex - y), "x:1 y:-1 | 1");
  EXPECT_EQ(show(ex - 4), "x:1 | -3");
}

TEST_F(Symbolics, TermPlusMinus) {
  EXPECT_EQ(show(tx + ey), "y:2 x:2 | 3");
  EXPECT_EQ(show(tx + ty), "x:2 y:3 | 0");
  EXPECT_EQ(show(tx + y), "x:2 y:1 | 0");
  EXPECT_EQ(show(tx + 5), "x:2 | 5");
  EXPECT_EQ(show(tx - ey), "y:-2 x:2 | -3");
  EXPECT_EQ(show(tx - ty), "x:2 y:-3 | 0");
  EXPECT_EQ(show(tx - y), "x:2 y:-1 | 0");
  EXPECT_EQ(show(tx - 5), "x:2 | -5");
}

TEST_F(Symbolics, VariablePlusMinus) {
  EXPECT_EQ(show(x + ey), "y:2 x:1 | 3");
  EXPECT_EQ(show(x + ty), "y:3 x:1 | 0");
  EXPECT_EQ(show(x + y), "x:1 y:1 | 0");
  EXPECT_EQ(show(x + 7), "x:1 | 7");
  EXPECT_EQ(show(x - ey), "y:-2 x:1 | -3");
  EXPECT_EQ(show(x - ty), "y:-3 x:1 | 0");
  EXPECT_EQ(show(x - y), "y:-1 x:1 | 0");
  EXPECT_EQ(show(x - 7), "x:1 | -7");
}

TEST_F(Symbolics, DoublePlusMinus) {
  EXPECT_EQ(show(4 + ey), "y:2 | 7");
  EXPECT_EQ(show(4 + tx), "x:2 | 4");
  EXPECT_EQ(show(4 + x), "x:1 | 4");
  EXPECT_EQ(show(4 - ey), "y:-2 | 1");
  EXPECT_EQ(show(4 - tx), "x:-2 | 4");
  EXPECT_EQ(show(4 - x), "x:-1 | 4");
}

TEST_F(Symbolics, ExpressionRelations) {
  EXPECT_EQ(show(ex == ey), "x:1 y:-2 | -2 ==");
  EXPECT_EQ(show(ex == ty), "x:1 y:-3 | 1 ==");
  EXPECT_EQ(show(ex == y), "x:1 y:-1 | 1 ==");
  EXPECT_EQ(show(ex == 5), "x:1 | -4 ==");
  EXPECT_EQ(show(ex <= ey), "x:1 y:-2 | -2 <=");
  EXPECT_EQ(show(ex <= ty), "x:1 y:-3 | 1 <=");
  EXPECT_EQ(show(ex <= y), "x:1 y:-1 | 1 <=");
  EXPECT_EQ(show(ex <= 5), "x:1 | -4 <=");
  EXPECT_EQ(show(ex >= ey), "x:1 y:-2 | -2 >=");
  EXPECT_EQ(show(ex >= ty), "x:1 y:-3 | 1 >=");
  EXPECT_EQ(show(ex >= y), "x:1 y:-1 | 1 >=");
  EXPECT_EQ(show(ex >= 5), "x:1 | -4 >=");
}

TEST_F(Symbolics, TermRelations) {
  EXPECT_EQ(show(tx == ey), "x:-2 y:2 | 3 ==");
  EXPECT_EQ(show(tx == ty), "x:2 y:-3 | 0 ==");
  EXPECT_EQ(show(tx == y), "x:2 y:-1 | 0 ==");
  EXPECT_EQ(show(tx == 4), "x:2 | -4 ==");
  EXPECT_EQ(show(tx <= ey), "x:-2 y:2 | 3 >=");
  EXPECT_EQ(show(tx <= ty), "x:2 y:-3 | 0 <=");
  EXPECT_EQ(show(tx <= y), "x:2 y:-1 | 0 <=");
  EXPECT_EQ(show(tx <= 4), "x:2 | -4 <=");
  EXPECT_EQ(show(tx >= ey), "x:-2 y:2 | 3 <=");
  EXPECT_EQ(show(tx >= ty), "x:2 y:-3 | 0 >=");
  EXPECT_EQ(show(tx >= y), "x:2 y:-1 | 0 >=");
  EXPECT_EQ(show(tx >= 4), "x:2 | -4 >=");
}

TEST_F(Symbolics, VariableRelations) {
  EXPECT_EQ(show(x == ey), "x:-1 y:2 | 3 ==");
  EXPECT_EQ(show(x == ty), "x:-1 y:3 | 0 ==");
  EXPECT_EQ(show(x == y), "x:1 y:-1 | 0 ==");
  EXPECT_EQ(show(x == 4), "x:1 | -4 ==");
  EXPECT_EQ(show(x <= ey), "x:-1 y:2 | 3 >=");
  EXPECT_EQ(show(x <= ty), "x:-1 y:3 | 0 >=");
  EXPECT_EQ(show(x <= y), "x:1 y:-1 | 0 <=");
  EXPECT_EQ(show(x <= 4), "x:1 | -4 <=");
  EXPECT_EQ(show(x >= ey), "x:-1 y:2 | 3 <=");
  EXPECT_EQ(show(x >= ty), "x:-1 y:3 | 0 <=");
  EXPECT_EQ(show(x >= y), "x:1 y:-1 | 0 >=");
  EXPECT_EQ(show(x >= 4), "x:1 | -4 >=");
}

TEST_F(Symbolics, DoubleRelations) {
  EXPECT_EQ(show(4 == ey), "y:2 | -1 ==");
  EXPECT_EQ(show(4 == ty), "y:3 | -4 ==");
  EXPECT_EQ(show(4 == x), "x:1 | -4 ==");
  EXPECT_EQ(show(4 <= ey), "y:2 | -1 >=");
  EXPECT_EQ(show(4 <= ty), "y:3 | -4 >=");
  EXPECT_EQ(show(4 <= x), "x:1 | -4 >=");
  EXPECT_EQ(show(4 >= ey), "y:2 | -1 <=");
  EXPECT_EQ(show(4 >= ty), "y:3 | -4 <=");
  EXPECT_EQ(show(4 >= x), "x:1 | -4 <=");
}

TEST(Strength, CreateWeighsAndClipsThreeLevels) {
  EXPECT_EQ(strength::create(1, 2, 3), 1002003.0);
  EXPECT_EQ(strength::create(1, 2, 3, 2), 2004006.0);
  EXPECT_EQ(strength::create(0, 0, 0.5), 0.5);
  EXPECT_EQ(strength::create(0, 0.5, 0), 500.0);
  // each level is clipped to [0, 1000] after the weight
  EXPECT_EQ(strength::create(2000, 0, 0), 1e9);
  EXPECT_EQ(strength::create(0, 1500, 0), 1e6);
  EXPECT_EQ(strength::create(0, 0, 1500), 1000.0);
  EXPECT_EQ(strength::create(-5, 1, 0), 1000.0);
  EXPECT_EQ(strength::create(0, -1, -2), 0.0);
  EXPECT_EQ(strength::create(600, 0, 0, 2), 1e9);
}

TEST(Strength, NamedStrengthsAndClip) {
  EXPECT_EQ(strength::required, 1001001000.0);
  EXPECT_EQ(strength::strong, 1e6);
  EXPECT_EQ(strength::medium, 1000.0);
  EXPECT_EQ(strength::weak, 1.0);
  EXPECT_EQ(strength::clip(-3), 0.0);
  EXPECT_EQ(strength::clip(5), 5.0);
  EXPECT_EQ(strength::clip(2e9), strength::required);
  EXPECT_EQ(strength::clip(strength::required), strength::required);
}

TEST_F(Symbolics, ConstraintStrength) {
  EXPECT_EQ((x == 1).strength(), strength::required);
  EXPECT_EQ(((x == 1) | strength::weak).strength(), 1.0);
  EXPECT_EQ((strength::medium | (x == 1)).strength(), 1000.0);
  EXPECT_EQ(((x == 1) | 5e9).strength(), strength::required);
  EXPECT_EQ(((x == 1) | -1).strength(), 0.0);
  EXPECT_EQ(Constraint(x + 2, kiwi::OP_GE, 7).strength(), 7.0);
  EXPECT_EQ(Constraint(x + 2, kiwi::OP_GE, 3e9).strength(), strength::required);
}

TEST_F(Symbolics, ConstraintWithStrengthKeepsRelation) {
  Constraint c = (x + y <= 10) | strength::strong;
  EXPECT_EQ(show(c), "x:1 y:1 | -10 <=");
  EXPECT_EQ(c.strength(), 1e6);
  Constraint d(x >= 2, 3.0);
  EXPECT_EQ(show(d), "x:1 | -2 >=");
  EXPECT_EQ(d.strength(), 3.0);
}

TEST_F(Symbolics, ConstraintReducesRepeatedVariables) {
  Constraint c = x + x + y * 2 - y == 0;
  EXPECT_EQ(c.expression().terms().size(), 2u);
  EXPECT_EQ(show(c), "x:2 y:1 | 0 ==");
  EXPECT_EQ(show(x - x == 3), "x:0 | -3 ==");
}

TEST_F(Symbolics, ConstraintViolated) {
  x.setValue(3);
  EXPECT_FALSE((x == 3).violated());
  EXPECT_FALSE((x == 3 + 1e-9).violated());
  EXPECT_TRUE((x == 4).violated());
  EXPECT_TRUE((x == 2).violated());
  EXPECT_FALSE((x >= 2).violated());
  EXPECT_FALSE((x >= 3).violated());
  EXPECT_TRUE((x >= 4).violated());
  EXPECT_TRUE((x <= 2).violated());
  EXPECT_FALSE((x <= 3).violated());
  EXPECT_FALSE((x <= 4).violated());
}

TEST_F(Symbolics, ConstraintIdentity) {
  Constraint a = x == 1;
  Constraint b = a;
  Constraint c = x == 1;
  EXPECT_TRUE(a == b);
  EXPECT_FALSE(a != b);
  EXPECT_TRUE(a != c);
  EXPECT_FALSE(a == c);
  EXPECT_NE(a < c, c < a);
  EXPECT_FALSE(a < b);
  EXPECT_TRUE(!Constraint());
  EXPECT_FALSE(!a);
}

}  // namespace
