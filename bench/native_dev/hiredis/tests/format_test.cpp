// Formatting commands into the RESP wire protocol.
#include <cstring>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "hiredis.h"

namespace {

template <typename... Args>
std::string format(const char *fmt, Args... args) {
  char *cmd = nullptr;
  int len = redisFormatCommand(&cmd, fmt, args...);
  if (len < 0) return "<error>";
  std::string out(cmd, static_cast<size_t>(len));
  redisFreeCommand(cmd);
  return out;
}

TEST(Format, PlainWords) {
  EXPECT_EQ(format("SET foo bar"), "*3\r\n$3\r\nSET\r\n$3\r\nfoo\r\n$3\r\nbar\r\n");
  EXPECT_EQ(format("  PING   "), "*1\r\n$4\r\nPING\r\n");
  EXPECT_EQ(format("GET k%%v"), "*2\r\n$3\r\nGET\r\n$3\r\nk%v\r\n");
}

TEST(Format, StringArguments) {
  EXPECT_EQ(format("SET %s %s", "foo", "hello world"),
            "*3\r\n$3\r\nSET\r\n$3\r\nfoo\r\n$11\r\nhello world\r\n");
  EXPECT_EQ(format("SET %s %s", "foo", ""), "*3\r\n$3\r\nSET\r\n$3\r\nfoo\r\n$0\r\n\r\n");
  EXPECT_EQ(format("SET key:%s val", "x"), "*3\r\n$3\r\nSET\r\n$5\r\nkey:x\r\n$3\r\nval\r\n");
}

TEST(Format, BinaryArguments) {
  EXPECT_EQ(format("SET %b %b", "foo", static_cast<size_t>(3), "b\0r", static_cast<size_t>(3)),
            std::string("*3\r\n$3\r\nSET\r\n$3\r\nfoo\r\n$3\r\nb\0r\r\n", 31));
  EXPECT_EQ(format("SET %b %b", "foo", static_cast<size_t>(3), "", static_cast<size_t>(0)),
            "*3\r\n$3\r\nSET\r\n$3\r\nfoo\r\n$0\r\n\r\n");
}

TEST(Format, IntegerArguments) {
  EXPECT_EQ(format("key:%08d str:%s", 1234, "hello"), "*2\r\n$12\r\nkey:00001234\r\n$9\r\nstr:hello\r\n");
  EXPECT_EQ(format("INCRBY k %lld", 12345678901LL), "*3\r\n$6\r\nINCRBY\r\n$1\r\nk\r\n$11\r\n12345678901\r\n");
  EXPECT_EQ(format("X %hhu %hu %u %lu", 255, 65535, 10u, 7ul),
            "*5\r\n$1\r\nX\r\n$3\r\n255\r\n$5\r\n65535\r\n$2\r\n10\r\n$1\r\n7\r\n");
  EXPECT_EQ(format("F %.2f %x", 3.14159, 255), "*3\r\n$1\r\nF\r\n$4\r\n3.14\r\n$2\r\nff\r\n");
}

TEST(Format, LongArguments) {
  std::string big(1000, 'v');
  std::string want = "*2\r\n$3\r\nSET\r\n$1000\r\n" + big + "\r\n";
  EXPECT_EQ(format("SET %s", big.c_str()), want);
}

TEST(Format, Argv) {
  const char *argv[] = {"SET", "foo", "bar"};
  char *cmd = nullptr;
  long long len = redisFormatCommandArgv(&cmd, 3, argv, nullptr);
  ASSERT_GT(len, 0);
  EXPECT_EQ(std::string(cmd, static_cast<size_t>(len)), "*3\r\n$3\r\nSET\r\n$3\r\nfoo\r\n$3\r\nbar\r\n");
  redisFreeCommand(cmd);
  const size_t lens[] = {3, 1, 10};
  const char *binary[] = {"SET", "k", "0123456789abc"};
  len = redisFormatCommandArgv(&cmd, 3, binary, lens);
  ASSERT_GT(len, 0);
  EXPECT_EQ(std::string(cmd, static_cast<size_t>(len)), "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$10\r\n0123456789\r\n");
  redisFreeCommand(cmd);
}

TEST(Format, SdsArgv) {
  std::vector<std::string> words = {"RPUSH", "list", std::string(12, 'a'), std::string(123, 'b')};
  std::vector<const char *> argv;
  std::vector<size_t> lens;
  std::string want = "*4\r\n";
  for (const std::string &w : words) {
    argv.push_back(w.c_str());
    lens.push_back(w.size());
    want += "$" + std::to_string(w.size()) + "\r\n" + w + "\r\n";
  }
  sds cmd = nullptr;
  long long len = redisFormatSdsCommandArgv(&cmd, 4, argv.data(), lens.data());
  ASSERT_EQ(len, static_cast<long long>(want.size()));
  EXPECT_EQ(std::string(cmd, sdslen(cmd)), want);
  redisFreeSdsCommand(cmd);
  len = redisFormatSdsCommandArgv(&cmd, 2, argv.data(), nullptr);
  EXPECT_EQ(std::string(cmd, static_cast<size_t>(len)), "*2\r\n$5\r\nRPUSH\r\n$4\r\nlist\r\n");
  redisFreeSdsCommand(cmd);
}

TEST(Format, ReplyObjectsFromReader) {
  // The reply objects hiredis builds for the reader: a nested array of every kind, freed whole.
  redisReader *r = redisReaderCreate();
  const std::string text = "*5\r\n$3\r\nabc\r\n:7\r\n,1.5\r\n#t\r\n*1\r\n_\r\n";
  ASSERT_EQ(redisReaderFeed(r, text.data(), text.size()), REDIS_OK);
  void *out = nullptr;
  ASSERT_EQ(redisReaderGetReply(r, &out), REDIS_OK);
  auto *reply = static_cast<redisReply *>(out);
  ASSERT_NE(reply, nullptr);
  ASSERT_EQ(reply->elements, 5u);
  EXPECT_EQ(reply->element[0]->len, 3u);
  EXPECT_EQ(reply->element[0]->str[3], '\0');
  EXPECT_EQ(reply->element[1]->integer, 7);
  EXPECT_DOUBLE_EQ(reply->element[2]->dval, 1.5);
  EXPECT_EQ(reply->element[3]->integer, 1);
  EXPECT_EQ(reply->element[4]->element[0]->type, REDIS_REPLY_NIL);
  freeReplyObject(reply);
  redisReaderFree(r);
}

}  // namespace
