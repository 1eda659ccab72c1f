// Error handling (error IDs, names, messages and line numbers for malformed documents, the depth limit),
// entities and character references on input, and the XMLUtil conversions underneath.
#include <cstdint>
#include <string>

#include "gtest/gtest.h"
#include "tinyxml2.h"

using namespace tinyxml2;

namespace {

XMLError ParseError(const char* xml) {
  XMLDocument doc;
  return doc.Parse(xml);
}

std::string TextOf(const char* xml) {
  XMLDocument doc;
  EXPECT_EQ(doc.Parse(xml), XML_SUCCESS) << xml;
  const char* text = doc.RootElement() ? doc.RootElement()->GetText() : nullptr;
  return text ? text : "(null)";
}

TEST(Error, EmptyDocuments) {
  XMLDocument doc;
  EXPECT_EQ(doc.Parse(""), XML_ERROR_EMPTY_DOCUMENT);
  EXPECT_EQ(doc.Parse("   \n\t "), XML_ERROR_EMPTY_DOCUMENT);
  EXPECT_EQ(doc.Parse(nullptr), XML_ERROR_EMPTY_DOCUMENT);
  EXPECT_EQ(doc.Parse("<a/>", 0), XML_ERROR_EMPTY_DOCUMENT);
  EXPECT_EQ(doc.Parse("\xEF\xBB\xBF"), XML_ERROR_EMPTY_DOCUMENT);
  EXPECT_TRUE(doc.Error());
}

TEST(Error, MismatchedElement) {
  XMLDocument doc;
  EXPECT_EQ(doc.Parse("<a></b>"), XML_ERROR_MISMATCHED_ELEMENT);
  EXPECT_EQ(doc.ErrorID(), XML_ERROR_MISMATCHED_ELEMENT);
  EXPECT_EQ(doc.RootElement(), nullptr);
  EXPECT_EQ(doc.Parse("<a>"), XML_ERROR_MISMATCHED_ELEMENT);
  EXPECT_EQ(doc.Parse("<a><b></b>"), XML_ERROR_PARSING);
}

TEST(Error, StrayClosingTags) {
  XMLDocument doc;
  EXPECT_EQ(doc.Parse("<a/></x><b/>"), XML_SUCCESS);
  EXPECT_STREQ(doc.RootElement()->Name(), "a");
  EXPECT_EQ(doc.RootElement()->NextSibling(), nullptr);
  EXPECT_EQ(doc.Parse("<r><a/></a></r>"), XML_ERROR_MISMATCHED_ELEMENT);
}

TEST(Error, UnterminatedNodes) {
  EXPECT_EQ(ParseError("<!-- never closed"), XML_ERROR_PARSING_COMMENT);
  EXPECT_EQ(ParseError("<r><!-- x -></r>"), XML_ERROR_PARSING_COMMENT);
  EXPECT_EQ(ParseError("<a><![CDATA[x</a>"), XML_ERROR_PARSING_CDATA);
  EXPECT_EQ(ParseError("<?xml version='1.0'"), XML_ERROR_PARSING_DECLARATION);
  EXPECT_EQ(ParseError("<!DOCTYPE html"), XML_ERROR_PARSING_UNKNOWN);
  EXPECT_EQ(ParseError("<a>text"), XML_ERROR_PARSING_TEXT);
}

TEST(Error, BadAttributes) {
  EXPECT_EQ(ParseError("<a x=1/>"), XML_ERROR_PARSING_ATTRIBUTE);
  EXPECT_EQ(ParseError("<a x/>"), XML_ERROR_PARSING_ATTRIBUTE);
  EXPECT_EQ(ParseError("<a x='1/>"), XML_ERROR_PARSING_ATTRIBUTE);
  EXPECT_EQ(ParseError("<a x='1' x='2'/>"), XML_ERROR_PARSING_ATTRIBUTE);
}

TEST(Error, BadElements) {
  EXPECT_EQ(ParseError("<a"), XML_ERROR_PARSING_ELEMENT);
  EXPECT_EQ(ParseError("<a $>"), XML_ERROR_PARSING_ELEMENT);
  EXPECT_EQ(ParseError("<a /x>"), XML_ERROR_PARSING_ELEMENT);
  EXPECT_EQ(ParseError("<1a/>"), XML_ERROR_PARSING);
  EXPECT_EQ(ParseError("< a/>"), XML_SUCCESS);
}

TEST(Error, DeclarationMustComeFirst) {
  EXPECT_EQ(ParseError("<a/><?xml version='1.0'?>"), XML_ERROR_PARSING_DECLARATION);
  EXPECT_EQ(ParseError("<a><?xml version='1.0'?></a>"), XML_ERROR_PARSING_DECLARATION);
  EXPECT_EQ(ParseError("<!--c--><?xml version='1.0'?><a/>"), XML_ERROR_PARSING_DECLARATION);
  EXPECT_EQ(ParseError("<?xml version='1.0'?><?other?><a/>"), XML_SUCCESS);
}

std::string Nested(int depth) {
  std::string xml;
  for (int i = 0; i < depth; ++i) xml += "<a>";
  for (int i = 0; i < depth; ++i) xml += "</a>";
  return xml;
}

TEST(Error, DepthLimit) {
  XMLDocument doc;
  EXPECT_EQ(doc.Parse(Nested(98).c_str()), XML_SUCCESS);
  EXPECT_EQ(doc.Parse(Nested(99).c_str()), XML_ELEMENT_DEPTH_EXCEEDED);
  EXPECT_EQ(doc.Parse(Nested(200).c_str()), XML_ELEMENT_DEPTH_EXCEEDED);
  EXPECT_EQ(doc.Parse(Nested(20).c_str()), XML_SUCCESS);
  std::string siblings = "<r>";
  for (int i = 0; i < 120; ++i) siblings += "<a><b/></a>";
  siblings += "</r>";
  EXPECT_EQ(doc.Parse(siblings.c_str()), XML_SUCCESS);
}

TEST(Error, LineNumberOfError) {
  XMLDocument doc;
  EXPECT_EQ(doc.Parse("<r>\n<a>\n</b>\n</r>"), XML_ERROR_MISMATCHED_ELEMENT);
  EXPECT_EQ(doc.ErrorLineNum(), 2);
  EXPECT_EQ(doc.Parse("<r>\n\n\n<a x=></a></r>"), XML_ERROR_PARSING_ATTRIBUTE);
  EXPECT_EQ(doc.ErrorLineNum(), 4);
  EXPECT_EQ(doc.Parse("<r>\n<!-- open\n\n"), XML_ERROR_PARSING_COMMENT);
  EXPECT_EQ(doc.ErrorLineNum(), 2);
}

TEST(Error, NamesAndMessage) {
  EXPECT_STREQ(XMLDocument::ErrorIDToName(XML_SUCCESS), "XML_SUCCESS");
  EXPECT_STREQ(XMLDocument::ErrorIDToName(XML_NO_ATTRIBUTE), "XML_NO_ATTRIBUTE");
  EXPECT_STREQ(XMLDocument::ErrorIDToName(XML_ERROR_FILE_NOT_FOUND), "XML_ERROR_FILE_NOT_FOUND");
  EXPECT_STREQ(XMLDocument::ErrorIDToName(XML_ERROR_PARSING_TEXT), "XML_ERROR_PARSING_TEXT");
  EXPECT_STREQ(XMLDocument::ErrorIDToName(XML_ELEMENT_DEPTH_EXCEEDED), "XML_ELEMENT_DEPTH_EXCEEDED");
  XMLDocument doc;
  doc.Parse("<r>\n<a></b></r>");
  EXPECT_STREQ(doc.ErrorName(), "XML_ERROR_MISMATCHED_ELEMENT");
  EXPECT_STREQ(doc.ErrorStr(), "Error=XML_ERROR_MISMATCHED_ELEMENT ErrorID=14 (0xe) Line number=2: XMLElement name=a");
}

TEST(Error, OtherMessages) {
  XMLDocument doc;
  doc.Parse("<a>text");
  EXPECT_STREQ(doc.ErrorStr(), "Error=XML_ERROR_PARSING_TEXT ErrorID=8 (0x8) Line number=1");
  doc.LoadFile("/nonexistent/x.xml");
  EXPECT_STREQ(doc.ErrorStr(),
               "Error=XML_ERROR_FILE_NOT_FOUND ErrorID=3 (0x3) Line number=0: filename=/nonexistent/x.xml");
}

TEST(Error, Cleared) {
  XMLDocument doc;
  EXPECT_EQ(doc.Parse("<a>\n<b></a>"), XML_ERROR_MISMATCHED_ELEMENT);
  EXPECT_EQ(doc.Parse("<a/>"), XML_SUCCESS);
  EXPECT_FALSE(doc.Error());
  EXPECT_EQ(doc.ErrorLineNum(), 0);
  EXPECT_STREQ(doc.ErrorStr(), "");
  EXPECT_STREQ(doc.ErrorName(), "XML_SUCCESS");
  doc.Parse("<a");
  EXPECT_TRUE(doc.Error());
  doc.ClearError();
  EXPECT_EQ(doc.ErrorID(), XML_SUCCESS);
  EXPECT_STREQ(doc.ErrorStr(), "");
}

TEST(Entity, Builtins) {
  EXPECT_EQ(TextOf("<a>&lt;&gt;&amp;&quot;&apos;</a>"), "<>&\"'");
  EXPECT_EQ(TextOf("<a>x &amp; y</a>"), "x & y");
  EXPECT_EQ(TextOf("<a>1&lt;2&gt;0</a>"), "1<2>0");
  EXPECT_EQ(TextOf("<a>&quot;q&quot;</a>"), "\"q\"");
}

TEST(Entity, DecimalCharacterReferences) {
  EXPECT_EQ(TextOf("<a>&#65;&#66;&#10;</a>"), "AB\n");
  EXPECT_EQ(TextOf("<a>&#233;</a>"), "\xC3\xA9");
  EXPECT_EQ(TextOf("<a>&#20013;</a>"), "\xE4\xB8\xAD");
}

TEST(Entity, HexCharacterReferences) {
  EXPECT_EQ(TextOf("<a>&#x41;</a>"), "A");
  EXPECT_EQ(TextOf("<a>&#x4e2d;&#x4E2D;</a>"), "\xE4\xB8\xAD\xE4\xB8\xAD");
  EXPECT_EQ(TextOf("<a>&#x1F600;</a>"), "\xF0\x9F\x98\x80");
  EXPECT_EQ(TextOf("<a>&#x7ff;&#x800;</a>"), "\xDF\xBF\xE0\xA0\x80");
}

TEST(Entity, UnknownAndMalformedKept) {
  EXPECT_EQ(TextOf("<a>&foo; &am; &lt</a>"), "&foo; &am; &lt");
  EXPECT_EQ(TextOf("<a>&#xZZ;</a>"), "&#xZZ;");
  EXPECT_EQ(TextOf("<a>&#12a;</a>"), "&#12a;");
}

TEST(Entity, NotProcessed) {
  XMLDocument doc(false);
  ASSERT_EQ(doc.Parse("<a v='&lt;'>&amp;&#65;</a>"), XML_SUCCESS);
  EXPECT_STREQ(doc.RootElement()->GetText(), "&amp;&#65;");
  EXPECT_STREQ(doc.RootElement()->Attribute("v"), "&lt;");
  EXPECT_FALSE(doc.ProcessEntities());
}

TEST(Util, ConvertUTF32ToUTF8) {
  char buf[8] = {0};
  int len = -1;
  XMLUtil::ConvertUTF32ToUTF8(0x41, buf, &len);
  EXPECT_EQ(len, 1);
  EXPECT_EQ(std::string(buf, len), "A");
  XMLUtil::ConvertUTF32ToUTF8(0xE9, buf, &len);
  EXPECT_EQ(len, 2);
  EXPECT_EQ(std::string(buf, len), "\xC3\xA9");
  XMLUtil::ConvertUTF32ToUTF8(0x4E2D, buf, &len);
  EXPECT_EQ(len, 3);
  EXPECT_EQ(std::string(buf, len), "\xE4\xB8\xAD");
  XMLUtil::ConvertUTF32ToUTF8(0x1F600, buf, &len);
  EXPECT_EQ(len, 4);
  EXPECT_EQ(std::string(buf, len), "\xF0\x9F\x98\x80");
  XMLUtil::ConvertUTF32ToUTF8(0x200000, buf, &len);
  EXPECT_EQ(len, 0);
}

TEST(Util, ConvertUTF32Boundaries) {
  char buf[8] = {0};
  int len = -1;
  XMLUtil::ConvertUTF32ToUTF8(0x7F, buf, &len);
  EXPECT_EQ(len, 1);
  XMLUtil::ConvertUTF32ToUTF8(0x80, buf, &len);
  EXPECT_EQ(len, 2);
  EXPECT_EQ(std::string(buf, len), "\xC2\x80");
  XMLUtil::ConvertUTF32ToUTF8(0xFFFF, buf, &len);
  EXPECT_EQ(len, 3);
  EXPECT_EQ(std::string(buf, len), "\xEF\xBF\xBF");
  XMLUtil::ConvertUTF32ToUTF8(0x10000, buf, &len);
  EXPECT_EQ(len, 4);
  EXPECT_EQ(std::string(buf, len), "\xF0\x90\x80\x80");
}

TEST(Util, GetCharacterRef) {
  char buf[10] = {0};
  int len = -1;
  const char* dec = "&#65;rest";
  EXPECT_EQ(XMLUtil::GetCharacterRef(dec, buf, &len), dec + 5);
  EXPECT_EQ(len, 1);
  EXPECT_EQ(buf[0], 'A');
  const char* hex = "&#x3A9;rest";
  EXPECT_EQ(XMLUtil::GetCharacterRef(hex, buf, &len), hex + 7);
  EXPECT_EQ(len, 2);
  EXPECT_EQ(std::string(buf, len), "\xCE\xA9");
  const char* plain = "&amp;";
  EXPECT_EQ(XMLUtil::GetCharacterRef(plain, buf, &len), plain + 1);
  EXPECT_EQ(len, 0);
  EXPECT_EQ(XMLUtil::GetCharacterRef("&#12", buf, &len), nullptr);
  EXPECT_EQ(XMLUtil::GetCharacterRef("&#1g;", buf, &len), nullptr);
}

TEST(Util, ReadBOM) {
  bool bom = false;
  const char* with = "\xEF\xBB\xBF<a/>";
  EXPECT_EQ(XMLUtil::ReadBOM(with, &bom), with + 3);
  EXPECT_TRUE(bom);
  const char* without = "<a/>";
  EXPECT_EQ(XMLUtil::ReadBOM(without, &bom), without);
  EXPECT_FALSE(bom);
  const char* partial = "\xEF\xBB<a/>";
  EXPECT_EQ(XMLUtil::ReadBOM(partial, &bom), partial);
  EXPECT_FALSE(bom);
}

TEST(Util, ToStrNumbers) {
  char buf[64];
  XMLUtil::ToStr(-12, buf, sizeof buf);
  EXPECT_STREQ(buf, "-12");
  XMLUtil::ToStr(4294967295u, buf, sizeof buf);
  EXPECT_STREQ(buf, "4294967295");
  XMLUtil::ToStr(INT64_C(-9223372036854775807), buf, sizeof buf);
  EXPECT_STREQ(buf, "-9223372036854775807");
  XMLUtil::ToStr(UINT64_C(12345678901234), buf, sizeof buf);
  EXPECT_STREQ(buf, "12345678901234");
  XMLUtil::ToStr(1.5f, buf, sizeof buf);
  EXPECT_STREQ(buf, "1.5");
  XMLUtil::ToStr(1e100, buf, sizeof buf);
  EXPECT_STREQ(buf, "1e+100");
  XMLUtil::ToStr(true, buf, sizeof buf);
  EXPECT_STREQ(buf, "true");
  XMLUtil::ToStr(12345, buf, 3);
  EXPECT_STREQ(buf, "12");
}

TEST(Util, ToIntAndUnsigned) {
  int i = 0;
  EXPECT_TRUE(XMLUtil::ToInt(" 17", &i));
  EXPECT_EQ(i, 17);
  EXPECT_TRUE(XMLUtil::ToInt("0xff", &i));
  EXPECT_EQ(i, 255);
  EXPECT_TRUE(XMLUtil::ToInt("0XFFFFFFFF", &i));
  EXPECT_EQ(i, -1);
  EXPECT_FALSE(XMLUtil::ToInt("", &i));
  unsigned u = 0;
  EXPECT_TRUE(XMLUtil::ToUnsigned("0x10", &u));
  EXPECT_EQ(u, 16u);
  EXPECT_TRUE(XMLUtil::ToUnsigned("10", &u));
  EXPECT_EQ(u, 10u);
  EXPECT_FALSE(XMLUtil::ToUnsigned("x", &u));
}

TEST(Util, ToBool) {
  bool b = false;
  EXPECT_TRUE(XMLUtil::ToBool("-1", &b));
  EXPECT_TRUE(b);
  EXPECT_TRUE(XMLUtil::ToBool("0x0", &b));
  EXPECT_FALSE(b);
  EXPECT_TRUE(XMLUtil::ToBool("TRUE", &b));
  EXPECT_TRUE(b);
  EXPECT_TRUE(XMLUtil::ToBool("False", &b));
  EXPECT_FALSE(b);
  EXPECT_FALSE(XMLUtil::ToBool("tRUE", &b));
  EXPECT_FALSE(XMLUtil::ToBool("", &b));
}

TEST(Util, ToFloatingAnd64) {
  float f = 0;
  EXPECT_TRUE(XMLUtil::ToFloat("2.5", &f));
  EXPECT_EQ(f, 2.5f);
  EXPECT_FALSE(XMLUtil::ToFloat("x", &f));
  double d = 0;
  EXPECT_TRUE(XMLUtil::ToDouble("-0.125", &d));
  EXPECT_EQ(d, -0.125);
  EXPECT_FALSE(XMLUtil::ToDouble("", &d));
  int64_t l = 0;
  EXPECT_TRUE(XMLUtil::ToInt64("-4294967296", &l));
  EXPECT_EQ(l, INT64_C(-4294967296));
  EXPECT_TRUE(XMLUtil::ToInt64("0x7fffffffffffffff", &l));
  EXPECT_EQ(l, INT64_C(9223372036854775807));
  EXPECT_FALSE(XMLUtil::ToInt64("q", &l));
  EXPECT_TRUE(XMLUtil::ToInt64("0x1A", &l));
  EXPECT_EQ(l, 26);
  uint64_t m = 0;
  EXPECT_TRUE(XMLUtil::ToUnsigned64("0x8000000000000000", &m));
  EXPECT_EQ(m, UINT64_C(9223372036854775808));
  EXPECT_TRUE(XMLUtil::ToUnsigned64("42", &m));
  EXPECT_EQ(m, 42u);
  EXPECT_FALSE(XMLUtil::ToUnsigned64("q", &m));
}

}  // namespace
