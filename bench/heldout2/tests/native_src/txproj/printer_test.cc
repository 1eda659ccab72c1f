#include <gtest/gtest.h>

#include <string>

#include "tinyxml2.h"

using namespace tinyxml2;

TEST(PrinterTest, Compact) {
  XMLDocument doc;
  doc.Parse("<a x=\"1\"><b/></a>");
  XMLPrinter printer(nullptr, true);
  doc.Print(&printer);
  EXPECT_EQ(std::string(printer.CStr()), "<a x=\"1\"><b/></a>");
}

TEST(PrinterTest, IntAttribute) {
  XMLDocument doc;
  XMLElement* e = doc.NewElement("n");
  e->SetAttribute("v", 42);
  doc.InsertEndChild(e);
  XMLPrinter printer(nullptr, true);
  doc.Print(&printer);
  EXPECT_EQ(std::string(printer.CStr()), "<n v=\"42\"/>");
}
