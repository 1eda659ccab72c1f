// The RESP2/RESP3 reply reader with hiredis's default reply objects.
#include <cmath>
#include <cstring>
#include <string>

#include "gtest/gtest.h"
#include "hiredis.h"

namespace {

struct Reader {
  redisReader *r = redisReaderCreate();
  ~Reader() { redisReaderFree(r); }
  int feed(const std::string &bytes) { return redisReaderFeed(r, bytes.data(), bytes.size()); }
  // One reply, or nullptr (none yet, or an error: see r->err).
  redisReply *next() {
    void *reply = nullptr;
    if (redisReaderGetReply(r, &reply) != REDIS_OK) return nullptr;
    return static_cast<redisReply *>(reply);
  }
};

redisReply *one(Reader &rd, const std::string &bytes) {
  EXPECT_EQ(rd.feed(bytes), REDIS_OK);
  redisReply *reply = rd.next();
  EXPECT_NE(reply, nullptr) << bytes << ": " << rd.r->errstr;
  return reply;
}

TEST(Reader, Integer) {
  Reader rd;
  for (const auto &[text, value] : {std::pair<const char *, long long>{":0\r\n", 0}, {":42\r\n", 42},
                                    {":-17\r\n", -17}, {":9223372036854775807\r\n", 9223372036854775807LL},
                                    {":-9223372036854775808\r\n", -9223372036854775807LL - 1}}) {
    redisReply *reply = one(rd, text);
    ASSERT_NE(reply, nullptr);
    EXPECT_EQ(reply->type, REDIS_REPLY_INTEGER);
    EXPECT_EQ(reply->integer, value) << text;
    freeReplyObject(reply);
  }
}

TEST(Reader, BadIntegers) {
  for (const char *text : {":9223372036854775808\r\n", ":12a\r\n", ":\r\n", ":-\r\n", ":01\r\n"}) {
    Reader rd;
    rd.feed(text);
    EXPECT_EQ(rd.next(), nullptr) << text;
    EXPECT_EQ(rd.r->err, REDIS_ERR_PROTOCOL) << text;
  }
}

TEST(Reader, StatusAndError) {
  Reader rd;
  redisReply *reply = one(rd, "+OK\r\n");
  ASSERT_NE(reply, nullptr);
  EXPECT_EQ(reply->type, REDIS_REPLY_STATUS);
  EXPECT_EQ(std::string(reply->str, reply->len), "OK");
  freeReplyObject(reply);
  reply = one(rd, "-ERR unknown command\r\n");
  ASSERT_NE(reply, nullptr);
  EXPECT_EQ(reply->type, REDIS_REPLY_ERROR);
  EXPECT_EQ(std::string(reply->str, reply->len), "ERR unknown command");
  freeReplyObject(reply);
}

TEST(Reader, BulkStrings) {
  Reader rd;
  redisReply *reply = one(rd, "$5\r\nhello\r\n");
  ASSERT_NE(reply, nullptr);
  EXPECT_EQ(reply->type, REDIS_REPLY_STRING);
  EXPECT_EQ(std::string(reply->str, reply->len), "hello");
  freeReplyObject(reply);
  reply = one(rd, std::string("$4\r\na\r\0b\r\n", 10));
  ASSERT_NE(reply, nullptr);
  EXPECT_EQ(std::string(reply->str, reply->len), std::string("a\r\0b", 4));
  freeReplyObject(reply);
  reply = one(rd, "$0\r\n\r\n");
  ASSERT_NE(reply, nullptr);
  EXPECT_EQ(reply->type, REDIS_REPLY_STRING);
  EXPECT_EQ(reply->len, 0u);
  freeReplyObject(reply);
  reply = one(rd, "$-1\r\n");
  ASSERT_NE(reply, nullptr);
  EXPECT_EQ(reply->type, REDIS_REPLY_NIL);
  freeReplyObject(reply);
}

TEST(Reader, BadBulkLength) {
  for (const char *text : {"$-2\r\n", "$x\r\n"}) {
    Reader rd;
    rd.feed(text);
    EXPECT_EQ(rd.next(), nullptr) << text;
    EXPECT_EQ(rd.r->err, REDIS_ERR_PROTOCOL) << text;
  }
}

TEST(Reader, Arrays) {
  Reader rd;
  redisReply *reply = one(rd, "*3\r\n:1\r\n$3\r\nfoo\r\n*2\r\n+a\r\n$-1\r\n");
  ASSERT_NE(reply, nullptr);
  ASSERT_EQ(reply->type, REDIS_REPLY_ARRAY);
  ASSERT_EQ(reply->elements, 3u);
  EXPECT_EQ(reply->element[0]->integer, 1);
  EXPECT_EQ(std::string(reply->element[1]->str), "foo");
  redisReply *inner = reply->element[2];
  ASSERT_EQ(inner->type, REDIS_REPLY_ARRAY);
  ASSERT_EQ(inner->elements, 2u);
  EXPECT_EQ(inner->element[0]->type, REDIS_REPLY_STATUS);
  EXPECT_EQ(inner->element[1]->type, REDIS_REPLY_NIL);
  freeReplyObject(reply);
  reply = one(rd, "*0\r\n");
  ASSERT_NE(reply, nullptr);
  EXPECT_EQ(reply->type, REDIS_REPLY_ARRAY);
  EXPECT_EQ(reply->elements, 0u);
  freeReplyObject(reply);
  reply = one(rd, "*-1\r\n");
  ASSERT_NE(reply, nullptr);
  EXPECT_EQ(reply->type, REDIS_REPLY_NIL);
  freeReplyObject(reply);
}

TEST(Reader, DeepNesting) {
  Reader rd;
  std::string text;
  for (int i = 0; i < 8; ++i) text += "*1\r\n";
  text += ":5\r\n";
  redisReply *reply = one(rd, text);
  ASSERT_NE(reply, nullptr);
  redisReply *at = reply;
  for (int i = 0; i < 8; ++i) {
    ASSERT_EQ(at->type, REDIS_REPLY_ARRAY);
    ASSERT_EQ(at->elements, 1u);
    at = at->element[0];
  }
  EXPECT_EQ(at->integer, 5);
  freeReplyObject(reply);
}

TEST(Reader, MaxElements) {
  Reader rd;
  rd.r->maxelements = 3;
  rd.feed("*4\r\n");
  EXPECT_EQ(rd.next(), nullptr);
  EXPECT_EQ(rd.r->err, REDIS_ERR_PROTOCOL);
  Reader ok;
  ok.r->maxelements = 3;
  redisReply *reply = one(ok, "*3\r\n:1\r\n:2\r\n:3\r\n");
  ASSERT_NE(reply, nullptr);
  EXPECT_EQ(reply->elements, 3u);
  freeReplyObject(reply);
}

TEST(Reader, ByteByByte) {
  Reader rd;
  const std::string text = "*2\r\n$6\r\nfoobar\r\n:-12\r\n";
  for (size_t i = 0; i + 1 < text.size(); ++i) {
    ASSERT_EQ(rd.feed(text.substr(i, 1)), REDIS_OK);
    EXPECT_EQ(rd.next(), nullptr) << "complete after " << i + 1 << " bytes";
    ASSERT_EQ(rd.r->err, 0);
  }
  redisReply *reply = one(rd, text.substr(text.size() - 1));
  ASSERT_NE(reply, nullptr);
  ASSERT_EQ(reply->elements, 2u);
  EXPECT_EQ(std::string(reply->element[0]->str), "foobar");
  EXPECT_EQ(reply->element[1]->integer, -12);
  freeReplyObject(reply);
}

TEST(Reader, Pipelined) {
  Reader rd;
  rd.feed("+one\r\n:2\r\n$5\r\nthree\r\n");
  redisReply *a = rd.next();
  redisReply *b = rd.next();
  redisReply *c = rd.next();
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(std::string(a->str), "one");
  EXPECT_EQ(b->integer, 2);
  EXPECT_EQ(std::string(c->str), "three");
  EXPECT_EQ(rd.next(), nullptr);
  EXPECT_EQ(rd.r->err, 0);
  freeReplyObject(a);
  freeReplyObject(b);
  freeReplyObject(c);
}

TEST(Reader, LargeBulkInPieces) {
  Reader rd;
  std::string payload(100000, 'z');
  payload[50000] = '\r';
  std::string text = "$" + std::to_string(payload.size()) + "\r\n" + payload + "\r\n";
  for (size_t at = 0; at < text.size(); at += 4096) rd.feed(text.substr(at, 4096));
  redisReply *reply = rd.next();
  ASSERT_NE(reply, nullptr);
  EXPECT_EQ(reply->len, payload.size());
  EXPECT_EQ(std::string(reply->str, reply->len), payload);
  freeReplyObject(reply);
}

TEST(Reader, BadTypeByte) {
  Reader rd;
  rd.feed("@foo\r\n");
  EXPECT_EQ(rd.next(), nullptr);
  EXPECT_EQ(rd.r->err, REDIS_ERR_PROTOCOL);
  EXPECT_NE(std::strstr(rd.r->errstr, "\"@\""), nullptr) << rd.r->errstr;
}

TEST(Reader, Resp3Scalars) {
  Reader rd;
  redisReply *reply = one(rd, ",3.25\r\n");
  ASSERT_NE(reply, nullptr);
  EXPECT_EQ(reply->type, REDIS_REPLY_DOUBLE);
  EXPECT_DOUBLE_EQ(reply->dval, 3.25);
  EXPECT_EQ(std::string(reply->str, reply->len), "3.25");
  freeReplyObject(reply);
  reply = one(rd, ",-inf\r\n");
  ASSERT_NE(reply, nullptr);
  EXPECT_TRUE(std::isinf(reply->dval) && reply->dval < 0);
  freeReplyObject(reply);
  reply = one(rd, ",nan\r\n");
  ASSERT_NE(reply, nullptr);
  EXPECT_TRUE(std::isnan(reply->dval));
  freeReplyObject(reply);
  reply = one(rd, "_\r\n");
  ASSERT_NE(reply, nullptr);
  EXPECT_EQ(reply->type, REDIS_REPLY_NIL);
  freeReplyObject(reply);
  reply = one(rd, "#t\r\n");
  ASSERT_NE(reply, nullptr);
  EXPECT_EQ(reply->type, REDIS_REPLY_BOOL);
  EXPECT_EQ(reply->integer, 1);
  freeReplyObject(reply);
  reply = one(rd, "#f\r\n");
  ASSERT_NE(reply, nullptr);
  EXPECT_EQ(reply->integer, 0);
  freeReplyObject(reply);
  reply = one(rd, "(3492890328409238509324850943850943825024385\r\n");
  ASSERT_NE(reply, nullptr);
  EXPECT_EQ(reply->type, REDIS_REPLY_BIGNUM);
  EXPECT_EQ(std::string(reply->str), "3492890328409238509324850943850943825024385");
  freeReplyObject(reply);
  reply = one(rd, "=15\r\ntxt:Some string\r\n");
  ASSERT_NE(reply, nullptr);
  EXPECT_EQ(reply->type, REDIS_REPLY_VERB);
  EXPECT_STREQ(reply->vtype, "txt");
  EXPECT_EQ(std::string(reply->str, reply->len), "Some string");
  freeReplyObject(reply);
}

TEST(Reader, Resp3BadScalars) {
  for (const char *text : {"#x\r\n", "_x\r\n", ",1.5.5\r\n", "=3\r\nabc\r\n"}) {
    Reader rd;
    rd.feed(text);
    EXPECT_EQ(rd.next(), nullptr) << text;
    EXPECT_EQ(rd.r->err, REDIS_ERR_PROTOCOL) << text;
  }
}

TEST(Reader, Resp3Aggregates) {
  Reader rd;
  redisReply *reply = one(rd, "%2\r\n+a\r\n:1\r\n+b\r\n:2\r\n");
  ASSERT_NE(reply, nullptr);
  ASSERT_EQ(reply->type, REDIS_REPLY_MAP);
  ASSERT_EQ(reply->elements, 4u);
  EXPECT_EQ(std::string(reply->element[2]->str), "b");
  EXPECT_EQ(reply->element[3]->integer, 2);
  freeReplyObject(reply);
  reply = one(rd, "~3\r\n:1\r\n:2\r\n:3\r\n");
  ASSERT_NE(reply, nullptr);
  EXPECT_EQ(reply->type, REDIS_REPLY_SET);
  EXPECT_EQ(reply->elements, 3u);
  freeReplyObject(reply);
  reply = one(rd, ">2\r\n+message\r\n$2\r\nhi\r\n");
  ASSERT_NE(reply, nullptr);
  EXPECT_EQ(reply->type, REDIS_REPLY_PUSH);
  EXPECT_EQ(reply->elements, 2u);
  freeReplyObject(reply);
}

}  // namespace
