// Parsing documents and walking and changing the DOM: elements, text, comments, declarations, unknowns,
// child and sibling navigation, insertion, deletion, cloning, comparison and visitors.
#include <string>

#include "gtest/gtest.h"
#include "tinyxml2.h"

using namespace tinyxml2;

namespace {

std::string Compact(const XMLNode* node) {
  XMLPrinter printer(nullptr, true);
  node->Accept(&printer);
  return printer.CStr();
}

std::string Names(const XMLElement* parent) {
  std::string out;
  for (const XMLElement* e = parent->FirstChildElement(); e; e = e->NextSiblingElement()) out += e->Name();
  return out;
}

TEST(Parse, Elements) {
  XMLDocument doc;
  ASSERT_EQ(doc.Parse("<root/>"), XML_SUCCESS);
  ASSERT_NE(doc.RootElement(), nullptr);
  EXPECT_STREQ(doc.RootElement()->Name(), "root");
  EXPECT_TRUE(doc.RootElement()->NoChildren());
  EXPECT_FALSE(doc.Error());
  ASSERT_EQ(doc.Parse("<a><b/><c/><d/></a>"), XML_SUCCESS);
  EXPECT_EQ(Names(doc.RootElement()), "bcd");
}

TEST(Parse, FirstAndLastChildElementByName) {
  XMLDocument doc;
  ASSERT_EQ(doc.Parse("<r><x i='1'/><y/><x i='2'/><z/></r>"), XML_SUCCESS);
  XMLElement* r = doc.RootElement();
  EXPECT_STREQ(r->FirstChildElement("x")->Attribute("i"), "1");
  EXPECT_STREQ(r->LastChildElement("x")->Attribute("i"), "2");
  EXPECT_STREQ(r->LastChildElement()->Name(), "z");
  EXPECT_EQ(r->FirstChildElement("w"), nullptr);
  EXPECT_EQ(r->LastChildElement("w"), nullptr);
}

TEST(Parse, SiblingElements) {
  XMLDocument doc;
  ASSERT_EQ(doc.Parse("<r><x i='1'/><y/>text<!--c--><x i='2'/><x i='3'/></r>"), XML_SUCCESS);
  XMLElement* first = doc.RootElement()->FirstChildElement("x");
  XMLElement* second = first->NextSiblingElement("x");
  ASSERT_NE(second, nullptr);
  EXPECT_STREQ(second->Attribute("i"), "2");
  EXPECT_STREQ(first->NextSiblingElement()->Name(), "y");
  EXPECT_EQ(first->NextSiblingElement()->NextSiblingElement(), second);
  EXPECT_STREQ(second->PreviousSiblingElement()->Name(), "y");
  XMLElement* last = doc.RootElement()->LastChildElement();
  EXPECT_STREQ(last->PreviousSiblingElement("x")->Attribute("i"), "2");
  EXPECT_EQ(first->PreviousSiblingElement(), nullptr);
  EXPECT_EQ(last->NextSiblingElement(), nullptr);
}

TEST(Parse, GetText) {
  XMLDocument doc;
  ASSERT_EQ(doc.Parse("<r><p>hello world</p><q><!--one--><!--two-->text</q><s><b>x</b>tail</s><t></t></r>"),
            XML_SUCCESS);
  XMLElement* r = doc.RootElement();
  EXPECT_STREQ(r->FirstChildElement("p")->GetText(), "hello world");
  EXPECT_STREQ(r->FirstChildElement("q")->GetText(), "text");
  EXPECT_EQ(r->FirstChildElement("s")->GetText(), nullptr);
  EXPECT_EQ(r->FirstChildElement("t")->GetText(), nullptr);
}

TEST(Parse, CData) {
  XMLDocument doc;
  ASSERT_EQ(doc.Parse("<p><![CDATA[a<b>&amp;c]]>plain</p>"), XML_SUCCESS);
  const XMLText* text = doc.RootElement()->FirstChild()->ToText();
  ASSERT_NE(text, nullptr);
  EXPECT_TRUE(text->CData());
  EXPECT_STREQ(text->Value(), "a<b>&amp;c");
  EXPECT_FALSE(text->NextSibling()->ToText()->CData());
}

TEST(Parse, DeclarationCommentUnknown) {
  XMLDocument doc;
  ASSERT_EQ(doc.Parse("<?xml version=\"1.0\" encoding=\"UTF-8\"?><!-- hello --><!DOCTYPE html><r/>"), XML_SUCCESS);
  const XMLNode* n = doc.FirstChild();
  ASSERT_NE(n->ToDeclaration(), nullptr);
  EXPECT_STREQ(n->Value(), "xml version=\"1.0\" encoding=\"UTF-8\"");
  n = n->NextSibling();
  ASSERT_NE(n->ToComment(), nullptr);
  EXPECT_STREQ(n->Value(), " hello ");
  n = n->NextSibling();
  ASSERT_NE(n->ToUnknown(), nullptr);
  EXPECT_STREQ(n->Value(), "DOCTYPE html");
  EXPECT_STREQ(doc.RootElement()->Name(), "r");
}

TEST(Parse, MixedContent) {
  XMLDocument doc;
  ASSERT_EQ(doc.Parse("<p>one<b>two</b>three</p>"), XML_SUCCESS);
  const XMLNode* n = doc.RootElement()->FirstChild();
  ASSERT_NE(n->ToText(), nullptr);
  EXPECT_STREQ(n->Value(), "one");
  n = n->NextSibling();
  ASSERT_NE(n->ToElement(), nullptr);
  EXPECT_STREQ(n->ToElement()->GetText(), "two");
  n = n->NextSibling();
  ASSERT_NE(n->ToText(), nullptr);
  EXPECT_STREQ(n->Value(), "three");
  EXPECT_EQ(n->NextSibling(), nullptr);
}

TEST(Parse, SeveralTopLevelElements) {
  XMLDocument doc;
  ASSERT_EQ(doc.Parse("<a/><b/>"), XML_SUCCESS);
  EXPECT_STREQ(doc.RootElement()->Name(), "a");
  EXPECT_STREQ(doc.RootElement()->NextSiblingElement()->Name(), "b");
  EXPECT_STREQ(doc.LastChildElement()->Name(), "b");
  ASSERT_EQ(doc.Parse("<a/><b/>", 4), XML_SUCCESS);
  EXPECT_STREQ(doc.RootElement()->Name(), "a");
  EXPECT_EQ(doc.RootElement()->NextSiblingElement(), nullptr);
}

TEST(Parse, ByteOrderMark) {
  XMLDocument with;
  ASSERT_EQ(with.Parse("\xEF\xBB\xBF<r/>"), XML_SUCCESS);
  EXPECT_TRUE(with.HasBOM());
  EXPECT_STREQ(with.RootElement()->Name(), "r");
  XMLDocument without;
  ASSERT_EQ(without.Parse("<r/>"), XML_SUCCESS);
  EXPECT_FALSE(without.HasBOM());
}

TEST(Parse, LineNumbers) {
  XMLDocument doc;
  ASSERT_EQ(doc.Parse("<a>\n<b/>\n\n<c x='1'\n y='2'/>\n<!--k-->text\n</a>"), XML_SUCCESS);
  XMLElement* a = doc.RootElement();
  EXPECT_EQ(a->GetLineNum(), 1);
  EXPECT_EQ(a->FirstChildElement("b")->GetLineNum(), 2);
  XMLElement* c = a->FirstChildElement("c");
  EXPECT_EQ(c->GetLineNum(), 4);
  EXPECT_EQ(c->FindAttribute("x")->GetLineNum(), 4);
  EXPECT_EQ(c->FindAttribute("y")->GetLineNum(), 5);
  const XMLNode* comment = c->NextSibling();
  ASSERT_NE(comment->ToComment(), nullptr);
  EXPECT_EQ(comment->GetLineNum(), 6);
  EXPECT_EQ(comment->NextSibling()->GetLineNum(), 6);
}

TEST(Parse, NamesAndSpacing) {
  XMLDocument doc;
  ASSERT_EQ(doc.Parse("<ns:a-b.c_d x:y-z='1'/>"), XML_SUCCESS);
  EXPECT_STREQ(doc.RootElement()->Name(), "ns:a-b.c_d");
  EXPECT_STREQ(doc.RootElement()->Attribute("x:y-z"), "1");
  ASSERT_EQ(doc.Parse("<a  >x</a  ><b   />"), XML_SUCCESS);
  EXPECT_STREQ(doc.RootElement()->GetText(), "x");
  EXPECT_STREQ(doc.RootElement()->NextSiblingElement()->Name(), "b");
  EXPECT_EQ(doc.RootElement()->ClosingType(), XMLElement::OPEN);
  EXPECT_EQ(doc.RootElement()->NextSiblingElement()->ClosingType(), XMLElement::CLOSED);
}



TEST(Dom, InsertEndChild) {
  XMLDocument doc;
  XMLElement* r = doc.NewElement("r");
  doc.InsertEndChild(r);
  r->InsertEndChild(doc.NewElement("a"));
  r->InsertEndChild(doc.NewElement("b"));
  r->InsertEndChild(doc.NewElement("c"));
  EXPECT_EQ(Compact(&doc), "<r><a/><b/><c/></r>");
  EXPECT_STREQ(r->LastChild()->Value(), "c");
  EXPECT_EQ(r->FirstChild()->Parent(), r);
}

TEST(Dom, InsertFirstChild) {
  XMLDocument doc;
  XMLElement* r = doc.NewElement("r");
  doc.InsertFirstChild(r);
  r->InsertFirstChild(doc.NewElement("a"));
  r->InsertFirstChild(doc.NewElement("b"));
  r->InsertFirstChild(doc.NewElement("c"));
  EXPECT_EQ(Compact(&doc), "<r><c/><b/><a/></r>");
  EXPECT_STREQ(r->FirstChild()->Value(), "c");
  EXPECT_STREQ(r->LastChild()->Value(), "a");
  EXPECT_EQ(r->FirstChild()->PreviousSibling(), nullptr);
}

TEST(Dom, InsertAfterChild) {
  XMLDocument doc;
  ASSERT_EQ(doc.Parse("<r><a/><c/></r>"), XML_SUCCESS);
  XMLElement* r = doc.RootElement();
  XMLElement* a = r->FirstChildElement("a");
  r->InsertAfterChild(a, doc.NewElement("b"));
  r->InsertAfterChild(r->LastChild(), doc.NewElement("d"));
  EXPECT_EQ(Compact(r), "<r><a/><b/><c/><d/></r>");
  EXPECT_STREQ(r->LastChild()->PreviousSibling()->Value(), "c");
  EXPECT_STREQ(r->FirstChildElement("c")->PreviousSibling()->Value(), "b");
  EXPECT_EQ(r->InsertAfterChild(a, a), a);
  EXPECT_EQ(Compact(r), "<r><a/><b/><c/><d/></r>");
}

TEST(Dom, InsertionRefused) {
  XMLDocument doc;
  ASSERT_EQ(doc.Parse("<r><a><x/></a></r>"), XML_SUCCESS);
  XMLElement* r = doc.RootElement();
  XMLElement* x = r->FirstChildElement()->FirstChildElement();
  XMLElement* fresh = doc.NewElement("n");
  EXPECT_EQ(r->InsertAfterChild(x, fresh), nullptr);
  XMLDocument other;
  XMLElement* foreign = other.NewElement("f");
  EXPECT_EQ(r->InsertEndChild(foreign), nullptr);
  EXPECT_EQ(r->InsertFirstChild(foreign), nullptr);
  EXPECT_EQ(Compact(r), "<r><a><x/></a></r>");
  doc.DeleteNode(fresh);
  other.DeleteNode(foreign);
}

TEST(Dom, MovingAChild) {
  XMLDocument doc;
  ASSERT_EQ(doc.Parse("<r><a/><b/><c/></r>"), XML_SUCCESS);
  XMLElement* r = doc.RootElement();
  r->InsertEndChild(r->FirstChildElement("a"));
  EXPECT_EQ(Compact(r), "<r><b/><c/><a/></r>");
  r->InsertFirstChild(r->LastChildElement("a"));
  EXPECT_EQ(Compact(r), "<r><a/><b/><c/></r>");
}

TEST(Dom, DeleteChild) {
  XMLDocument doc;
  ASSERT_EQ(doc.Parse("<r><a/><b/><c/></r>"), XML_SUCCESS);
  XMLElement* r = doc.RootElement();
  r->DeleteChild(r->FirstChildElement("b"));
  EXPECT_EQ(Compact(r), "<r><a/><c/></r>");
  r->DeleteChild(r->FirstChild());
  EXPECT_EQ(Compact(r), "<r><c/></r>");
  r->DeleteChild(r->LastChild());
  EXPECT_TRUE(r->NoChildren());
  EXPECT_EQ(r->FirstChild(), nullptr);
  EXPECT_EQ(r->LastChild(), nullptr);
}

TEST(Dom, DeleteChildrenAndNodes) {
  XMLDocument doc;
  ASSERT_EQ(doc.Parse("<r><a><x/></a>t<!--c--></r>"), XML_SUCCESS);
  doc.RootElement()->DeleteChildren();
  EXPECT_TRUE(doc.RootElement()->NoChildren());
  EXPECT_EQ(Compact(&doc), "<r/>");
  doc.DeleteNode(doc.NewElement("e"));
  doc.RootElement()->InsertEndChild(doc.NewElement("a"));
  doc.DeleteNode(doc.RootElement()->FirstChild());
  EXPECT_EQ(Compact(&doc), "<r/>");
}

TEST(Dom, InsertNewNodes) {
  XMLDocument doc;
  XMLElement* r = doc.NewElement("r");
  doc.InsertEndChild(r);
  XMLElement* c = r->InsertNewChildElement("c");
  ASSERT_NE(c, nullptr);
  c->InsertNewText("t");
  r->InsertNewComment("k");
  r->InsertNewUnknown("u");
  r->InsertNewDeclaration("d");
  EXPECT_EQ(Compact(&doc), "<r><c>t</c><!--k--><!u><?d?></r>");
  EXPECT_EQ(c->Parent(), r);
  XMLDeclaration* decl = doc.NewDeclaration();
  doc.InsertFirstChild(decl);
  EXPECT_STREQ(decl->Value(), "xml version=\"1.0\" encoding=\"UTF-8\"");
}

TEST(Dom, SetValueAndName) {
  XMLDocument doc;
  ASSERT_EQ(doc.Parse("<a>text<!--c--></a>"), XML_SUCCESS);
  XMLElement* a = doc.RootElement();
  a->SetName("b");
  a->FirstChild()->SetValue("new");
  a->LastChild()->SetValue("k", true);
  EXPECT_EQ(Compact(&doc), "<b>new<!--k--></b>");
  EXPECT_EQ(doc.Value(), nullptr);
}

TEST(Dom, DeepCloneIntoAnotherDocument) {
  XMLDocument doc;
  ASSERT_EQ(doc.Parse("<r x='1'><a y='2'>t<![CDATA[c]]></a><!--k--><b/></r>"), XML_SUCCESS);
  XMLDocument target;
  XMLNode* clone = doc.RootElement()->DeepClone(&target);
  ASSERT_NE(clone, nullptr);
  target.InsertEndChild(clone);
  EXPECT_EQ(Compact(&target), "<r x=\"1\"><a y=\"2\">t<![CDATA[c]]></a><!--k--><b/></r>");
  EXPECT_EQ(clone->GetDocument(), &target);
}

TEST(Dom, DeepCopyDocument) {
  XMLDocument doc;
  ASSERT_EQ(doc.Parse("<?xml version='1.0'?><!DOCTYPE r><r><a/>text</r>"), XML_SUCCESS);
  XMLDocument target;
  ASSERT_EQ(target.Parse("<old/>"), XML_SUCCESS);
  doc.DeepCopy(&target);
  EXPECT_EQ(Compact(&target), "<?xml version='1.0'?><!DOCTYPE r><r><a/>text</r>");
  doc.DeepCopy(&doc);
  EXPECT_EQ(Compact(&doc), "<?xml version='1.0'?><!DOCTYPE r><r><a/>text</r>");
}

TEST(Dom, ShallowCloneKeepsAttributesNotChildren) {
  XMLDocument doc;
  ASSERT_EQ(doc.Parse("<r a='1' b='2'><c/></r>"), XML_SUCCESS);
  XMLNode* clone = doc.RootElement()->ShallowClone(nullptr);
  doc.InsertEndChild(clone);
  EXPECT_EQ(Compact(clone), "<r a=\"1\" b=\"2\"/>");
  EXPECT_TRUE(clone->ShallowEqual(doc.RootElement()));
}

TEST(Dom, ShallowCloneOfOtherNodes) {
  XMLDocument doc;
  ASSERT_EQ(doc.Parse("<?d?><!u><!--c--><r><![CDATA[x]]>y</r>"), XML_SUCCESS);
  XMLDocument target;
  for (const XMLNode* n = doc.FirstChild(); n; n = n->NextSibling()) {
    XMLNode* clone = n->ShallowClone(&target);
    ASSERT_NE(clone, nullptr);
    EXPECT_TRUE(clone->ShallowEqual(n)) << n->Value();
    target.InsertEndChild(clone);
  }
  const XMLNode* cdata = doc.RootElement()->FirstChild();
  XMLNode* cdataClone = cdata->ShallowClone(&target);
  EXPECT_TRUE(cdataClone->ToText()->CData());
  EXPECT_STREQ(cdataClone->Value(), "x");
  target.RootElement()->InsertEndChild(cdataClone);
  EXPECT_EQ(Compact(&target), "<?d?><!u><!--c--><r><![CDATA[x]]></r>");
}

TEST(Dom, ShallowEqualElements) {
  XMLDocument doc;
  ASSERT_EQ(doc.Parse("<r><e a='1' b='2'/><e a='1' b='2'/><e a='1' b='3'/><e a='1'/><f a='1' b='2'/>"
                      "<e a='1' b='2' c='3'/></r>"), XML_SUCCESS);
  const XMLElement* e1 = doc.RootElement()->FirstChildElement();
  const XMLElement* e2 = e1->NextSiblingElement();
  const XMLElement* e3 = e2->NextSiblingElement();
  const XMLElement* e4 = e3->NextSiblingElement();
  const XMLElement* f = e4->NextSiblingElement();
  const XMLElement* e6 = f->NextSiblingElement();
  EXPECT_TRUE(e1->ShallowEqual(e2));
  EXPECT_FALSE(e1->ShallowEqual(e3));
  EXPECT_FALSE(e1->ShallowEqual(e4));
  EXPECT_FALSE(e4->ShallowEqual(e1));
  EXPECT_FALSE(e1->ShallowEqual(f));
  EXPECT_FALSE(e1->ShallowEqual(e6));
}

TEST(Dom, ShallowEqualAcrossKinds) {
  XMLDocument doc;
  ASSERT_EQ(doc.Parse("<?x?><!--x--><!x><r>x</r>"), XML_SUCCESS);
  const XMLNode* decl = doc.FirstChild();
  const XMLNode* comment = decl->NextSibling();
  const XMLNode* unknown = comment->NextSibling();
  const XMLNode* text = doc.RootElement()->FirstChild();
  EXPECT_FALSE(comment->ShallowEqual(decl));
  EXPECT_FALSE(decl->ShallowEqual(unknown));
  EXPECT_FALSE(unknown->ShallowEqual(text));
  EXPECT_FALSE(text->ShallowEqual(comment));
  EXPECT_TRUE(text->ShallowEqual(text));
  XMLText* other = doc.NewText("y");
  EXPECT_FALSE(text->ShallowEqual(other));
  doc.DeleteNode(other);
}

struct Counter : XMLVisitor {
  int docEnter = 0, docExit = 0, enter = 0, exit = 0, text = 0, comment = 0, decl = 0, unknown = 0;
  std::string order;
  bool descend = true;
  bool VisitEnter(const XMLDocument&) override { ++docEnter; return true; }
  bool VisitExit(const XMLDocument&) override { ++docExit; return true; }
  bool VisitEnter(const XMLElement& e, const XMLAttribute*) override {
    ++enter;
    order += e.Name();
    return descend;
  }
  bool VisitExit(const XMLElement&) override { ++exit; return true; }
  bool Visit(const XMLText&) override { ++text; return true; }
  bool Visit(const XMLComment&) override { ++comment; return true; }
  bool Visit(const XMLDeclaration&) override { ++decl; return true; }
  bool Visit(const XMLUnknown&) override { ++unknown; return true; }
};

TEST(Dom, VisitorSeesEveryNode) {
  XMLDocument doc;
  ASSERT_EQ(doc.Parse("<?x?><!u><r><a>t</a><!--c--><b><c/>u</b></r>"), XML_SUCCESS);
  Counter v;
  doc.Accept(&v);
  EXPECT_EQ(v.docEnter, 1);
  EXPECT_EQ(v.docExit, 1);
  EXPECT_EQ(v.enter, 4);
  EXPECT_EQ(v.exit, 4);
  EXPECT_EQ(v.text, 2);
  EXPECT_EQ(v.comment, 1);
  EXPECT_EQ(v.decl, 1);
  EXPECT_EQ(v.unknown, 1);
  EXPECT_EQ(v.order, "rabc");
}

TEST(Dom, VisitorCanSkipChildren) {
  XMLDocument doc;
  ASSERT_EQ(doc.Parse("<r><a>t</a></r>"), XML_SUCCESS);
  Counter v;
  v.descend = false;
  doc.Accept(&v);
  EXPECT_EQ(v.enter, 1);
  EXPECT_EQ(v.exit, 1);
  EXPECT_EQ(v.text, 0);
}

TEST(Dom, ClearAndReparse) {
  XMLDocument doc;
  ASSERT_EQ(doc.Parse("<a><b/></a>"), XML_SUCCESS);
  ASSERT_EQ(doc.Parse("<c/>"), XML_SUCCESS);
  EXPECT_STREQ(doc.RootElement()->Name(), "c");
  EXPECT_EQ(doc.RootElement()->NextSibling(), nullptr);
  doc.NewElement("loose");
  doc.Clear();
  EXPECT_TRUE(doc.NoChildren());
  EXPECT_EQ(doc.RootElement(), nullptr);
  EXPECT_FALSE(doc.Error());
}

}  // namespace
