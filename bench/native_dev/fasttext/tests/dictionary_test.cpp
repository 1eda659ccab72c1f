// fasttext::Dictionary built from small in-memory texts.
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "args.h"
#include "dictionary.h"
#include "gtest/gtest.h"

namespace {

using fasttext::Args;
using fasttext::Dictionary;
using fasttext::entry_type;
using fasttext::model_name;
using fasttext::real;

// exposes the discard table, which has no accessor
class Dict : public Dictionary {
 public:
  using Dictionary::Dictionary;
  using Dictionary::pdiscard_;
};

const char* kText =
    "the cat sat on the mat __label__pets\n"
    "the dog __label__pets __label__animals\n";

std::shared_ptr<Args> args(int minCount = 1, int minn = 2, int maxn = 3) {
  auto a = std::make_shared<Args>();
  a->minCount = minCount;
  a->minn = minn;
  a->maxn = maxn;
  a->bucket = 1000;
  a->verbose = 0;
  return a;
}

// readFromFile: the table of a dictionary being read holds 30M slots (about 0.1 s to fill), so only the
// tests of reading use it; the others load the same dictionary from its saved form (a table of 13 slots)
std::unique_ptr<Dict> built(std::shared_ptr<Args> a, const std::string& text = kText) {
  auto d = std::make_unique<Dict>(a);
  std::istringstream in(text);
  d->readFromFile(in);
  return d;
}

template <typename T>
void put(std::ostream& out, T value) {
  out.write(reinterpret_cast<const char*>(&value), sizeof(T));
}

// kText's dictionary in Dictionary::save's format: the words by count, then the labels
std::unique_ptr<Dict> loaded(std::shared_ptr<Args> a) {
  const std::vector<std::pair<std::string, int64_t>> words{
      {"the", 3}, {"</s>", 2}, {"cat", 1}, {"sat", 1}, {"on", 1}, {"mat", 1}, {"dog", 1},
      {"__label__pets", 2}, {"__label__animals", 1}};
  std::stringstream saved;
  put<int32_t>(saved, 9);
  put<int32_t>(saved, 7);
  put<int32_t>(saved, 2);
  put<int64_t>(saved, 13);
  put<int64_t>(saved, -1);  // not pruned
  for (size_t i = 0; i < words.size(); i++) {
    saved.write(words[i].first.c_str(), words[i].first.size() + 1);
    put<int64_t>(saved, words[i].second);
    put<int8_t>(saved, i < 7 ? 0 : 1);
  }
  return std::make_unique<Dict>(a, saved);
}

// 32-bit FNV-1a over signed chars, as fasttext has it
uint32_t fnv(const std::string& s) {
  uint32_t h = 2166136261u;
  for (char c : s) {
    h = (h ^ uint32_t(int8_t(c))) * 16777619u;
  }
  return h;
}

std::vector<std::string> tokens(const std::string& text) {
  auto d = loaded(args());
  std::istringstream in(text);
  std::vector<std::string> out;
  std::string word;
  while (d->readWord(in, word)) {
    out.push_back(word);
  }
  return out;
}

TEST(Dictionary, Hash) {
  auto d = loaded(args());
  EXPECT_EQ(d->hash(""), 2166136261u);
  EXPECT_EQ(d->hash("a"), 3826002220u);
  EXPECT_EQ(d->hash("the"), 3020861980u);
  EXPECT_EQ(d->hash("\xc3\xa9"), 1023043777u);  // bytes above 0x7f hash as signed chars
}

TEST(Dictionary, ReadWordSplitsOnWhitespaceAndMarksLineEnds) {
  EXPECT_EQ(tokens("a\tb\r\nc"), (std::vector<std::string>{"a", "b", "</s>", "c"}));
  EXPECT_EQ(tokens("  x\v\fy \n\nz\n"), (std::vector<std::string>{"x", "y", "</s>", "</s>", "z", "</s>"}));
  EXPECT_EQ(tokens(std::string("p\0q", 3)), (std::vector<std::string>{"p", "q"}));
  EXPECT_EQ(tokens(""), std::vector<std::string>{});
}

TEST(Dictionary, CountsWordsAndLabels) {
  auto d = built(args());
  EXPECT_EQ(d->nwords(), 7);  // the cat sat on mat dog </s>
  EXPECT_EQ(d->nlabels(), 2);
  EXPECT_EQ(d->ntokens(), 13);
  EXPECT_EQ(d->getId("the"), 0);  // the most frequent word first
  EXPECT_EQ(d->getId("</s>"), 1);
  EXPECT_EQ(d->getId("__label__pets"), 7);  // labels after the words, most frequent first
  EXPECT_EQ(d->getId("__label__animals"), 8);
  EXPECT_EQ(d->getId("bird"), -1);
  EXPECT_EQ(d->getWord(0), "the");
  EXPECT_EQ(d->getWord(8), "__label__animals");
  EXPECT_EQ(d->getLabel(0), "__label__pets");
  EXPECT_EQ(d->getLabel(1), "__label__animals");
  EXPECT_EQ(d->getCounts(entry_type::word), (std::vector<int64_t>{3, 2, 1, 1, 1, 1, 1}));
  EXPECT_EQ(d->getCounts(entry_type::label), (std::vector<int64_t>{2, 1}));
}

TEST(Dictionary, EveryWordOfTheTextIsKnown) {
  auto d = loaded(args());
  for (const char* w : {"the", "cat", "sat", "on", "mat", "dog", "</s>"}) {
    int32_t id = d->getId(w);
    ASSERT_GE(id, 0) << w;
    EXPECT_LT(id, d->nwords()) << w;
    EXPECT_EQ(d->getWord(id), w);
    EXPECT_EQ(d->getType(id), entry_type::word) << w;
    EXPECT_EQ(d->getId(w, d->hash(w)), id) << w;
  }
  EXPECT_EQ(d->getType(7), entry_type::label);
}

TEST(Dictionary, LabelsOutOfRangeAreRejected) {
  auto d = loaded(args());
  EXPECT_THROW(d->getLabel(2), std::invalid_argument);
  EXPECT_THROW(d->getLabel(-1), std::invalid_argument);
}

TEST(Dictionary, TypeFollowsTheLabelPrefix) {
  auto a = args();
  auto d = loaded(a);
  EXPECT_EQ(d->getType("__label__x"), entry_type::label);
  EXPECT_EQ(d->getType("x__label__"), entry_type::word);
  EXPECT_EQ(d->getType("cat"), entry_type::word);
  a->label = "#";
  EXPECT_EQ(d->getType("#tag"), entry_type::label);
  EXPECT_EQ(d->getType("__label__x"), entry_type::word);
}

TEST(Dictionary, MinCountDropsRareEntries) {
  auto a = args(2);
  a->minCountLabel = 2;
  auto d = built(a);
  EXPECT_EQ(d->nwords(), 2);
  EXPECT_EQ(d->nlabels(), 1);
  EXPECT_EQ(d->ntokens(), 13);  // every token read still counts
  EXPECT_EQ(d->getId("cat"), -1);
  EXPECT_EQ(d->getId("__label__animals"), -1);
  EXPECT_EQ(d->getId("__label__pets"), 2);
  std::ostringstream out;
  d->dump(out);
  EXPECT_EQ(out.str(), "3\nthe 3 word\n</s> 2 word\n__label__pets 2 label\n");
}

TEST(Dictionary, ThresholdKeepsCountsAtLeastTheLimit) {
  auto d = loaded(args());
  d->threshold(3, 1);
  EXPECT_EQ(d->nwords(), 1);
  EXPECT_EQ(d->nlabels(), 2);
  EXPECT_EQ(d->getId("the"), 0);
  EXPECT_EQ(d->getId("__label__animals"), 2);
  d->threshold(3, 2);
  EXPECT_EQ(d->nlabels(), 1);
  EXPECT_EQ(d->getId("__label__animals"), -1);
}

TEST(Dictionary, EmptyVocabularyIsAnError) {
  auto d = std::make_unique<Dict>(args(5));
  std::istringstream in("one two\n");
  EXPECT_THROW(d->readFromFile(in), std::invalid_argument);
}

TEST(Dictionary, SubwordsOfAWord) {
  auto d = loaded(args());
  std::vector<int32_t> ngrams;
  std::vector<std::string> substrings;
  d->getSubwords("ab", ngrams, substrings);  // not in the vocabulary: character n-grams only
  EXPECT_EQ(substrings, (std::vector<std::string>{"<a", "<ab", "ab", "ab>", "b>"}));
  EXPECT_EQ(ngrams, (std::vector<int32_t>{757, 515, 953, 763, 568}));  // nwords 7 + hash % 1000
  for (size_t i = 0; i < substrings.size(); i++) {
    EXPECT_EQ(ngrams[i], 7 + int32_t(fnv(substrings[i]) % 1000)) << substrings[i];
  }
}

TEST(Dictionary, SubwordsKeepMultibyteCharactersWhole) {
  auto d = loaded(args(1, 1, 2));
  std::vector<int32_t> ngrams;
  std::vector<std::string> substrings;
  d->getSubwords("\xc3\xa9", ngrams, substrings);
  EXPECT_EQ(substrings, (std::vector<std::string>{"<\xc3\xa9", "\xc3\xa9", "\xc3\xa9>"}));
  EXPECT_EQ(ngrams[1], 7 + 777);
  d->getSubwords("</s>", ngrams, substrings);  // the end of line: itself, no n-grams
  EXPECT_EQ(ngrams, std::vector<int32_t>{1});
  EXPECT_EQ(substrings, std::vector<std::string>{"</s>"});
}

TEST(Dictionary, SubwordsOfAKnownWordStartWithItsId) {
  auto d = loaded(args(1, 3, 3));
  int32_t cat = d->getId("cat");
  std::vector<int32_t> ngrams;
  std::vector<std::string> substrings;
  d->getSubwords("cat", ngrams, substrings);
  EXPECT_EQ(substrings, (std::vector<std::string>{"cat", "<ca", "cat", "at>"}));
  ASSERT_EQ(ngrams.size(), 4u);
  EXPECT_EQ(ngrams[0], cat);
  EXPECT_EQ(ngrams[1], 7 + int32_t(fnv("<ca") % 1000));
  EXPECT_EQ(ngrams[3], 7 + int32_t(fnv("at>") % 1000));
  EXPECT_EQ(d->getSubwords(cat), ngrams);
  EXPECT_EQ(d->getSubwords(std::string("cat")), ngrams);
  std::vector<int32_t> unknown = d->getSubwords(std::string("cow"));
  EXPECT_EQ(unknown, (std::vector<int32_t>{7 + int32_t(fnv("<co") % 1000), 7 + int32_t(fnv("cow") % 1000),
                                           7 + int32_t(fnv("ow>") % 1000)}));
  EXPECT_EQ(d->getSubwords(d->getId("</s>")), std::vector<int32_t>{d->getId("</s>")});
}

TEST(Dictionary, SupervisedLineWithoutSubwords) {
  auto a = args(1, 0, 0);
  a->model = model_name::sup;
  auto d = loaded(a);
  std::istringstream in("the cat bird __label__animals\nthe dog\n");
  std::vector<int32_t> words, labels;
  EXPECT_EQ(d->getLine(in, words, labels), 5);
  EXPECT_EQ(words, (std::vector<int32_t>{d->getId("the"), d->getId("cat"), 1}));  // bird is unknown
  EXPECT_EQ(labels, std::vector<int32_t>{1});
  EXPECT_EQ(d->getLine(in, words, labels), 3);
  EXPECT_EQ(words, (std::vector<int32_t>{0, d->getId("dog"), 1}));
  EXPECT_TRUE(labels.empty());
  EXPECT_EQ(d->getLine(in, words, labels), 0);  // at the end
  EXPECT_EQ(d->getLine(in, words, labels), 5);  // and back at the start
}

TEST(Dictionary, WordBigramsAreHashedIntoBuckets) {
  auto a = args(1, 0, 0);
  a->wordNgrams = 2;
  auto d = loaded(a);
  std::vector<int32_t> words, labels;
  EXPECT_EQ(d->getStringNoNewline("the cat __label__pets", words, labels), 3);
  uint64_t h = int32_t(fnv("the"));
  h = h * 116049371 + int32_t(fnv("cat"));
  EXPECT_EQ(words, (std::vector<int32_t>{0, d->getId("cat"), 7 + int32_t(h % 1000)}));
  EXPECT_EQ(labels, std::vector<int32_t>{0});
  a->wordNgrams = 3;
  d->getStringNoNewline("  the  cat\tdog ", words, labels);
  EXPECT_EQ(words.size(), 6u);  // three words, two bigrams, one trigram
  EXPECT_TRUE(labels.empty());
}

TEST(Dictionary, StringWithUnknownWordsUsesTheirSubwords) {
  auto d = loaded(args(1, 3, 3));
  std::vector<int32_t> words, labels;
  EXPECT_EQ(d->getStringNoNewline("cow __label__bird __label__pets", words, labels), 3);
  EXPECT_EQ(words, d->getSubwords(std::string("cow")));
  EXPECT_EQ(labels, std::vector<int32_t>{0});  // the unknown label is dropped
}

TEST(Dictionary, DiscardTable) {
  auto a = args();
  a->t = 1e-2;
  auto d = loaded(a);
  ASSERT_EQ(d->pdiscard_.size(), 9u);
  real f = 3.0f / 13.0f;  // the
  EXPECT_FLOAT_EQ(d->pdiscard_[0], std::sqrt(1e-2 / f) + 1e-2 / f);
  real g = 1.0f / 13.0f;  // a word seen once
  EXPECT_FLOAT_EQ(d->pdiscard_[2], std::sqrt(1e-2 / g) + 1e-2 / g);
  EXPECT_TRUE(d->discard(0, 0.5));   // pdiscard of the is about 0.25
  EXPECT_FALSE(d->discard(0, 0.2));
  EXPECT_FALSE(d->discard(2, 0.4));  // about 0.49
  a->model = model_name::sup;
  EXPECT_FALSE(d->discard(0, 0.99));
}

TEST(Dictionary, UnsupervisedLineSkipsUnknownAndDiscardedWords) {
  auto a = args();
  a->t = 1;  // nothing is discarded
  auto d = loaded(a);
  std::istringstream in("the bird __label__pets cat\nmat\n");
  std::minstd_rand rng(1);
  std::vector<int32_t> words;
  EXPECT_EQ(d->getLine(in, words, rng), 4);  // the, the label, cat, </s>
  EXPECT_EQ(words, (std::vector<int32_t>{0, d->getId("cat"), 1}));
  a->t = 1e-9;  // everything is, once the table is rebuilt
  d->init();
  EXPECT_EQ(d->getLine(in, words, rng), 2);
  EXPECT_TRUE(words.empty());
}

TEST(Dictionary, SaveAndLoad) {
  auto d = built(args());
  std::stringstream buffer;
  d->save(buffer);
  Dict copy(args(), buffer);
  EXPECT_EQ(copy.nwords(), 7);
  EXPECT_EQ(copy.nlabels(), 2);
  EXPECT_EQ(copy.ntokens(), 13);
  for (int32_t id = 0; id < 9; id++) {
    EXPECT_EQ(copy.getWord(id), d->getWord(id));
    EXPECT_EQ(copy.getId(d->getWord(id)), id);
  }
  EXPECT_EQ(copy.getCounts(entry_type::word), d->getCounts(entry_type::word));
  EXPECT_EQ(copy.getSubwords(std::string("mat")), d->getSubwords(std::string("mat")));
  EXPECT_FALSE(copy.isPruned());
}

TEST(Dictionary, PruneKeepsTheChosenWordsAndAllLabels) {
  auto d = loaded(args(1, 3, 3));
  int32_t cat = d->getId("cat");
  int32_t ngram = 7 + int32_t(fnv("<ca") % 1000);
  std::vector<int32_t> idx{ngram, cat, 0};
  d->prune(idx);
  EXPECT_TRUE(d->isPruned());
  EXPECT_EQ(idx, (std::vector<int32_t>{0, cat, ngram}));
  EXPECT_EQ(d->nwords(), 2);
  EXPECT_EQ(d->nlabels(), 2);
  EXPECT_EQ(d->getWord(0), "the");
  EXPECT_EQ(d->getWord(1), "cat");
  EXPECT_EQ(d->getId("cat"), 1);
  EXPECT_EQ(d->getId("sat"), -1);
  EXPECT_EQ(d->getLabel(1), "__label__animals");
  // only the kept n-gram survives, renumbered after the two words
  EXPECT_EQ(d->getSubwords(1), (std::vector<int32_t>{1, 2}));
}

}  // namespace
