#include <gtest/gtest.h>

#include "tinyxml2.h"

using namespace tinyxml2;

TEST(LookupTest, ExistingChild) {
  XMLDocument doc;
  doc.Parse("<a><b>x</b></a>");
  EXPECT_STREQ(doc.RootElement()->FirstChildElement("b")->GetText(), "x");
}

TEST(LookupTest, MissingChild) {
  XMLDocument doc;
  doc.Parse("<a><c>x</c></a>");
  const char* text = doc.RootElement()->FirstChildElement("b")->GetText();
  EXPECT_STREQ(text, "x");
}

TEST(LookupTest, NeverReached) { SUCCEED(); }
