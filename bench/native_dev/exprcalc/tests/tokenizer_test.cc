#include <gtest/gtest.h>

#include "tokenizer.h"

using expr::Kind;

TEST(TokenizerTest, ReadsMultiDigitNumbers) {
  auto tokens = expr::tokenize("12+345");
  ASSERT_EQ(tokens.size(), 4u);
  EXPECT_EQ(tokens[0].value, 12);
  EXPECT_EQ(tokens[2].value, 345);
  EXPECT_EQ(tokens[2].pos, 3u);
}

TEST(TokenizerTest, SkipsSpaces) {
  auto tokens = expr::tokenize(" 1 *  2 ");
  ASSERT_EQ(tokens.size(), 4u);
  EXPECT_EQ(tokens[1].kind, Kind::Star);
}

TEST(TokenizerTest, Precedence) {
  EXPECT_EQ(expr::precedence(Kind::Star), 2);
  EXPECT_EQ(expr::precedence(Kind::Minus), 1);
  EXPECT_EQ(expr::precedence(Kind::LParen), 0);
  EXPECT_TRUE(expr::is_operator(Kind::Slash));
  EXPECT_FALSE(expr::is_operator(Kind::RParen));
}
