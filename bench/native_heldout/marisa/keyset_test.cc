#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <string_view>

#include "marisa/keyset.h"

TEST(KeysetTest, CountsKeysAndLengths) {
  marisa::Keyset keyset;
  EXPECT_EQ(keyset.size(), 0u);
  keyset.push_back("apple");
  keyset.push_back("kiwi", 4, 2.5F);
  keyset.push_back("fig", 3, 4.0F);
  EXPECT_EQ(keyset.num_keys(), 3u);
  EXPECT_EQ(keyset.size(), 3u);
  EXPECT_EQ(keyset.total_length(), 12u);
  EXPECT_FALSE(keyset.empty());
}

TEST(KeysetTest, KeepsBytesAndWeights) {
  marisa::Keyset keyset;
  keyset.push_back("apple");
  keyset.push_back(std::string_view("kiwi"), 2.5F);
  EXPECT_EQ(std::string(keyset[0].ptr(), keyset[0].length()), "apple");
  EXPECT_EQ(std::string(keyset[1].ptr(), keyset[1].length()), "kiwi");
  EXPECT_FLOAT_EQ(keyset[0].weight(), 1.0F);
  EXPECT_FLOAT_EQ(keyset[1].weight(), 2.5F);
}

TEST(KeysetTest, ManyLongKeysSurviveBlockGrowth) {
  marisa::Keyset keyset;
  std::size_t total = 0;
  for (int i = 0; i < 3000; ++i) {
    const std::string key(static_cast<std::size_t>(i % 300 + 1), static_cast<char>('a' + i % 26));
    keyset.push_back(key.c_str(), key.size());
    total += key.size();
  }
  ASSERT_EQ(keyset.size(), 3000u);
  EXPECT_EQ(keyset.total_length(), total);
  for (int i = 0; i < 3000; i += 97) {
    EXPECT_EQ(keyset[static_cast<std::size_t>(i)].length(), static_cast<std::size_t>(i % 300 + 1));
    EXPECT_EQ(keyset[static_cast<std::size_t>(i)].ptr()[0], static_cast<char>('a' + i % 26));
  }
}

TEST(KeysetTest, ResetAndClear) {
  marisa::Keyset keyset;
  keyset.push_back("one");
  keyset.push_back("two");
  keyset.reset();
  EXPECT_EQ(keyset.size(), 0u);
  EXPECT_EQ(keyset.total_length(), 0u);
  keyset.push_back("three");
  EXPECT_EQ(keyset.size(), 1u);
  keyset.clear();
  EXPECT_TRUE(keyset.empty());
}
