// kiwi::Solver through its public header: constraints, edit variables, strengths trading off, errors, reset.
#include "gtest/gtest.h"
#include "kiwi/kiwi.h"

namespace {

using kiwi::Constraint;
using kiwi::Solver;
using kiwi::Variable;
namespace strength = kiwi::strength;

class SolverTest : public ::testing::Test {
 protected:
  Solver solver;
  Variable x{"x"};
  Variable y{"y"};
  Variable z{"z"};

  void add(const Constraint& c) { solver.addConstraint(c); }
  void update() { solver.updateVariables(); }
};

TEST_F(SolverTest, ChainedEqualities) {
  add(x == 2 * y + 1);
  add(y == 4);
  add(z == x - y);
  add(x + z == 14);  // redundant with the three above
  update();
  EXPECT_DOUBLE_EQ(x.value(), 9.0);
  EXPECT_DOUBLE_EQ(y.value(), 4.0);
  EXPECT_DOUBLE_EQ(z.value(), 5.0);
}

TEST_F(SolverTest, CoefficientsAndDivision) {
  add(2 * x + 3 == 11);
  add(y / 2 == 3);
  update();
  EXPECT_DOUBLE_EQ(x.value(), 4.0);
  EXPECT_DOUBLE_EQ(y.value(), 6.0);
}

TEST_F(SolverTest, BoundsBeatWeakPreferences) {
  add(x >= 2);
  add((x == 0) | strength::weak);
  add(y <= 5);
  add((y == 8) | strength::weak);
  update();
  EXPECT_DOUBLE_EQ(x.value(), 2.0);
  EXPECT_DOUBLE_EQ(y.value(), 5.0);
}

TEST_F(SolverTest, InactiveBoundsLeavePreference) {
  add(x >= -10);
  add(x <= 10);
  add((x == 4) | strength::weak);
  update();
  EXPECT_DOUBLE_EQ(x.value(), 4.0);
}

TEST_F(SolverTest, StrongerPreferenceWins) {
  add((x == 10) | strength::weak);
  add((x == 20) | strength::strong);
  add((y == 20) | strength::strong);
  add((y == 10) | strength::weak);
  update();
  EXPECT_DOUBLE_EQ(x.value(), 20.0);
  EXPECT_DOUBLE_EQ(y.value(), 20.0);
}

TEST_F(SolverTest, MediumBeatsWeakAcrossVariables) {
  add(x + y == 10);
  add((x == 7) | strength::medium);
  add((y == 7) | strength::weak);
  update();
  EXPECT_DOUBLE_EQ(x.value(), 7.0);
  EXPECT_DOUBLE_EQ(y.value(), 3.0);
}

TEST_F(SolverTest, WeakInequalityYields) {
  add((x <= 5) | strength::weak);
  add((x == 8) | strength::strong);
  add((y >= 5) | strength::weak);
  add((y == 1) | strength::strong);
  update();
  EXPECT_DOUBLE_EQ(x.value(), 8.0);
  EXPECT_DOUBLE_EQ(y.value(), 1.0);
}

TEST_F(SolverTest, BoundedBySum) {
  add(x >= 0);
  add(y >= 0);
  add(x + y <= 10);
  add((x == 100) | strength::weak);
  update();
  EXPECT_DOUBLE_EQ(x.value(), 10.0);
  EXPECT_DOUBLE_EQ(y.value(), 0.0);
}

TEST_F(SolverTest, UnconstrainedBasicVariableIsZero) {
  x.setValue(7);
  add(x >= 0);
  update();
  EXPECT_DOUBLE_EQ(x.value(), 0.0);
}

TEST_F(SolverTest, DuplicateConstraint) {
  Constraint c = x == 1;
  add(c);
  try {
    add(c);
    FAIL() << "no DuplicateConstraint";
  } catch (const kiwi::DuplicateConstraint& e) {
    EXPECT_TRUE(e.constraint() == c);
  }
  EXPECT_TRUE(solver.hasConstraint(c));
}

TEST_F(SolverTest, ConflictingEqualitiesAreUnsatisfiable) {
  add(x == 1);
  Constraint c = x == 2;
  EXPECT_THROW(add(c), kiwi::UnsatisfiableConstraint);
  EXPECT_FALSE(solver.hasConstraint(c));
  update();
  EXPECT_DOUBLE_EQ(x.value(), 1.0);
}

TEST_F(SolverTest, ConflictingBoundsAreUnsatisfiable) {
  add(x >= 10);
  Constraint c = x <= 5;
  try {
    add(c);
    FAIL() << "no UnsatisfiableConstraint";
  } catch (const kiwi::UnsatisfiableConstraint& e) {
    EXPECT_TRUE(e.constraint() == c);
  }
  EXPECT_FALSE(solver.hasConstraint(c));
}

TEST_F(SolverTest, RedundantEqualitiesAreAccepted) {
  add(x == 1);
  add(x == 1);
  add(x + y == 3);
  add(y == 2);
  update();
  EXPECT_DOUBLE_EQ(x.value(), 1.0);
  EXPECT_DOUBLE_EQ(y.value(), 2.0);
}

TEST_F(SolverTest, HasAndRemoveConstraint) {
  Constraint c = x == 10;
  EXPECT_FALSE(solver.hasConstraint(c));
  add(c);
  EXPECT_TRUE(solver.hasConstraint(c));
  solver.removeConstraint(c);
  EXPECT_FALSE(solver.hasConstraint(c));
  try {
    solver.removeConstraint(c);
    FAIL() << "no UnknownConstraint";
  } catch (const kiwi::UnknownConstraint& e) {
    EXPECT_TRUE(e.constraint() == c);
  }
}

TEST_F(SolverTest, RemovingRequiredOrStrongRestoresWeak) {
  add((x == 3) | strength::weak);
  Constraint c = x == 10;
  add(c);
  add((y == 3) | strength::weak);
  Constraint d = (y == 10) | strength::strong;
  add(d);
  update();
  EXPECT_DOUBLE_EQ(x.value(), 10.0);
  EXPECT_DOUBLE_EQ(y.value(), 10.0);
  solver.removeConstraint(c);
  solver.removeConstraint(d);
  update();
  EXPECT_DOUBLE_EQ(x.value(), 3.0);
  EXPECT_DOUBLE_EQ(y.value(), 3.0);
}

TEST_F(SolverTest, RemovingBoundsOneByOne) {
  Constraint lo = x >= 10;
  Constraint hi = x <= 20;
  add(lo);
  add(hi);
  add((x == 0) | strength::weak);
  update();
  EXPECT_DOUBLE_EQ(x.value(), 10.0);
  solver.removeConstraint(lo);
  update();
  EXPECT_DOUBLE_EQ(x.value(), 0.0);
  add(x >= 5);
  add((x == 30) | strength::medium);
  update();
  EXPECT_DOUBLE_EQ(x.value(), 20.0);
  solver.removeConstraint(hi);
  update();
  EXPECT_DOUBLE_EQ(x.value(), 30.0);
}

TEST_F(SolverTest, RemovingAnInactiveBound) {
  Constraint hi = x <= 100;
  add(x >= 0);
  add(hi);
  add(y == x + 5);
  add((x == 50) | strength::weak);
  solver.removeConstraint(hi);
  update();
  EXPECT_DOUBLE_EQ(x.value(), 50.0);
  EXPECT_DOUBLE_EQ(y.value(), 55.0);
}

TEST_F(SolverTest, EditVariableFollowsSuggestions) {
  solver.addEditVariable(x, strength::strong);
  EXPECT_TRUE(solver.hasEditVariable(x));
  EXPECT_FALSE(solver.hasEditVariable(y));
  solver.suggestValue(x, 42);
  update();
  EXPECT_DOUBLE_EQ(x.value(), 42.0);
  solver.suggestValue(x, -7);
  update();
  EXPECT_DOUBLE_EQ(x.value(), -7.0);
}

TEST_F(SolverTest, EditRespectsRequiredBound) {
  add(x <= 30);
  solver.addEditVariable(x, strength::strong);
  solver.suggestValue(x, 50);
  update();
  EXPECT_DOUBLE_EQ(x.value(), 30.0);
  solver.suggestValue(x, 10);
  update();
  EXPECT_DOUBLE_EQ(x.value(), 10.0);
}

TEST_F(SolverTest, EditDrivesLayout) {
  Variable left("left"), width("width"), right("right");
  add(right == left + width);
  add(width == 20);
  solver.addEditVariable(left, strength::strong);
  const double lefts[] = {10, 5, 100};
  for (double l : lefts) {
    solver.suggestValue(left, l);
    update();
    EXPECT_DOUBLE_EQ(left.value(), l);
    EXPECT_DOUBLE_EQ(right.value(), l + 20);
  }
}

TEST_F(SolverTest, EditClampedByBoundsOnBothSides) {
  Variable left("left"), right("right");
  add(left >= 0);
  add(right <= 100);
  add(right == left + 20);
  solver.addEditVariable(left, strength::strong);
  solver.suggestValue(left, 90);
  update();
  EXPECT_DOUBLE_EQ(left.value(), 80.0);
  EXPECT_DOUBLE_EQ(right.value(), 100.0);
  solver.suggestValue(left, 50);
  update();
  EXPECT_DOUBLE_EQ(left.value(), 50.0);
  EXPECT_DOUBLE_EQ(right.value(), 70.0);
  solver.suggestValue(left, -10);
  update();
  EXPECT_DOUBLE_EQ(left.value(), 0.0);
  EXPECT_DOUBLE_EQ(right.value(), 20.0);
}

TEST_F(SolverTest, TwoEditsOfDifferentStrength) {
  add(x + y == 10);
  solver.addEditVariable(x, strength::strong);
  solver.addEditVariable(y, strength::weak);
  solver.suggestValue(x, 3);
  solver.suggestValue(y, 9);
  update();
  EXPECT_DOUBLE_EQ(x.value(), 3.0);
  EXPECT_DOUBLE_EQ(y.value(), 7.0);
  solver.suggestValue(y, 2);
  update();
  EXPECT_DOUBLE_EQ(x.value(), 3.0);
  EXPECT_DOUBLE_EQ(y.value(), 7.0);
}

TEST_F(SolverTest, RemovingEditRestoresWeak) {
  add((x == 5) | strength::weak);
  solver.addEditVariable(x, strength::strong);
  solver.suggestValue(x, 9);
  update();
  EXPECT_DOUBLE_EQ(x.value(), 9.0);
  solver.removeEditVariable(x);
  EXPECT_FALSE(solver.hasEditVariable(x));
  update();
  EXPECT_DOUBLE_EQ(x.value(), 5.0);
}

TEST_F(SolverTest, EditVariableErrors) {
  try {
    solver.suggestValue(x, 1);
    FAIL() << "no UnknownEditVariable";
  } catch (const kiwi::UnknownEditVariable& e) {
    EXPECT_TRUE(Variable(e.variable()).equals(x));  // equals() is not const
  }
  EXPECT_THROW(solver.removeEditVariable(x), kiwi::UnknownEditVariable);
  solver.addEditVariable(x, strength::medium);
  EXPECT_THROW(solver.addEditVariable(x, strength::weak), kiwi::DuplicateEditVariable);
  EXPECT_THROW(solver.addEditVariable(y, strength::required), kiwi::BadRequiredStrength);
  EXPECT_THROW(solver.addEditVariable(y, 5e9), kiwi::BadRequiredStrength);
  EXPECT_FALSE(solver.hasEditVariable(y));
}

TEST_F(SolverTest, ResetEmptiesTheSolver) {
  Constraint c = x == 4;
  add(c);
  solver.addEditVariable(y, strength::strong);
  solver.reset();
  EXPECT_FALSE(solver.hasConstraint(c));
  EXPECT_FALSE(solver.hasEditVariable(y));
  add(c);
  add(y == x * 3);
  update();
  EXPECT_DOUBLE_EQ(x.value(), 4.0);
  EXPECT_DOUBLE_EQ(y.value(), 12.0);
}

}  // namespace
