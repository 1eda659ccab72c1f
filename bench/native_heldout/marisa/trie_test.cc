#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "marisa/trie.h"

namespace {

const std::vector<std::string> kWords = {"a", "app", "apple", "application", "apply", "banana", "band", "bandana", "can"};

void BuildWords(marisa::Trie &trie, int flags = 0) {
  marisa::Keyset keyset;
  for (const std::string &w : kWords) keyset.push_back(w.c_str());
  trie.build(keyset, flags);
}

bool Lookup(const marisa::Trie &trie, const std::string &key, std::size_t *id = nullptr) {
  marisa::Agent agent;
  agent.set_query(key.c_str(), key.length());
  if (!trie.lookup(agent)) return false;
  if (id != nullptr) *id = agent.key().id();
  return true;
}

std::string Reverse(const marisa::Trie &trie, std::size_t id) {
  marisa::Agent agent;
  agent.set_query(id);
  trie.reverse_lookup(agent);
  return std::string(agent.key().ptr(), agent.key().length());
}

std::vector<std::string> Predict(const marisa::Trie &trie, const std::string &prefix) {
  marisa::Agent agent;
  agent.set_query(prefix.c_str(), prefix.length());
  std::vector<std::string> out;
  while (trie.predictive_search(agent)) out.emplace_back(agent.key().ptr(), agent.key().length());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> Prefixes(const marisa::Trie &trie, const std::string &query) {
  marisa::Agent agent;
  agent.set_query(query.c_str(), query.length());
  std::vector<std::string> out;
  while (trie.common_prefix_search(agent)) out.emplace_back(agent.key().ptr(), agent.key().length());
  return out;
}

std::vector<std::string> Numbers(int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back(std::to_string(i * 7919 % 100003));
  return out;
}

}  // namespace

TEST(TrieTest, BuildsAndCountsKeys) {
  marisa::Trie trie;
  EXPECT_ANY_THROW(trie.num_keys());  // an unbuilt trie has no state
  BuildWords(trie);
  EXPECT_FALSE(trie.empty());
  EXPECT_EQ(trie.num_keys(), kWords.size());
  EXPECT_EQ(trie.size(), kWords.size());
  EXPECT_GT(trie.num_nodes(), 0u);
}

TEST(TrieTest, LooksUpEveryKeyAndNothingElse) {
  marisa::Trie trie;
  BuildWords(trie);
  for (const std::string &w : kWords) EXPECT_TRUE(Lookup(trie, w)) << w;
  EXPECT_FALSE(Lookup(trie, "ap"));
  EXPECT_FALSE(Lookup(trie, "appl"));
  EXPECT_FALSE(Lookup(trie, "bananas"));
  EXPECT_FALSE(Lookup(trie, ""));
  EXPECT_FALSE(Lookup(trie, "zebra"));
}

TEST(TrieTest, IdsAreDenseAndReverseLookupRoundTrips) {
  marisa::Trie trie;
  BuildWords(trie);
  std::set<std::size_t> ids;
  for (const std::string &w : kWords) {
    std::size_t id = 0;
    ASSERT_TRUE(Lookup(trie, w, &id));
    EXPECT_LT(id, kWords.size());
    ids.insert(id);
    EXPECT_EQ(Reverse(trie, id), w);
  }
  EXPECT_EQ(ids.size(), kWords.size());
}

TEST(TrieTest, CommonPrefixSearchFindsPrefixesShortestFirst) {
  marisa::Trie trie;
  BuildWords(trie);
  EXPECT_EQ(Prefixes(trie, "applications"), (std::vector<std::string>{"a", "app", "application"}));
  EXPECT_EQ(Prefixes(trie, "bandanas"), (std::vector<std::string>{"band", "bandana"}));
  EXPECT_TRUE(Prefixes(trie, "xyz").empty());
}

TEST(TrieTest, PredictiveSearchFindsCompletions) {
  marisa::Trie trie;
  BuildWords(trie);
  EXPECT_EQ(Predict(trie, "app"), (std::vector<std::string>{"app", "apple", "application", "apply"}));
  EXPECT_EQ(Predict(trie, "band"), (std::vector<std::string>{"band", "bandana"}));
  EXPECT_EQ(Predict(trie, "").size(), kWords.size());
  EXPECT_TRUE(Predict(trie, "cat").empty());
}

TEST(TrieTest, DuplicateKeysCountOnce) {
  marisa::Keyset keyset;
  keyset.push_back("same");
  keyset.push_back("same");
  keyset.push_back("other");
  marisa::Trie trie;
  trie.build(keyset);
  EXPECT_EQ(trie.num_keys(), 2u);
  EXPECT_EQ(keyset[0].id(), keyset[1].id());
  EXPECT_NE(keyset[0].id(), keyset[2].id());
}

TEST(TrieTest, KeysetIdsMatchLookups) {
  marisa::Keyset keyset;
  for (const std::string &w : kWords) keyset.push_back(w.c_str());
  marisa::Trie trie;
  trie.build(keyset);
  for (std::size_t i = 0; i < keyset.size(); ++i) {
    std::size_t id = 0;
    ASSERT_TRUE(Lookup(trie, kWords[i], &id));
    EXPECT_EQ(keyset[i].id(), id);
  }
}

TEST(TrieTest, ManyKeysAllFoundWithEveryConfig) {
  const std::vector<std::string> keys = Numbers(2000);
  const std::set<std::string> unique(keys.begin(), keys.end());
  const int configs[] = {0, MARISA_TEXT_TAIL, MARISA_BINARY_TAIL, 1 | MARISA_LABEL_ORDER, 5 | MARISA_WEIGHT_ORDER};
  for (int flags : configs) {
    marisa::Keyset keyset;
    for (const std::string &k : keys) keyset.push_back(k.c_str());
    marisa::Trie trie;
    trie.build(keyset, flags);
    EXPECT_EQ(trie.num_keys(), unique.size()) << flags;
    for (const std::string &k : unique) {
      std::size_t id = 0;
      ASSERT_TRUE(Lookup(trie, k, &id)) << k << " flags " << flags;
      EXPECT_EQ(Reverse(trie, id), k);
    }
    std::size_t starting_with_1 = 0;
    for (const std::string &k : unique) starting_with_1 += k[0] == '1';
    EXPECT_EQ(Predict(trie, "1").size(), starting_with_1);
  }
}

TEST(TrieTest, ReportsItsConfiguration) {
  marisa::Trie trie;
  BuildWords(trie, 2 | MARISA_BINARY_TAIL | MARISA_WEIGHT_ORDER);
  EXPECT_EQ(trie.tail_mode(), MARISA_BINARY_TAIL);
  EXPECT_EQ(trie.node_order(), MARISA_WEIGHT_ORDER);
  EXPECT_LE(trie.num_tries(), 2u);
  marisa::Trie text;
  BuildWords(text, MARISA_TEXT_TAIL | MARISA_LABEL_ORDER);
  EXPECT_EQ(text.tail_mode(), MARISA_TEXT_TAIL);
  EXPECT_EQ(text.node_order(), MARISA_LABEL_ORDER);
}

TEST(TrieTest, BinaryKeysWithNulBytes) {
  const std::string a("ab\0cd", 5), b("ab\0ce", 5), c("ab", 2);
  marisa::Keyset keyset;
  keyset.push_back(a.data(), a.size());
  keyset.push_back(b.data(), b.size());
  keyset.push_back(c.data(), c.size());
  marisa::Trie trie;
  trie.build(keyset);
  EXPECT_EQ(trie.tail_mode(), MARISA_BINARY_TAIL);
  std::size_t id = 0;
  ASSERT_TRUE(Lookup(trie, a, &id));
  EXPECT_EQ(Reverse(trie, id), a);
  EXPECT_TRUE(Lookup(trie, b));
  EXPECT_TRUE(Lookup(trie, c));
  EXPECT_FALSE(Lookup(trie, std::string("ab\0c", 4)));
}

TEST(TrieTest, SaveAndLoadRoundTrip) {
  marisa::Trie trie;
  BuildWords(trie);
  const std::string path = ::testing::TempDir() + "marisa_roundtrip.bin";
  trie.save(path.c_str());
  marisa::Trie loaded;
  loaded.load(path.c_str());
  EXPECT_EQ(loaded.num_keys(), trie.num_keys());
  EXPECT_EQ(loaded.io_size(), trie.io_size());
  for (const std::string &w : kWords) EXPECT_TRUE(Lookup(loaded, w)) << w;
  marisa::Trie mapped;
  mapped.mmap(path.c_str());
  EXPECT_EQ(Predict(mapped, "app").size(), 4u);
  std::remove(path.c_str());
}

TEST(TrieTest, ClearAndSwap) {
  marisa::Trie a, b;
  BuildWords(a);
  a.swap(b);
  EXPECT_ANY_THROW(a.num_keys());
  EXPECT_EQ(b.num_keys(), kWords.size());
  b.clear();
  EXPECT_ANY_THROW(b.num_keys());
}
