#include <gtest/gtest.h>

#include "vp/trace/literal_parser.hpp"

using namespace vp::trace;

namespace {

struct Parsed {
  LiteralParser parser;
  LiteralError error;
  bool ok = false;
  explicit Parsed(std::string_view text) { ok = parser.parse(text, error); }
  ValueView root() const { return parser.root(); }
};

}  // namespace

TEST(LiteralParser, ScalarsOfEveryKind) {
  Parsed p("[42, -7, 1.5, -2e3, 'str', \"dq\", True, False, None, word, <DataFmt.FP16: 3>, 0x1F, +3]");
  ASSERT_TRUE(p.ok) << p.error.message;
  const ValueView r = p.root();
  ASSERT_EQ(r.size(), 13u);
  EXPECT_EQ(r.element(0).as_int(), 42);
  EXPECT_EQ(r.element(1).as_int(), -7);
  EXPECT_DOUBLE_EQ(r.element(2).as_float(), 1.5);
  EXPECT_DOUBLE_EQ(r.element(3).as_float(), -2000.0);
  EXPECT_EQ(r.element(4).text(), "str");
  EXPECT_EQ(r.element(5).text(), "dq");
  EXPECT_EQ(r.element(6).kind(), NodeKind::Bool);
  EXPECT_EQ(r.element(6).as_int(), 1);
  EXPECT_EQ(r.element(7).as_int(), 0);
  EXPECT_EQ(r.element(8).kind(), NodeKind::None);
  EXPECT_EQ(r.element(9).kind(), NodeKind::Ident);
  EXPECT_EQ(r.element(9).text(), "word");
  EXPECT_EQ(r.element(10).kind(), NodeKind::Enum);
  EXPECT_EQ(r.element(10).text(), "DataFmt.FP16");
  EXPECT_EQ(r.element(10).as_int(), 3);
  EXPECT_EQ(r.element(10).raw(), "<DataFmt.FP16: 3>");
  EXPECT_EQ(r.element(11).as_int(), 31);
  EXPECT_EQ(r.element(12).as_int(), 3);
}

TEST(LiteralParser, NestedContainersAndLookup) {
  Parsed p("{'a': [], 'b': [[1, 2], [3, [4]]], 'c': {'d': -1}, 'e': (5, 6,), 7: 'int key'}");
  ASSERT_TRUE(p.ok) << p.error.message;
  const ValueView r = p.root();
  EXPECT_EQ(r.size(), 5u);
  EXPECT_EQ(r.find("a").size(), 0u);
  EXPECT_EQ(r.find("b").element(1).element(1).element(0).as_int(), 4);
  EXPECT_EQ(r.find("c").get_int("d", 0), -1);
  EXPECT_EQ(r.find("e").size(), 2u);
  EXPECT_EQ(r.key_at(4).as_int(), 7);
  EXPECT_EQ(r.value_at(4).text(), "int key");
  EXPECT_FALSE(r.find("missing").valid());
  EXPECT_EQ(r.get_int("missing", 99), 99);
}

TEST(LiteralParser, EscapesAreDecodedAndRawKept) {
  Parsed p(R"(['it\'s', "a \"q\"", 'back\\slash', 'tab\t', '\x41'])");
  ASSERT_TRUE(p.ok) << p.error.message;
  const ValueView r = p.root();
  EXPECT_EQ(r.element(0).text(), "it's");
  EXPECT_EQ(r.element(1).text(), "a \"q\"");
  EXPECT_EQ(r.element(2).text(), "back\\slash");
  EXPECT_EQ(r.element(3).text(), "tab\t");
  EXPECT_EQ(r.element(4).text(), "A");
  EXPECT_EQ(r.element(0).raw(), R"('it\'s')");
}

TEST(LiteralParser, Int64LimitsAndOverflow) {
  Parsed ok("[9223372036854775807, -9223372036854775808]");
  ASSERT_TRUE(ok.ok) << ok.error.message;
  EXPECT_EQ(ok.root().element(0).as_int(), INT64_MAX);
  EXPECT_EQ(ok.root().element(1).as_int(), INT64_MIN);
  Parsed bad("[9223372036854775808]");
  ASSERT_FALSE(bad.ok);
  EXPECT_NE(bad.error.message.find("64 bits"), std::string::npos);
  EXPECT_EQ(bad.error.column, 2u);
}

TEST(LiteralParser, ErrorsNameWhatWasExpectedAndWhere) {
  LiteralParser parser;
  parser.set_top_level_names({"mnemonic", "mapping dict"});
  LiteralError e;
  ASSERT_FALSE(parser.parse("[op, {'slyr': 3 'x': 1}]", e));
  EXPECT_EQ(e.column, 17u);
  EXPECT_FALSE(e.at_end);
  EXPECT_NE(e.message.find("expected ',' or '}'"), std::string::npos) << e.message;
  EXPECT_NE(e.message.find("mapping dict"), std::string::npos) << e.message;
  EXPECT_NE(e.message.find("'slyr'"), std::string::npos) << e.message;
}

TEST(LiteralParser, CutOffInputIsReportedAsAtEnd) {
  for (const char* text : {"[op, {'a': 1", "[op, {'a': 'unterminated", "[1, 2", "[op, {'a': [1, 2"}) {
    LiteralParser parser;
    LiteralError e;
    EXPECT_FALSE(parser.parse(text, e)) << text;
    EXPECT_TRUE(e.at_end) << text << ": " << e.message;
  }
}

TEST(LiteralParser, RejectsJunkAndDeepNesting) {
  LiteralParser parser;
  LiteralError e;
  EXPECT_FALSE(parser.parse("[1] trailing", e));
  EXPECT_FALSE(e.at_end);
  EXPECT_FALSE(parser.parse("{[1]: 2}", e));
  EXPECT_NE(e.message.find("scalar dict key"), std::string::npos);
  EXPECT_FALSE(parser.parse("[1, @]", e));
  std::string deep(LiteralParser::kMaxDepth + 5, '[');
  deep += std::string(LiteralParser::kMaxDepth + 5, ']');
  EXPECT_FALSE(parser.parse(deep, e));
  EXPECT_NE(e.message.find("nesting"), std::string::npos);
}

TEST(LiteralParser, StructuralEquality) {
  Parsed a("{'x': [1, 'a', <E.V: 2>], 'y': 1.0}");
  Parsed b("{'x' : [1,'a',<E.V: 2>] , 'y':1.0}");
  Parsed c("{'x': [1, 'a', <E.V: 3>], 'y': 1.0}");
  ASSERT_TRUE(a.ok && b.ok && c.ok);
  EXPECT_TRUE(equal(a.root(), b.root()));
  EXPECT_FALSE(equal(a.root(), c.root()));
}

TEST(LiteralParser, JsonRendering) {
  Parsed p("{'a': [1, -2], 'b': 'q\"', 'c': None, 'd': True, 'e': <X.Y: 1>}");
  ASSERT_TRUE(p.ok);
  std::string json;
  append_json(json, p.root());
  EXPECT_EQ(json, R"({"a":[1,-2],"b":"q\"","c":null,"d":true,"e":"<X.Y: 1>"})");
}
