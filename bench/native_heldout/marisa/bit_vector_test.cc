#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "marisa/grimoire/vector/bit-vector.h"

using marisa::grimoire::vector::BitVector;

namespace {

std::vector<bool> Bits(std::size_t n, unsigned seed, int ones_per_8) {
  std::mt19937 rng(seed);
  std::vector<bool> bits(n);
  for (std::size_t i = 0; i < n; ++i) bits[i] = static_cast<int>(rng() % 8) < ones_per_8;
  return bits;
}

void CheckRankSelect(const std::vector<bool> &bits) {
  BitVector bv;
  for (bool b : bits) bv.push_back(b);
  bv.build(true, true);
  ASSERT_EQ(bv.size(), bits.size());
  std::size_t ones = 0;
  std::vector<std::size_t> pos1, pos0;
  for (std::size_t i = 0; i < bits.size(); ++i) {
    EXPECT_EQ(bv[i], bits[i]) << i;
    EXPECT_EQ(bv.rank1(i), ones) << i;
    EXPECT_EQ(bv.rank0(i), i - ones) << i;
    if (bits[i]) {
      pos1.push_back(i);
      ++ones;
    } else {
      pos0.push_back(i);
    }
  }
  EXPECT_EQ(bv.num_1s(), pos1.size());
  EXPECT_EQ(bv.num_0s(), pos0.size());
  for (std::size_t k = 0; k < pos1.size(); ++k) ASSERT_EQ(bv.select1(k), pos1[k]) << k;
  for (std::size_t k = 0; k < pos0.size(); ++k) ASSERT_EQ(bv.select0(k), pos0[k]) << k;
}

}  // namespace

TEST(BitVectorTest, SmallVector) {
  CheckRankSelect({true, false, true, true, false, false, false, true, false, true});
}

TEST(BitVectorTest, DenseRandomBits) { CheckRankSelect(Bits(5000, 1, 6)); }

TEST(BitVectorTest, SparseRandomBits) { CheckRankSelect(Bits(20000, 2, 1)); }

TEST(BitVectorTest, HalfRandomBitsAcrossManyBlocks) { CheckRankSelect(Bits(70000, 3, 4)); }

TEST(BitVectorTest, AllOnesAndAllZeros) {
  CheckRankSelect(std::vector<bool>(1000, true));
  CheckRankSelect(std::vector<bool>(1000, false));
}

TEST(BitVectorTest, ClearEmpties) {
  BitVector bv;
  bv.push_back(true);
  bv.build(false, false);
  EXPECT_EQ(bv.size(), 1u);
  bv.clear();
  EXPECT_TRUE(bv.empty());
}
