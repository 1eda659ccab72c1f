#include <gtest/gtest.h>

#include "tinyxml2.h"

using namespace tinyxml2;

TEST(MoveTest, SameDocument) {
  XMLDocument doc;
  doc.InsertEndChild(doc.NewElement("x"));
  EXPECT_STREQ(doc.RootElement()->Name(), "x");
}

TEST(MoveTest, AcrossDocuments) {
  XMLDocument from, to;
  XMLElement* e = from.NewElement("x");
  to.InsertEndChild(e);
  EXPECT_EQ(to.RootElement(), e);
}
