#include <gtest/gtest.h>

#include <string>

#include "tinyxml2.h"

using namespace tinyxml2;

static const char* kCatalog =
    "<catalog version=\"3\">"
    "<book id=\"b1\" price=\"12.50\"><title>Dune</title><note>it&apos;s long</note></book>"
    "<book id=\"b2\" price=\"7.25\"><title>Emma</title></book>"
    "</catalog>";

class CatalogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(doc.Parse(kCatalog), XML_SUCCESS);
    root = doc.RootElement();
  }
  XMLDocument doc;
  XMLElement* root = nullptr;
};

TEST_F(CatalogTest, RootName) { EXPECT_STREQ(root->Name(), "catalog"); }

TEST_F(CatalogTest, VersionAttribute) { EXPECT_EQ(root->IntAttribute("version"), 3); }

TEST_F(CatalogTest, CountBooks) {
  int n = 0;
  for (XMLElement* b = root->FirstChildElement("book"); b; b = b->NextSiblingElement("book")) ++n;
  EXPECT_EQ(n, 3);
}

TEST_F(CatalogTest, ApostropheEntity) {
  const char* note = root->FirstChildElement("book")->FirstChildElement("note")->GetText();
  EXPECT_STREQ(note, "it's long");
}

TEST_F(CatalogTest, TitleAsString) {
  std::string title = root->FirstChildElement("book")->FirstChildElement("title")->GetText();
  EXPECT_EQ(title, "Dune");
}

TEST_F(CatalogTest, SecondTitle) {
  std::string title = root->LastChildElement("book")->FirstChildElement("title")->GetText();
  EXPECT_EQ(title, "Emma Woodhouse");
}

TEST(ParseTest, MismatchedTag) {
  XMLDocument doc;
  EXPECT_EQ(doc.Parse("<a><b></a>"), XML_ERROR_MISMATCHED_ELEMENT);
}

TEST(ParseTest, EmptyDocument) {
  XMLDocument doc;
  EXPECT_TRUE(doc.Parse("") == XML_SUCCESS);
}

TEST(ParseTest, ErrorLine) {
  XMLDocument doc;
  doc.Parse("<a>\n<b>\n</a>");
  EXPECT_EQ(doc.ErrorLineNum(), 2);
}

TEST(PrintTest, QuoteEscaping) {
  XMLDocument doc;
  XMLElement* e = doc.NewElement("q");
  e->SetAttribute("v", "say \"hi\"");
  doc.InsertEndChild(e);
  XMLPrinter printer(nullptr, true);
  doc.Print(&printer);
  EXPECT_EQ(std::string(printer.CStr()), "<q v=\"say &quot;hi&quot;\"/>");
}
