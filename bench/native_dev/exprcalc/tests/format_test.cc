#include <gtest/gtest.h>

#include "format.h"

TEST(FormatTest, Thousands) {
  EXPECT_EQ(expr::with_thousands(1234567), "1,234,567");
  EXPECT_EQ(expr::with_thousands(999), "999");
  EXPECT_EQ(expr::with_thousands(-1000), "-1,000");
}

TEST(FormatTest, PadLeft) {
  EXPECT_EQ(expr::pad_left("7", 3), "  7");
  EXPECT_EQ(expr::pad_left("1234", 3), "1234");
}
