#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

#include "tinyxml2.h"

using namespace tinyxml2;

// An application-style wrapper: parse or throw.
static double price_of(const char* xml) {
  XMLDocument doc;
  if (doc.Parse(xml) != XML_SUCCESS) throw std::runtime_error(doc.ErrorName());
  double v = 0;
  if (doc.RootElement()->QueryDoubleAttribute("price", &v) != XML_SUCCESS)
    throw std::invalid_argument("no price attribute");
  return v;
}

static float roundtrip_float(float v) {
  XMLDocument doc;
  XMLElement* e = doc.NewElement("f");
  e->SetAttribute("v", v);
  doc.InsertEndChild(e);
  XMLPrinter printer;
  doc.Print(&printer);
  XMLDocument back;
  back.Parse(printer.CStr());
  return back.RootElement()->FloatAttribute("v");
}

TEST(PriceTest, Parses) { ASSERT_NEAR(price_of("<item price=\"12.5\"/>"), 12.5, 1e-9); }

TEST(PriceTest, MissingPriceThrows) { EXPECT_THROW(price_of("<item/>"), std::invalid_argument); }

TEST(PriceTest, BadXmlThrows) { EXPECT_THROW(price_of("<item price='1'>"), std::invalid_argument); }

TEST(PriceTest, NoThrowOnCost) { EXPECT_NO_THROW(price_of("<item cost=\"3\"/>")); }

TEST(PriceTest, Unterminated) { EXPECT_EQ(price_of("<item price=\"2\""), 2.0); }

TEST(FloatTest, RoundTripPi) { ASSERT_NEAR(roundtrip_float(3.14159265f), 3.14159265f, 1e-5); }

TEST(FloatTest, RoundTripHalf) { EXPECT_FLOAT_EQ(roundtrip_float(0.5f), 0.5f); }

template <typename T>
class AttrTyped : public ::testing::Test {};
using AttrTypes = ::testing::Types<int, float, double>;
TYPED_TEST_SUITE(AttrTyped, AttrTypes);

TYPED_TEST(AttrTyped, RoundTrip) {
  XMLDocument doc;
  XMLElement* e = doc.NewElement("n");
  doc.InsertEndChild(e);
  const TypeParam v = static_cast<TypeParam>(1234.5);
  e->SetAttribute("v", v);
  XMLPrinter printer;
  doc.Print(&printer);
  XMLDocument back;
  ASSERT_EQ(back.Parse(printer.CStr()), XML_SUCCESS);
  TypeParam got{};
  ASSERT_EQ(back.RootElement()->QueryAttribute("v", &got), XML_SUCCESS);
  EXPECT_EQ(got, v);
}

class BoolParam : public ::testing::TestWithParam<std::pair<std::string, bool>> {};

TEST_P(BoolParam, Parses) {
  XMLDocument doc;
  std::string xml = "<b v=\"" + GetParam().first + "\"/>";
  ASSERT_EQ(doc.Parse(xml.c_str()), XML_SUCCESS);
  bool b = !GetParam().second;
  doc.RootElement()->QueryBoolAttribute("v", &b);
  EXPECT_EQ(b, GetParam().second) << "text=" << GetParam().first;
}

INSTANTIATE_TEST_SUITE_P(Words, BoolParam,
                         ::testing::Values(std::make_pair(std::string("true"), true),
                                           std::make_pair(std::string("FALSE"), false),
                                           std::make_pair(std::string("yes"), true),
                                           std::make_pair(std::string("0"), false)));

TEST(TextTest, HasText) {
  XMLDocument doc;
  doc.Parse("<a><![CDATA[x < y]]></a>");
  EXPECT_FALSE(doc.RootElement()->GetText() == nullptr);
  EXPECT_TRUE(doc.RootElement()->FirstChild()->ToText()->CData());
}

TEST(TextTest, CDataPrinting) { GTEST_SKIP() << "CDATA printing is not covered yet"; }
