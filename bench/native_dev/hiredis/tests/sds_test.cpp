// The sds dynamic string library, through its public header.
#include <climits>
#include <cstring>
#include <string>

#include "gtest/gtest.h"
#include "sds.h"

namespace {

std::string str(const sds s) { return std::string(s, sdslen(s)); }

TEST(Sds, NewAndLength) {
  sds s = sdsnew("foo");
  EXPECT_EQ(sdslen(s), 3u);
  EXPECT_EQ(std::memcmp(s, "foo\0", 4), 0);
  sdsfree(s);
  s = sdsnewlen("fo\0o", 4);
  EXPECT_EQ(sdslen(s), 4u);
  EXPECT_EQ(str(s), std::string("fo\0o", 4));
  sdsfree(s);
  s = sdsempty();
  EXPECT_EQ(sdslen(s), 0u);
  EXPECT_EQ(s[0], '\0');
  sdsfree(s);
}

TEST(Sds, LongStringsUseWiderHeaders) {
  for (size_t len : {31u, 32u, 255u, 256u, 65535u, 65536u, 70000u}) {
    std::string text(len, 'x');
    sds s = sdsnewlen(text.data(), text.size());
    EXPECT_EQ(sdslen(s), len);
    EXPECT_EQ(str(s), text);
    s = sdscat(s, "yz");
    EXPECT_EQ(sdslen(s), len + 2);
    EXPECT_EQ(s[len + 1], 'z');
    EXPECT_EQ(s[len + 2], '\0');
    sdsfree(s);
  }
}

TEST(Sds, CatAndCopy) {
  sds s = sdsnew("fo");
  s = sdscat(s, "bar");
  EXPECT_EQ(str(s), "fobar");
  s = sdscatlen(s, "xyz", 2);
  EXPECT_EQ(str(s), "fobarxy");
  sds t = sdsnew("!");
  s = sdscatsds(s, t);
  EXPECT_EQ(str(s), "fobarxy!");
  s = sdscpy(s, "a");
  EXPECT_EQ(str(s), "a");
  s = sdscpy(s, "xyzxxxxxxxxxxyyyyyyyyyykkkkkkkkkk");
  EXPECT_EQ(str(s), "xyzxxxxxxxxxxyyyyyyyyyykkkkkkkkkk");
  s = sdscpylen(s, "hello", 3);
  EXPECT_EQ(str(s), "hel");
  sdsfree(t);
  sdsfree(s);
}

TEST(Sds, DupAndClear) {
  sds s = sdsnew("abc");
  sds d = sdsdup(s);
  EXPECT_EQ(str(d), "abc");
  EXPECT_NE(d, s);
  sdsclear(s);
  EXPECT_EQ(sdslen(s), 0u);
  EXPECT_EQ(s[0], '\0');
  EXPECT_EQ(str(d), "abc");
  sdsfree(s);
  sdsfree(d);
}

TEST(Sds, Printf) {
  sds s = sdscatprintf(sdsempty(), "%d", 123);
  EXPECT_EQ(str(s), "123");
  sdsfree(s);
  s = sdscatprintf(sdsnew("x="), "%s/%05.1f", "ab", 2.25);
  EXPECT_EQ(str(s), "x=ab/002.2");
  sdsfree(s);
  std::string big(300, 'q');
  s = sdscatprintf(sdsempty(), "<%s>", big.c_str());
  EXPECT_EQ(str(s), "<" + big + ">");
  sdsfree(s);
}

TEST(Sds, CatFmt) {
  sds s = sdsnew("--");
  s = sdscatfmt(s, "Hello %s World %I,%I--", "Hi!", LLONG_MIN, LLONG_MAX);
  EXPECT_EQ(str(s), "--Hello Hi! World -9223372036854775808,9223372036854775807--");
  sdsfree(s);
  s = sdsnew("--");
  s = sdscatfmt(s, "%u,%U--", UINT_MAX, ULLONG_MAX);
  EXPECT_EQ(str(s), "--4294967295,18446744073709551615--");
  sdsfree(s);
  sds name = sdsnew("sds");
  s = sdscatfmt(sdsempty(), "[%S] %i%% %i", name, 42, -7);
  EXPECT_EQ(str(s), "[sds] 42% -7");
  sdsfree(name);
  sdsfree(s);
}

TEST(Sds, FromLongLong) {
  const std::pair<long long, const char *> cases[] = {
      {0, "0"}, {7, "7"}, {-7, "-7"}, {10, "10"}, {1234567890123LL, "1234567890123"},
      {LLONG_MAX, "9223372036854775807"}, {LLONG_MIN, "-9223372036854775808"}};
  for (const auto &[value, text] : cases) {
    sds s = sdsfromlonglong(value);
    EXPECT_EQ(str(s), text) << value;
    sdsfree(s);
  }
}

TEST(Sds, Trim) {
  sds s = sdsnew(" x ");
  s = sdstrim(s, " x");
  EXPECT_EQ(sdslen(s), 0u);
  sdsfree(s);
  s = sdsnew(" x ");
  s = sdstrim(s, " ");
  EXPECT_EQ(str(s), "x");
  sdsfree(s);
  s = sdsnew("xxciaoyyy");
  s = sdstrim(s, "xy");
  EXPECT_EQ(str(s), "ciao");
  sdsfree(s);
  s = sdsnew("ab");
  s = sdstrim(s, "c");
  EXPECT_EQ(str(s), "ab");
  sdsfree(s);
}

TEST(Sds, Range) {
  struct Case { ssize_t start, end; const char *want; };
  const Case cases[] = {{1, 1, "i"}, {1, -1, "iao"}, {-2, -1, "ao"}, {2, 1, ""},
                        {1, 100, "iao"}, {100, 100, ""}, {0, 0, "c"}, {-100, 1, "ci"}};
  for (const Case &c : cases) {
    sds s = sdsnew("ciao");
    EXPECT_EQ(sdsrange(s, c.start, c.end), 0);
    EXPECT_EQ(str(s), c.want) << c.start << ".." << c.end;
    sdsfree(s);
  }
}

TEST(Sds, CaseMapping) {
  sds s = sdsnew("MiXeD 12");
  sdstolower(s);
  EXPECT_EQ(str(s), "mixed 12");
  sdstoupper(s);
  EXPECT_EQ(str(s), "MIXED 12");
  s = sdsmapchars(s, "XM", "ym", 2);
  EXPECT_EQ(str(s), "mIyED 12");
  sdsfree(s);
}

TEST(Sds, Compare) {
  struct Case { const char *a, *b; int sign; };
  const Case cases[] = {{"foo", "foa", 1}, {"bar", "bar", 0}, {"aar", "bar", -1},
                        {"ab", "abc", -1}, {"abc", "ab", 1}, {"", "", 0}};
  for (const Case &c : cases) {
    sds a = sdsnew(c.a), b = sdsnew(c.b);
    int got = sdscmp(a, b);
    EXPECT_EQ((got > 0) - (got < 0), c.sign) << c.a << " vs " << c.b;
    sdsfree(a);
    sdsfree(b);
  }
}

TEST(Sds, SplitLen) {
  int count = 0;
  const char *text = "a,bb,,ccc";
  sds *parts = sdssplitlen(text, static_cast<int>(std::strlen(text)), ",", 1, &count);
  ASSERT_EQ(count, 4);
  EXPECT_EQ(str(parts[0]), "a");
  EXPECT_EQ(str(parts[1]), "bb");
  EXPECT_EQ(str(parts[2]), "");
  EXPECT_EQ(str(parts[3]), "ccc");
  sdsfreesplitres(parts, count);
  text = "x--y--";
  parts = sdssplitlen(text, static_cast<int>(std::strlen(text)), "--", 2, &count);
  ASSERT_EQ(count, 3);
  EXPECT_EQ(str(parts[0]), "x");
  EXPECT_EQ(str(parts[1]), "y");
  EXPECT_EQ(str(parts[2]), "");
  sdsfreesplitres(parts, count);
  parts = sdssplitlen("", 0, ",", 1, &count);
  EXPECT_EQ(count, 0);
  sdsfreesplitres(parts, count);
}

TEST(Sds, CatRepr) {
  sds s = sdscatrepr(sdsempty(), "\a\n\0foo\r\"\\\t\x01", 11);
  EXPECT_EQ(str(s), "\"\\a\\n\\x00foo\\r\\\"\\\\\\t\\x01\"");
  sdsfree(s);
}

TEST(Sds, SplitArgs) {
  int argc = 0;
  sds *argv = sdssplitargs("set key \"hello world\" 'it' 's' \"\\x41\\n\" end", &argc);
  ASSERT_NE(argv, nullptr);
  ASSERT_EQ(argc, 7);
  EXPECT_EQ(str(argv[0]), "set");
  EXPECT_EQ(str(argv[1]), "key");
  EXPECT_EQ(str(argv[2]), "hello world");
  EXPECT_EQ(str(argv[3]), "it");
  EXPECT_EQ(str(argv[4]), "s");
  EXPECT_EQ(str(argv[5]), "A\n");
  EXPECT_EQ(str(argv[6]), "end");
  sdsfreesplitres(argv, argc);
  argv = sdssplitargs("a \"\\x4a\\x4B\\t\" b", &argc);
  ASSERT_EQ(argc, 3);
  EXPECT_EQ(str(argv[1]), "JK\t");
  sdsfreesplitres(argv, argc);
  argv = sdssplitargs("\"unterminated", &argc);
  EXPECT_EQ(argv, nullptr);
  argv = sdssplitargs("\"closed\"glued", &argc);
  EXPECT_EQ(argv, nullptr);
  argv = sdssplitargs("   ", &argc);
  ASSERT_NE(argv, nullptr);
  EXPECT_EQ(argc, 0);
  sdsfreesplitres(argv, argc);
}

TEST(Sds, Join) {
  char a[] = "a", b[] = "bc", c[] = "";
  char *argv[] = {a, b, c};
  char sep[] = ", ";
  sds s = sdsjoin(argv, 3, sep);
  EXPECT_EQ(str(s), "a, bc, ");
  sdsfree(s);
  sds parts[] = {sdsnew("x"), sdsnew("y"), sdsnew("z")};
  s = sdsjoinsds(parts, 3, "|", 1);
  EXPECT_EQ(str(s), "x|y|z");
  sdsfree(s);
  for (sds p : parts) sdsfree(p);
}

TEST(Sds, GrowAndRoom) {
  sds s = sdsnew("ab");
  s = sdsgrowzero(s, 5);
  ASSERT_EQ(sdslen(s), 5u);
  EXPECT_EQ(std::memcmp(s, "ab\0\0\0\0", 6), 0);
  s = sdsMakeRoomFor(s, 10);
  EXPECT_GE(sdsavail(s), 10u);
  std::memcpy(s + sdslen(s), "cd", 2);
  sdsIncrLen(s, 2);
  EXPECT_EQ(sdslen(s), 7u);
  EXPECT_EQ(s[7], '\0');
  sdsIncrLen(s, -1);
  EXPECT_EQ(sdslen(s), 6u);
  s = sdsRemoveFreeSpace(s);
  EXPECT_EQ(sdsavail(s), 0u);
  EXPECT_EQ(std::memcmp(s, "ab\0\0\0c", 6), 0);
  sdsfree(s);
}

TEST(Sds, UpdateLen) {
  sds s = sdsnew("foobar");
  s[2] = '\0';
  sdsupdatelen(s);
  EXPECT_EQ(sdslen(s), 2u);
  sdsfree(s);
}

}  // namespace
