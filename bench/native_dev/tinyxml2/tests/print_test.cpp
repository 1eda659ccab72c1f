// Printing: XMLPrinter in compact and pretty modes, its streaming API with typed values, escaping on
// output, the BOM and declaration header, saving and loading files, and the whitespace modes of parsing.
#include <cstdio>
#include <cstring>
#include <string>

#include "gtest/gtest.h"
#include "tinyxml2.h"

using namespace tinyxml2;

namespace {

std::string Printed(const XMLDocument& doc, bool compact) {
  XMLPrinter printer(nullptr, compact);
  doc.Print(&printer);
  return printer.CStr();
}

std::string Reprinted(const char* xml, bool compact) {
  XMLDocument doc;
  EXPECT_EQ(doc.Parse(xml), XML_SUCCESS) << xml;
  return Printed(doc, compact);
}

std::string TempPath(const char* name) {
  return std::string(::testing::TempDir()) + "tinyxml2_" + name + ".xml";
}

TEST(Print, CompactRoundTrip) {
  EXPECT_EQ(Reprinted("<a x=\"1\" y=\"2\"><b>t</b><c/></a>", true), "<a x=\"1\" y=\"2\"><b>t</b><c/></a>");
  EXPECT_EQ(Reprinted("<?xml version=\"1.0\"?><!--c--><!DOCTYPE r><r><![CDATA[<x>]]></r>", true),
            "<?xml version=\"1.0\"?><!--c--><!DOCTYPE r><r><![CDATA[<x>]]></r>");
}

TEST(Print, PrettyIndentsChildren) {
  EXPECT_EQ(Reprinted("<a><b>t</b><c/></a>", false), "<a>\n    <b>t</b>\n    <c/>\n</a>\n");
  EXPECT_EQ(Reprinted("<a><b><c><d/></c></b></a>", false),
            "<a>\n    <b>\n        <c>\n            <d/>\n        </c>\n    </b>\n</a>\n");
}

TEST(Print, PrettyTopLevelNodes) {
  EXPECT_EQ(Reprinted("<?xml version=\"1.0\"?><!--c--><!DOCTYPE r><r><!--k--><b/></r>", false),
            "<?xml version=\"1.0\"?>\n<!--c-->\n<!DOCTYPE r>\n<r>\n    <!--k-->\n    <b/>\n</r>\n");
}

TEST(Print, PrettyText) {
  EXPECT_EQ(Reprinted("<a>x<b/>y</a>", false), "<a>x<b/>y</a>\n");
  EXPECT_EQ(Reprinted("<r><a>x</a><b>y</b></r>", false), "<r>\n    <a>x</a>\n    <b>y</b>\n</r>\n");
}

TEST(Print, StreamingElements) {
  XMLPrinter printer(nullptr, true);
  printer.OpenElement("a", true);
  printer.PushAttribute("n", 5);
  printer.OpenElement("b", true);
  printer.PushText("hi");
  printer.CloseElement(true);
  printer.OpenElement("c", true);
  printer.CloseElement(true);
  printer.CloseElement(true);
  EXPECT_STREQ(printer.CStr(), "<a n=\"5\"><b>hi</b><c/></a>");
  XMLPrinter pretty;
  pretty.OpenElement("a");
  pretty.OpenElement("b");
  pretty.CloseElement();
  pretty.CloseElement();
  EXPECT_STREQ(pretty.CStr(), "<a>\n    <b/>\n</a>\n");
}

TEST(Print, PushAttributeTypes) {
  XMLPrinter printer(nullptr, true);
  printer.OpenElement("e", true);
  printer.PushAttribute("i", -4);
  printer.PushAttribute("u", 4000000000u);
  printer.PushAttribute("l", INT64_C(-6000000000));
  printer.PushAttribute("m", UINT64_C(7000000000));
  printer.PushAttribute("b", true);
  printer.PushAttribute("d", 0.5);
  printer.CloseElement(true);
  EXPECT_STREQ(printer.CStr(),
               "<e i=\"-4\" u=\"4000000000\" l=\"-6000000000\" m=\"7000000000\" b=\"true\" d=\"0.5\"/>");
}

TEST(Print, PushTextTypes) {
  XMLPrinter printer(nullptr, true);
  printer.OpenElement("e", true);
  printer.PushText(-1);
  printer.PushText(" ");
  printer.PushText(2u);
  printer.PushText(" ");
  printer.PushText(INT64_C(-3000000000));
  printer.PushText(" ");
  printer.PushText(UINT64_C(4000000000));
  printer.PushText(" ");
  printer.PushText(false);
  printer.PushText(" ");
  printer.PushText(0.25f);
  printer.PushText(" ");
  printer.PushText(0.2);
  printer.CloseElement(true);
  EXPECT_STREQ(printer.CStr(), "<e>-1 2 -3000000000 4000000000 false 0.25 0.20000000000000001</e>");
}

TEST(Print, StreamingOtherNodes) {
  XMLPrinter printer(nullptr, true);
  printer.PushDeclaration("xml version=\"1.0\"");
  printer.PushUnknown("DOCTYPE r");
  printer.OpenElement("r", true);
  printer.PushComment("note");
  printer.PushText("x<y&z", true);
  printer.CloseElement(true);
  EXPECT_STREQ(printer.CStr(), "<?xml version=\"1.0\"?><!DOCTYPE r><r><!--note--><![CDATA[x<y&z]]></r>");
}

TEST(Print, TextEscapesOnlyMarkup) {
  XMLDocument doc;
  XMLElement* e = doc.NewElement("e");
  doc.InsertEndChild(e);
  e->SetText("a<b&c>d\"e'f");
  EXPECT_EQ(Printed(doc, true), "<e>a&lt;b&amp;c&gt;d\"e'f</e>");
  e->SetText("&x<");
  EXPECT_EQ(Printed(doc, true), "<e>&amp;x&lt;</e>");
}

TEST(Print, AttributeEscapesAllEntities) {
  XMLDocument doc;
  XMLElement* e = doc.NewElement("e");
  doc.InsertEndChild(e);
  e->SetAttribute("v", "a<b&c>d\"e'f");
  EXPECT_EQ(Printed(doc, true), "<e v=\"a&lt;b&amp;c&gt;d&quot;e&apos;f\"/>");
}

TEST(Print, EntitiesRoundTrip) {
  EXPECT_EQ(Reprinted("<e a=\"&quot;&amp;\">&lt;&amp;&gt;</e>", true), "<e a=\"&quot;&amp;\">&lt;&amp;&gt;</e>");
  EXPECT_EQ(Reprinted("<e v=\"caf\xC3\xA9\">\xE4\xB8\xAD</e>", true), "<e v=\"caf\xC3\xA9\">\xE4\xB8\xAD</e>");
}

TEST(Print, NoEscapingWhenEntitiesAreNotProcessed) {
  XMLDocument doc(false);
  ASSERT_EQ(doc.Parse("<e a=\"&amp;\">&lt;x&gt;</e>"), XML_SUCCESS);
  EXPECT_STREQ(doc.RootElement()->GetText(), "&lt;x&gt;");
  EXPECT_STREQ(doc.RootElement()->Attribute("a"), "&amp;");
  EXPECT_EQ(Printed(doc, true), "<e a=\"&amp;\">&lt;x&gt;</e>");
}

TEST(Print, Header) {
  XMLPrinter compact(nullptr, true);
  compact.PushHeader(true, true);
  compact.OpenElement("r", true);
  compact.CloseElement(true);
  EXPECT_STREQ(compact.CStr(), "\xEF\xBB\xBF<?xml version=\"1.0\"?><r/>");
  XMLPrinter pretty;
  pretty.PushHeader(false, true);
  pretty.OpenElement("r");
  pretty.CloseElement();
  EXPECT_STREQ(pretty.CStr(), "<?xml version=\"1.0\"?>\n<r/>\n");
}

TEST(Print, DocumentBOMIsWritten) {
  XMLDocument doc;
  ASSERT_EQ(doc.Parse("\xEF\xBB\xBF<r/>"), XML_SUCCESS);
  EXPECT_EQ(Printed(doc, true), "\xEF\xBB\xBF<r/>");
  doc.SetBOM(false);
  EXPECT_EQ(Printed(doc, true), "<r/>");
}

TEST(Print, BufferSizeAndClear) {
  XMLPrinter printer(nullptr, true);
  printer.OpenElement("abc", true);
  printer.CloseElement(true);
  EXPECT_STREQ(printer.CStr(), "<abc/>");
  EXPECT_EQ(printer.CStrSize(), 7);
  printer.ClearBuffer();
  EXPECT_STREQ(printer.CStr(), "");
  EXPECT_EQ(printer.CStrSize(), 1);
  printer.OpenElement("x", true);
  printer.CloseElement(true);
  EXPECT_STREQ(printer.CStr(), "<x/>");
}

TEST(Print, StartingDepth) {
  XMLPrinter printer(nullptr, false, 1);
  printer.OpenElement("a");
  printer.OpenElement("b");
  printer.CloseElement();
  printer.CloseElement();
  EXPECT_STREQ(printer.CStr(), "    <a>\n        <b/>\n    </a>");
}

struct InlinePrinter : XMLPrinter {
  InlinePrinter() : XMLPrinter(nullptr, false) {}
  bool CompactMode(const XMLElement& e) override { return std::strcmp(e.Name(), "inline") == 0; }
};

TEST(Print, CompactModePerElement) {
  XMLDocument doc;
  ASSERT_EQ(doc.Parse("<r><inline><a/><b/></inline><c/></r>"), XML_SUCCESS);
  InlinePrinter printer;
  doc.Print(&printer);
  EXPECT_STREQ(printer.CStr(), "<r>\n    <inline><a/><b/></inline>\n    <c/>\n</r>\n");
}

TEST(Print, ToFile) {
  std::string path = TempPath("print");
  FILE* fp = std::fopen(path.c_str(), "w");
  ASSERT_NE(fp, nullptr);
  XMLPrinter printer(fp, true);
  printer.OpenElement("f");
  printer.PushAttribute("k", "v&");
  printer.PushText("t");
  printer.PushComment("c");
  printer.CloseElement();
  std::fclose(fp);
  XMLDocument doc;
  ASSERT_EQ(doc.LoadFile(path.c_str()), XML_SUCCESS);
  EXPECT_EQ(Printed(doc, true), "<f k=\"v&amp;\">t<!--c--></f>");
  std::remove(path.c_str());
}

TEST(File, SaveAndLoad) {
  std::string path = TempPath("save");
  XMLDocument doc;
  ASSERT_EQ(doc.Parse("<r a=\"1\"><b>x &amp; y</b></r>"), XML_SUCCESS);
  ASSERT_EQ(doc.SaveFile(path.c_str()), XML_SUCCESS);
  XMLDocument back;
  ASSERT_EQ(back.LoadFile(path.c_str()), XML_SUCCESS);
  EXPECT_STREQ(back.RootElement()->FirstChildElement("b")->GetText(), "x & y");
  EXPECT_EQ(Printed(back, false), "<r a=\"1\">\n    <b>x &amp; y</b>\n</r>\n");
  ASSERT_EQ(doc.SaveFile(path.c_str(), true), XML_SUCCESS);
  FILE* fp = std::fopen(path.c_str(), "rb");
  ASSERT_NE(fp, nullptr);
  char buf[64] = {0};
  size_t n = std::fread(buf, 1, sizeof buf - 1, fp);
  std::fclose(fp);
  EXPECT_EQ(std::string(buf, n), "<r a=\"1\"><b>x &amp; y</b></r>");
  std::remove(path.c_str());
}

TEST(File, LoadFromOpenFile) {
  std::string path = TempPath("fp");
  FILE* fp = std::fopen(path.c_str(), "w+b");
  ASSERT_NE(fp, nullptr);
  std::fputs("<?xml version=\"1.0\"?>\n<r>\n  <x/>\n</r>\n", fp);
  XMLDocument doc;
  EXPECT_EQ(doc.LoadFile(fp), XML_SUCCESS);
  std::fclose(fp);
  ASSERT_NE(doc.RootElement(), nullptr);
  EXPECT_EQ(doc.RootElement()->FirstChildElement("x")->GetLineNum(), 3);
  std::remove(path.c_str());
}

TEST(File, MissingAndEmpty) {
  XMLDocument doc;
  EXPECT_EQ(doc.LoadFile("/nonexistent/dir/none.xml"), XML_ERROR_FILE_NOT_FOUND);
  EXPECT_EQ(doc.ErrorID(), XML_ERROR_FILE_NOT_FOUND);
  std::string path = TempPath("empty");
  FILE* fp = std::fopen(path.c_str(), "w");
  ASSERT_NE(fp, nullptr);
  std::fclose(fp);
  EXPECT_EQ(doc.LoadFile(path.c_str()), XML_ERROR_EMPTY_DOCUMENT);
  std::remove(path.c_str());
  EXPECT_EQ(doc.SaveFile("/nonexistent/dir/out.xml"), XML_ERROR_FILE_COULD_NOT_BE_OPENED);
}

TEST(Whitespace, PreservedByDefault) {
  XMLDocument doc;
  ASSERT_EQ(doc.Parse("<a>  x  y  </a>"), XML_SUCCESS);
  EXPECT_STREQ(doc.RootElement()->GetText(), "  x  y  ");
  EXPECT_EQ(doc.WhitespaceMode(), PRESERVE_WHITESPACE);
  ASSERT_EQ(doc.Parse("<a>\n  <b/>\n  <c/>\n</a>"), XML_SUCCESS);
  EXPECT_STREQ(doc.RootElement()->FirstChild()->Value(), "b");
  EXPECT_STREQ(doc.RootElement()->LastChild()->Value(), "c");
}

TEST(Whitespace, Collapse) {
  XMLDocument doc(true, COLLAPSE_WHITESPACE);
  ASSERT_EQ(doc.Parse("<a>  x   y  </a>"), XML_SUCCESS);
  EXPECT_STREQ(doc.RootElement()->GetText(), "x y");
  ASSERT_EQ(doc.Parse("<a>\n\tone\n\n two\t\tthree\n</a>"), XML_SUCCESS);
  EXPECT_STREQ(doc.RootElement()->GetText(), "one two three");
}

TEST(Whitespace, CollapseWithEntities) {
  XMLDocument doc(true, COLLAPSE_WHITESPACE);
  ASSERT_EQ(doc.Parse("<a> &lt;b&gt;   c </a>"), XML_SUCCESS);
  EXPECT_STREQ(doc.RootElement()->GetText(), "<b> c");
}

TEST(Whitespace, NewlinesNormalized) {
  XMLDocument doc;
  ASSERT_EQ(doc.Parse("<!--a\r\nb--><a>x\r\ny\rz\n\rw</a>"), XML_SUCCESS);
  EXPECT_STREQ(doc.RootElement()->GetText(), "x\ny\nz\nw");
  EXPECT_STREQ(doc.FirstChild()->Value(), "a\nb");
}

TEST(Whitespace, CDataKeepsSpacesWhenCollapsing) {
  XMLDocument doc(true, COLLAPSE_WHITESPACE);
  ASSERT_EQ(doc.Parse("<a><![CDATA[  x  &amp; ]]></a>"), XML_SUCCESS);
  EXPECT_STREQ(doc.RootElement()->GetText(), "  x  &amp; ");
}

}  // namespace
