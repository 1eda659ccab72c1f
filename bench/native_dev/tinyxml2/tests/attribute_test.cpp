// Attributes and typed values: lookup, the Query*Attribute / *Attribute family, SetAttribute of every type,
// deletion, and the typed text of elements (Query*Text, *Text, SetText).
#include <cstdint>
#include <string>

#include "gtest/gtest.h"
#include "tinyxml2.h"

using namespace tinyxml2;

namespace {

std::string AttributeNames(const XMLElement* e) {
  std::string out;
  for (const XMLAttribute* a = e->FirstAttribute(); a; a = a->Next()) out += a->Name();
  return out;
}

struct Doc {
  XMLDocument doc;
  explicit Doc(const char* xml) { EXPECT_EQ(doc.Parse(xml), XML_SUCCESS) << xml; }
  XMLElement* root() { return doc.RootElement(); }
};

TEST(Attribute, Lookup) {
  Doc d("<a x='1' y='two'/>");
  EXPECT_STREQ(d.root()->Attribute("x"), "1");
  EXPECT_STREQ(d.root()->Attribute("y"), "two");
  EXPECT_EQ(d.root()->Attribute("z"), nullptr);
  EXPECT_STREQ(d.root()->Attribute("x", "1"), "1");
  EXPECT_EQ(d.root()->Attribute("x", "2"), nullptr);
  EXPECT_EQ(d.root()->Attribute("z", "1"), nullptr);
}

TEST(Attribute, OrderAndFind) {
  Doc d("<a c='3' a='1' b='2'/>");
  EXPECT_EQ(AttributeNames(d.root()), "cab");
  const XMLAttribute* b = d.root()->FindAttribute("b");
  ASSERT_NE(b, nullptr);
  EXPECT_STREQ(b->Value(), "2");
  EXPECT_EQ(b->Next(), nullptr);
  EXPECT_EQ(d.root()->FindAttribute("d"), nullptr);
}

TEST(Attribute, QueryInt) {
  Doc d("<a dec='42' neg='-17' hex='0x1F' word='abc'/>");
  int v = 0;
  EXPECT_EQ(d.root()->QueryIntAttribute("dec", &v), XML_SUCCESS);
  EXPECT_EQ(v, 42);
  EXPECT_EQ(d.root()->QueryIntAttribute("neg", &v), XML_SUCCESS);
  EXPECT_EQ(v, -17);
  EXPECT_EQ(d.root()->QueryIntAttribute("hex", &v), XML_SUCCESS);
  EXPECT_EQ(v, 31);
  v = 5;
  EXPECT_EQ(d.root()->QueryIntAttribute("word", &v), XML_WRONG_ATTRIBUTE_TYPE);
  EXPECT_EQ(v, 5);
  EXPECT_EQ(d.root()->QueryIntAttribute("none", &v), XML_NO_ATTRIBUTE);
  EXPECT_EQ(d.root()->IntAttribute("dec", 7), 42);
  EXPECT_EQ(d.root()->IntAttribute("none", 7), 7);
  EXPECT_EQ(d.root()->IntAttribute("word", -3), -3);
  EXPECT_EQ(d.root()->IntAttribute("none"), 0);
}

TEST(Attribute, Unsigned) {
  Doc d("<a big='4000000000' hex='0xFF' w='q'/>");
  unsigned v = 0;
  EXPECT_EQ(d.root()->QueryUnsignedAttribute("big", &v), XML_SUCCESS);
  EXPECT_EQ(v, 4000000000u);
  EXPECT_EQ(d.root()->UnsignedAttribute("hex"), 255u);
  EXPECT_EQ(d.root()->UnsignedAttribute("w", 9u), 9u);
  EXPECT_EQ(d.root()->QueryUnsignedAttribute("w", &v), XML_WRONG_ATTRIBUTE_TYPE);
  EXPECT_EQ(d.root()->UnsignedAttribute("missing", 11u), 11u);
}

TEST(Attribute, SixtyFourBit) {
  Doc d("<a neg='-9000000000000' hex='0x100000000' max='18446744073709551615' big='0x10000000000' w='z'/>");
  int64_t v = 0;
  EXPECT_EQ(d.root()->QueryInt64Attribute("neg", &v), XML_SUCCESS);
  EXPECT_EQ(v, INT64_C(-9000000000000));
  EXPECT_EQ(d.root()->Int64Attribute("hex"), INT64_C(4294967296));
  EXPECT_EQ(d.root()->Int64Attribute("w", 3), 3);
  EXPECT_EQ(d.root()->QueryInt64Attribute("w", &v), XML_WRONG_ATTRIBUTE_TYPE);
  uint64_t u = 0;
  EXPECT_EQ(d.root()->QueryUnsigned64Attribute("max", &u), XML_SUCCESS);
  EXPECT_EQ(u, UINT64_C(18446744073709551615));
  EXPECT_EQ(d.root()->Unsigned64Attribute("big"), UINT64_C(1099511627776));
  EXPECT_EQ(d.root()->Unsigned64Attribute("w", 4), 4u);
  EXPECT_EQ(d.root()->QueryUnsigned64Attribute("w", &u), XML_WRONG_ATTRIBUTE_TYPE);
}

TEST(Attribute, BoolSpellings) {
  Doc d("<a t1='true' t2='True' t3='TRUE' t4='1' t5='5' f1='false' f2='False' f3='FALSE' f4='0' y='yes'/>");
  for (const char* name : {"t1", "t2", "t3", "t4", "t5"}) {
    bool v = false;
    EXPECT_EQ(d.root()->QueryBoolAttribute(name, &v), XML_SUCCESS) << name;
    EXPECT_TRUE(v) << name;
  }
  for (const char* name : {"f1", "f2", "f3", "f4"}) {
    bool v = true;
    EXPECT_EQ(d.root()->QueryBoolAttribute(name, &v), XML_SUCCESS) << name;
    EXPECT_FALSE(v) << name;
  }
  bool v = true;
  EXPECT_EQ(d.root()->QueryBoolAttribute("y", &v), XML_WRONG_ATTRIBUTE_TYPE);
  EXPECT_TRUE(d.root()->BoolAttribute("y", true));
  EXPECT_FALSE(d.root()->BoolAttribute("y", false));
  EXPECT_TRUE(d.root()->BoolAttribute("t1", false));
}

TEST(Attribute, DoubleAndFloat) {
  Doc d("<a d='3.25' e='-1e3' f='0.5' w='x'/>");
  double dv = 0;
  EXPECT_EQ(d.root()->QueryDoubleAttribute("d", &dv), XML_SUCCESS);
  EXPECT_EQ(dv, 3.25);
  EXPECT_EQ(d.root()->DoubleAttribute("e"), -1000.0);
  EXPECT_EQ(d.root()->DoubleAttribute("w", 1.5), 1.5);
  EXPECT_EQ(d.root()->QueryDoubleAttribute("w", &dv), XML_WRONG_ATTRIBUTE_TYPE);
  float fv = 0;
  EXPECT_EQ(d.root()->QueryFloatAttribute("f", &fv), XML_SUCCESS);
  EXPECT_EQ(fv, 0.5f);
  EXPECT_EQ(d.root()->FloatAttribute("d"), 3.25f);
  EXPECT_EQ(d.root()->FloatAttribute("w", 2.5f), 2.5f);
  EXPECT_EQ(d.root()->QueryFloatAttribute("w", &fv), XML_WRONG_ATTRIBUTE_TYPE);
}

TEST(Attribute, ValuesOfTheAttributeItself) {
  Doc d("<a i='-8' u='9' b='true' d='0.25' f='1.5' l='-5000000000' m='5000000000'/>");
  const XMLElement* e = d.root();
  EXPECT_EQ(e->FindAttribute("i")->IntValue(), -8);
  EXPECT_EQ(e->FindAttribute("u")->UnsignedValue(), 9u);
  EXPECT_TRUE(e->FindAttribute("b")->BoolValue());
  EXPECT_EQ(e->FindAttribute("d")->DoubleValue(), 0.25);
  EXPECT_EQ(e->FindAttribute("f")->FloatValue(), 1.5f);
  EXPECT_EQ(e->FindAttribute("l")->Int64Value(), INT64_C(-5000000000));
  EXPECT_EQ(e->FindAttribute("m")->Unsigned64Value(), UINT64_C(5000000000));
  int i = 0;
  EXPECT_EQ(e->FindAttribute("b")->QueryIntValue(&i), XML_WRONG_ATTRIBUTE_TYPE);
}

TEST(Attribute, SetStringReplacesInPlace) {
  Doc d("<a x='1' y='2'/>");
  d.root()->SetAttribute("x", "one");
  d.root()->SetAttribute("z", "three");
  EXPECT_EQ(AttributeNames(d.root()), "xyz");
  EXPECT_STREQ(d.root()->Attribute("x"), "one");
  EXPECT_STREQ(d.root()->Attribute("y"), "2");
  EXPECT_STREQ(d.root()->Attribute("z"), "three");
  XMLElement* e = d.doc.NewElement("e");
  d.root()->InsertEndChild(e);
  e->SetAttribute("first", 1);
  e->SetAttribute("second", 2);
  EXPECT_EQ(AttributeNames(e), "firstsecond");
}

TEST(Attribute, SetTypedValues) {
  XMLDocument doc;
  XMLElement* e = doc.NewElement("e");
  doc.InsertEndChild(e);
  e->SetAttribute("i", -5);
  e->SetAttribute("u", 4000000000u);
  e->SetAttribute("l", INT64_C(-123456789012));
  e->SetAttribute("m", UINT64_C(18446744073709551615));
  e->SetAttribute("t", true);
  e->SetAttribute("f", false);
  e->SetAttribute("d", 2.5);
  e->SetAttribute("p", 0.1);
  e->SetAttribute("g", 1.25f);
  EXPECT_STREQ(e->Attribute("i"), "-5");
  EXPECT_STREQ(e->Attribute("u"), "4000000000");
  EXPECT_STREQ(e->Attribute("l"), "-123456789012");
  EXPECT_STREQ(e->Attribute("m"), "18446744073709551615");
  EXPECT_STREQ(e->Attribute("t"), "true");
  EXPECT_STREQ(e->Attribute("f"), "false");
  EXPECT_STREQ(e->Attribute("d"), "2.5");
  EXPECT_STREQ(e->Attribute("p"), "0.10000000000000001");
  EXPECT_STREQ(e->Attribute("g"), "1.25");
}

TEST(Attribute, SetOnAttributeObject) {
  Doc d("<a v='x'/>");
  XMLAttribute* a = const_cast<XMLAttribute*>(d.root()->FindAttribute("v"));
  a->SetAttribute(7);
  EXPECT_STREQ(a->Value(), "7");
  a->SetAttribute(0.1f);
  EXPECT_STREQ(a->Value(), "0.1");
  a->SetAttribute(8u);
  EXPECT_STREQ(a->Value(), "8");
  a->SetAttribute(INT64_C(-9));
  EXPECT_STREQ(a->Value(), "-9");
  a->SetAttribute(UINT64_C(10));
  EXPECT_STREQ(a->Value(), "10");
  a->SetAttribute(false);
  EXPECT_STREQ(a->Value(), "false");
  a->SetAttribute(-0.5);
  EXPECT_STREQ(a->Value(), "-0.5");
  a->SetAttribute("str");
  EXPECT_STREQ(a->Value(), "str");
}

TEST(Attribute, BoolSerialization) {
  XMLDocument doc;
  XMLElement* e = doc.NewElement("e");
  doc.InsertEndChild(e);
  XMLUtil::SetBoolSerialization("yes", "no");
  e->SetAttribute("a", true);
  e->SetAttribute("b", false);
  XMLUtil::SetBoolSerialization(nullptr, nullptr);
  e->SetAttribute("c", true);
  e->SetAttribute("d", false);
  EXPECT_STREQ(e->Attribute("a"), "yes");
  EXPECT_STREQ(e->Attribute("b"), "no");
  EXPECT_STREQ(e->Attribute("c"), "true");
  EXPECT_STREQ(e->Attribute("d"), "false");
}

TEST(Attribute, DeleteFirstMiddleLast) {
  Doc d("<a p='1' q='2' r='3' s='4'/>");
  d.root()->DeleteAttribute("q");
  EXPECT_EQ(AttributeNames(d.root()), "prs");
  d.root()->DeleteAttribute("p");
  EXPECT_EQ(AttributeNames(d.root()), "rs");
  d.root()->DeleteAttribute("s");
  EXPECT_EQ(AttributeNames(d.root()), "r");
  d.root()->DeleteAttribute("missing");
  EXPECT_EQ(AttributeNames(d.root()), "r");
  d.root()->SetAttribute("t", "5");
  EXPECT_EQ(AttributeNames(d.root()), "rt");
}

TEST(Attribute, QuotesAndSpacing) {
  Doc d("<a s='say \"hi\"' q=\"it's\"  w = \"1\" n='x\r\ny\rz' />");
  EXPECT_STREQ(d.root()->Attribute("s"), "say \"hi\"");
  EXPECT_STREQ(d.root()->Attribute("q"), "it's");
  EXPECT_STREQ(d.root()->Attribute("w"), "1");
  EXPECT_STREQ(d.root()->Attribute("n"), "x\ny\nz");
}

TEST(Attribute, EntitiesInValues) {
  Doc d("<a v='&lt;&amp;&gt;&quot;&apos;' n='&#65;&#x42;'/>");
  EXPECT_STREQ(d.root()->Attribute("v"), "<&>\"'");
  EXPECT_STREQ(d.root()->Attribute("n"), "AB");
}

TEST(Text, QueryInt) {
  Doc d("<r><n>42</n><h>0x10</h><w>abc</w><e/><c><b/>1</c></r>");
  int v = 0;
  EXPECT_EQ(d.root()->FirstChildElement("n")->QueryIntText(&v), XML_SUCCESS);
  EXPECT_EQ(v, 42);
  EXPECT_EQ(d.root()->FirstChildElement("h")->QueryIntText(&v), XML_SUCCESS);
  EXPECT_EQ(v, 16);
  EXPECT_EQ(d.root()->FirstChildElement("w")->QueryIntText(&v), XML_CAN_NOT_CONVERT_TEXT);
  EXPECT_EQ(d.root()->FirstChildElement("e")->QueryIntText(&v), XML_NO_TEXT_NODE);
  EXPECT_EQ(d.root()->FirstChildElement("c")->QueryIntText(&v), XML_NO_TEXT_NODE);
}

TEST(Text, IntAndUnsignedWithDefaults) {
  Doc d("<r><n>-12</n><u>3000000000</u><w>x</w></r>");
  EXPECT_EQ(d.root()->FirstChildElement("n")->IntText(5), -12);
  EXPECT_EQ(d.root()->FirstChildElement("w")->IntText(5), 5);
  EXPECT_EQ(d.root()->FirstChildElement("u")->UnsignedText(1), 3000000000u);
  EXPECT_EQ(d.root()->FirstChildElement("w")->UnsignedText(1), 1u);
  unsigned u = 0;
  EXPECT_EQ(d.root()->FirstChildElement("w")->QueryUnsignedText(&u), XML_CAN_NOT_CONVERT_TEXT);
  EXPECT_EQ(d.root()->QueryUnsignedText(&u), XML_NO_TEXT_NODE);
}

TEST(Text, SixtyFourBit) {
  Doc d("<r><l>-7000000000</l><m>0xFFFFFFFFFFFFFFFF</m><w>x</w></r>");
  EXPECT_EQ(d.root()->FirstChildElement("l")->Int64Text(0), INT64_C(-7000000000));
  EXPECT_EQ(d.root()->FirstChildElement("m")->Unsigned64Text(0), UINT64_C(18446744073709551615));
  EXPECT_EQ(d.root()->FirstChildElement("w")->Int64Text(6), 6);
  EXPECT_EQ(d.root()->FirstChildElement("w")->Unsigned64Text(6), 6u);
  int64_t l = 0;
  uint64_t m = 0;
  EXPECT_EQ(d.root()->FirstChildElement("w")->QueryInt64Text(&l), XML_CAN_NOT_CONVERT_TEXT);
  EXPECT_EQ(d.root()->FirstChildElement("w")->QueryUnsigned64Text(&m), XML_CAN_NOT_CONVERT_TEXT);
  EXPECT_EQ(d.root()->QueryInt64Text(&l), XML_NO_TEXT_NODE);
  EXPECT_EQ(d.root()->QueryUnsigned64Text(&m), XML_NO_TEXT_NODE);
}

TEST(Text, Bool) {
  Doc d("<r><t>true</t><f>False</f><o>0</o><w>maybe</w></r>");
  EXPECT_TRUE(d.root()->FirstChildElement("t")->BoolText(false));
  EXPECT_FALSE(d.root()->FirstChildElement("f")->BoolText(true));
  EXPECT_FALSE(d.root()->FirstChildElement("o")->BoolText(true));
  EXPECT_TRUE(d.root()->FirstChildElement("w")->BoolText(true));
  bool b = false;
  EXPECT_EQ(d.root()->FirstChildElement("w")->QueryBoolText(&b), XML_CAN_NOT_CONVERT_TEXT);
  EXPECT_EQ(d.root()->QueryBoolText(&b), XML_NO_TEXT_NODE);
}

TEST(Text, DoubleAndFloat) {
  Doc d("<r><d>-2.75</d><f>0.125</f><w>nope</w></r>");
  EXPECT_EQ(d.root()->FirstChildElement("d")->DoubleText(0), -2.75);
  EXPECT_EQ(d.root()->FirstChildElement("f")->FloatText(0), 0.125f);
  EXPECT_EQ(d.root()->FirstChildElement("w")->DoubleText(9.5), 9.5);
  EXPECT_EQ(d.root()->FirstChildElement("w")->FloatText(9.5f), 9.5f);
  double dv = 0;
  float fv = 0;
  EXPECT_EQ(d.root()->FirstChildElement("w")->QueryDoubleText(&dv), XML_CAN_NOT_CONVERT_TEXT);
  EXPECT_EQ(d.root()->FirstChildElement("w")->QueryFloatText(&fv), XML_CAN_NOT_CONVERT_TEXT);
  EXPECT_EQ(d.root()->QueryDoubleText(&dv), XML_NO_TEXT_NODE);
  EXPECT_EQ(d.root()->QueryFloatText(&fv), XML_NO_TEXT_NODE);
}

TEST(Text, SetTextTyped) {
  XMLDocument doc;
  XMLElement* e = doc.NewElement("e");
  doc.InsertEndChild(e);
  e->SetText(-3);
  EXPECT_STREQ(e->GetText(), "-3");
  e->SetText(7u);
  EXPECT_STREQ(e->GetText(), "7");
  e->SetText(INT64_C(-8000000000));
  EXPECT_STREQ(e->GetText(), "-8000000000");
  e->SetText(UINT64_C(9000000000));
  EXPECT_STREQ(e->GetText(), "9000000000");
  e->SetText(true);
  EXPECT_STREQ(e->GetText(), "true");
  e->SetText(0.75f);
  EXPECT_STREQ(e->GetText(), "0.75");
  e->SetText(1.0 / 3.0);
  EXPECT_STREQ(e->GetText(), "0.33333333333333331");
  EXPECT_EQ(e->FirstChild(), e->LastChild());
}

TEST(Text, SetTextBeforeChildElement) {
  Doc d("<a><b/></a>");
  d.root()->SetText("hi");
  XMLPrinter printer(nullptr, true);
  d.doc.Print(&printer);
  EXPECT_STREQ(printer.CStr(), "<a>hi<b/></a>");
  d.root()->SetText("again");
  XMLPrinter second(nullptr, true);
  d.doc.Print(&second);
  EXPECT_STREQ(second.CStr(), "<a>again<b/></a>");
}

}  // namespace
