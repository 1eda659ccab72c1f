#include <gtest/gtest.h>

#include <stdexcept>

#include "evaluator.h"
#include "parser.h"
#include "tokenizer.h"

TEST(EvaluatorTest, Precedence) {
  expr::Evaluator ev;
  EXPECT_EQ(ev.evaluate("2+3*4"), 14);
  EXPECT_EQ(ev.evaluate("20-6/3"), 18);
}

TEST(EvaluatorTest, LeftAssociative) {
  expr::Evaluator ev;
  EXPECT_EQ(ev.evaluate("10-4-3"), 3);
  EXPECT_EQ(ev.evaluate("64/4/2"), 8);
}

TEST(EvaluatorTest, Parentheses) {
  expr::Evaluator ev;
  EXPECT_EQ(ev.evaluate("(2+3)*4"), 20);
  EXPECT_EQ(ev.evaluate("2*(3+(4-1))"), 12);
}

TEST(EvaluatorTest, Errors) {
  expr::Evaluator ev;
  EXPECT_THROW(ev.evaluate("1/0"), std::domain_error);
  EXPECT_THROW(ev.evaluate("(1+2"), std::invalid_argument);
  EXPECT_THROW(ev.evaluate("1+"), std::invalid_argument);
}

TEST(EvaluatorTest, Limit) {
  expr::Evaluator ev(100);
  EXPECT_EQ(ev.evaluate("50*2"), 100);
  EXPECT_THROW(ev.evaluate("50*3"), std::overflow_error);
  EXPECT_TRUE(ev.within_limit(-100));
}

TEST(ParserTest, Depth) {
  EXPECT_EQ(expr::max_depth(expr::tokenize("(1+(2*(3)))")), 3u);
  EXPECT_EQ(expr::max_depth(expr::tokenize("1+2")), 0u);
}
