#include <gtest/gtest.h>

#include <string>

#include "tinyxml2.h"

using namespace tinyxml2;

TEST(SlowTest, ManyReparses) {
  std::string xml = "<r>";
  for (int i = 0; i < 2000; ++i) xml += "<i n=\"" + std::to_string(i) + "\"/>";
  xml += "</r>";
  int parsed = 0;
  for (int round = 0; round < 200000; ++round) {
    XMLDocument doc;
    doc.Parse(xml.c_str());
    parsed += doc.RootElement() != nullptr;
  }
  EXPECT_EQ(parsed, 200000);
}
