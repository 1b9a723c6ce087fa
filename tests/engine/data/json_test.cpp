// The engine's JsonWriter and parseJson (ampscope/engine/json.h): RFC 8259 output, escaping, the NaN/Inf
// policy and misuse detection; the reader's line/column errors, depth limit, duplicate keys, \u escapes
// with surrogate pairs and exact integers.
#include "ampscope/engine/json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>

namespace ampscope {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::optional<JsonValue> parse(std::string_view text, JsonParseError* error = nullptr) {
  JsonParseError ignored;
  return parseJson(text, error ? error : &ignored);
}

TEST(JsonWriter, WritesNestedObjectsAndArraysCompactly) {
  std::string out;
  JsonWriter json(out);
  json.beginObject()
      .field("name", "fp16")
      .field("bits", 16)
      .field("ok", true)
      .key("none")
      .null()
      .key("list")
      .beginArray()
      .value(1.5)
      .beginObject()
      .endObject()
      .beginArray()
      .endArray()
      .endArray()
      .endObject();
  EXPECT_EQ(out, R"({"name":"fp16","bits":16,"ok":true,"none":null,"list":[1.5,{},[]]})");
  EXPECT_TRUE(json.complete());
}

TEST(JsonWriter, AppendsToWhatIsAlreadyInTheString) {
  std::string out = "prefix ";
  JsonWriter(out).beginArray().value(1).endArray();
  EXPECT_EQ(out, "prefix [1]");
}

TEST(JsonWriter, PrettyLayoutIndentsByTwoSpaces) {
  std::string out;
  JsonWriter json(out, JsonWriter::Layout::Pretty);
  json.beginObject().key("a").beginArray().value(1).value("x").endArray().field("b", -0.0).endObject();
  EXPECT_EQ(out, "{\n  \"a\": [\n    1,\n    \"x\"\n  ],\n  \"b\": -0\n}");
  EXPECT_TRUE(parse(out).has_value());
}

TEST(JsonWriter, EscapesQuotesBackslashesAndControlCharacters) {
  EXPECT_EQ(JsonWriter::escape("a\"b\\c\nd\te\x01"), "a\\\"b\\\\c\\nd\\te\\u0001");
  EXPECT_EQ(JsonWriter::escape("µs"), "µs");  // UTF-8 passes through
  std::string out;
  JsonWriter(out).beginObject().field("k\"", "v\x1f").endObject();
  const auto back = parse(out);
  ASSERT_TRUE(back.has_value()) << out;
  ASSERT_NE(back->find("k\""), nullptr);
  EXPECT_EQ(back->find("k\"")->string(), "v\x1f");
}

TEST(JsonWriter, NonFiniteNumbersBecomeStringsOrNull) {
  // JSON has no NaN/Infinity literals (RFC 8259 section 6); the default keeps them visible as strings.
  std::string strings;
  JsonWriter(strings).beginArray().value(kNaN).value(kInf).value(-kInf).endArray();
  EXPECT_EQ(strings, R"(["nan","inf","-inf"])");
  std::string nulls;
  JsonWriter(nulls, JsonWriter::Layout::Compact, JsonWriter::NonFinite::AsNull)
      .beginArray()
      .value(kNaN)
      .value(-kInf)
      .value(2.0)
      .endArray();
  EXPECT_EQ(nulls, "[null,null,2]");
}

TEST(JsonWriter, DoublesAreShortestAndReadBackExactly) {
  std::string out;
  JsonWriter(out).beginArray().value(0.1).value(1e-8).value(65504.0).value(5e-324).endArray();
  EXPECT_EQ(out, "[0.1,1e-08,65504,5e-324]");
  std::mt19937_64 rng(3);
  std::uniform_int_distribution<uint64_t> anyBits;
  for (int i = 0; i < 10000; ++i) {
    const uint64_t raw = anyBits(rng);
    double x;
    std::memcpy(&x, &raw, sizeof x);
    if (!std::isfinite(x)) continue;
    std::string one;
    JsonWriter(one).value(x);
    ASSERT_EQ(std::strtod(one.c_str(), nullptr), x) << one;
    const auto back = parse(one);
    ASSERT_TRUE(back && back->isNumber()) << one;
    const double y = back->number();
    ASSERT_EQ(std::memcmp(&x, &y, sizeof x), 0) << one << " reads back bit for bit";
  }
}

TEST(JsonWriter, MisuseThrowsLogicError) {
  std::string out;
  EXPECT_THROW(JsonWriter(out).beginObject().value(1), std::logic_error);              // value without key
  EXPECT_THROW(JsonWriter(out).beginArray().key("k"), std::logic_error);               // key in an array
  EXPECT_THROW(JsonWriter(out).beginArray().endObject(), std::logic_error);            // wrong closer
  EXPECT_THROW(JsonWriter(out).value(1).value(2), std::logic_error);                   // two top-level values
  EXPECT_THROW(JsonWriter(out).beginObject().key("a").endObject(), std::logic_error);  // dangling key
  EXPECT_FALSE(JsonWriter(out).beginObject().complete());
}

TEST(ParseJson, ReadsEveryKindOfValueKeepingMemberOrder) {
  const auto v = parse(R"( {"b": [true, false, null], "a": "x", "n": -1.5e2} )");
  ASSERT_TRUE(v && v->isObject());
  ASSERT_EQ(v->members().size(), 3u);
  EXPECT_EQ(v->members()[0].first, "b");  // file order, not sorted
  EXPECT_EQ(v->members()[1].first, "a");
  const auto& list = v->find("b")->items();
  ASSERT_EQ(list.size(), 3u);
  EXPECT_TRUE(list[0].isBool() && list[0].boolValue());
  EXPECT_TRUE(list[1].isBool() && !list[1].boolValue());
  EXPECT_TRUE(list[2].isNull());
  EXPECT_EQ(v->find("n")->number(), -150.0);
  EXPECT_EQ(v->find("missing"), nullptr);
}

TEST(ParseJson, ErrorsGiveOneBasedLineAndColumn) {
  JsonParseError error;
  // Line 3, column 8 is the '}' where a value must follow "c": the error points at it.
  EXPECT_FALSE(parse("{\n  \"a\": 1,\n  \"c\": }", &error));
  EXPECT_EQ(error.line, 3);
  EXPECT_EQ(error.column, 8);
  EXPECT_EQ(error.where(), "line 3, column 8");
  EXPECT_FALSE(error.message.empty());

  for (const char* bad : {"", "{", "[1,]", "{\"a\" 1}", "nan", "01", "1.", "\"\\x\"", "[1] [2]", "{'a':1}",
                          "\"a\nb\"", "[1e]", "tru"}) {
    EXPECT_FALSE(parse(bad).has_value()) << bad;
  }
}

TEST(ParseJson, ACutShortDocumentSaysSo) {
  JsonParseError error;
  EXPECT_FALSE(parse(R"({"records": [{"step": 1}, {"st)", &error));
  EXPECT_NE(error.message.find("cut short"), std::string::npos) << error.message;
}

TEST(ParseJson, NestingDeeperThanTheLimitIsRefused) {
  // The default limit is 64 levels below the top-level value: 65 nested arrays read, 66 do not.
  const std::string ok = std::string(65, '[') + std::string(65, ']');
  EXPECT_TRUE(parse(ok).has_value());
  const std::string deep = std::string(66, '[') + std::string(66, ']');
  JsonParseError error;
  EXPECT_FALSE(parse(deep, &error).has_value());
  EXPECT_NE(error.message.find("nested deeper than 64"), std::string::npos) << error.message;
  // A hostile file of a million '[' is refused, not a stack overflow.
  EXPECT_FALSE(parse(std::string(1000000, '[')).has_value());
  EXPECT_TRUE(parseJson(deep, &error, JsonLimits{70}).has_value());
}

TEST(ParseJson, ARepeatedKeyIsRefusedByName) {
  JsonParseError error;
  EXPECT_FALSE(parse(R"({"loss": 1, "lr": 2, "loss": 3})", &error));
  EXPECT_NE(error.message.find("\"loss\" appears twice"), std::string::npos) << error.message;
  EXPECT_EQ(error.line, 1);
}

TEST(ParseJson, UnicodeEscapesIncludingSurrogatePairsBecomeUtf8) {
  const auto v = parse(R"(["\u00e9", "\u20ac", "\ud83d\ude00", "\u0041\n"])");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->items()[0].string(), "\xC3\xA9");          // U+00E9, 2 bytes in UTF-8
  EXPECT_EQ(v->items()[1].string(), "\xE2\x82\xAC");      // U+20AC euro sign, 3 bytes
  EXPECT_EQ(v->items()[2].string(), "\xF0\x9F\x98\x80");  // U+1F600 from the pair D83D DE00, 4 bytes
  EXPECT_EQ(v->items()[3].string(), "A\n");
  for (const char* bad : {R"(["\ud83d"])", R"(["\ude00"])", R"(["\ud83d\u0041"])", R"(["\u12"])"}) {
    EXPECT_FALSE(parse(bad).has_value()) << bad;
  }
}

TEST(ParseJson, IntegersAreExactBeyondTwoToThe53) {
  // 2^53 + 1 = 9007199254740993 is not a double; integer() must give it exactly.
  const auto v = parse("[9007199254740993, -9223372036854775808, 9223372036854775808, 1.0, 1e3, 42]");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->items()[0].integer(), std::optional<int64_t>(9007199254740993LL));
  EXPECT_EQ(v->items()[1].integer(), std::optional<int64_t>(std::numeric_limits<int64_t>::min()));
  EXPECT_FALSE(v->items()[2].integer().has_value()) << "2^63 is beyond int64";
  EXPECT_FALSE(v->items()[3].integer().has_value()) << "written with a fraction";
  EXPECT_FALSE(v->items()[4].integer().has_value()) << "written with an exponent";
  EXPECT_EQ(v->items()[5].integer(), std::optional<int64_t>(42));
}

// parseJsonStreamingMember: the top-level member's items go to the sink one by one and are not kept;
// a member of the same name deeper down is an ordinary value.
TEST(ParseJsonStreaming, HandsTheItemsOfTheTopLevelMemberToTheSink) {
  const std::string text = R"({"a":1,"items":[{"items":[7]},2,[3]],"b":"x"})";
  std::vector<std::string> seen;
  std::vector<std::size_t> ends;
  JsonParseError error;
  const auto root = parseJsonStreamingMember(
      text, &error, "items", [&](JsonValue&& item, std::size_t index, std::size_t end) {
        seen.push_back(std::to_string(index) + ":" + JsonValue::typeName(item.type()));
        ends.push_back(end);
        return JsonSinkAnswer::Next;
      });
  ASSERT_TRUE(root) << error.message;
  EXPECT_EQ(seen, (std::vector<std::string>{"0:an object", "1:a number", "2:an array"}));
  EXPECT_EQ(ends, (std::vector<std::size_t>{text.find(",2,"), text.find(",[3]"), text.find("]]") + 1}));
  ASSERT_TRUE(root->find("items"));
  EXPECT_TRUE(root->find("items")->isArray());
  EXPECT_TRUE(root->find("items")->items().empty()) << "the items are not kept";
  EXPECT_EQ(root->find("b")->string(), "x");
}

// parseJsonStreamingMembers: several top-level members at once, each item with its member's index; Ignore
// ends the delivery of that member's items only; an empty name matches nothing; a repeated member is
// still an error.
TEST(ParseJsonStreaming, SeveralMembersAreStreamedEachWithItsIndex) {
  const std::string text = R"({"a":[1,2],"":[5],"b":[3,4,5],"c":[6]})";
  std::vector<std::string> seen;
  JsonParseError error;
  const std::vector<std::string_view> members = {"a", "b", ""};
  const auto root = parseJsonStreamingMembers(
      text, &error, members, [&](std::size_t member, JsonValue&& item, std::size_t index, std::size_t) {
        const int number = static_cast<int>(item.number());
        seen.push_back(std::to_string(member) + "/" + std::to_string(index) + "=" + std::to_string(number));
        return member == 1 && index == 1 ? JsonSinkAnswer::Ignore : JsonSinkAnswer::Next;
      });
  ASSERT_TRUE(root) << error.message;
  EXPECT_EQ(seen, (std::vector<std::string>{"0/0=1", "0/1=2", "1/0=3", "1/1=4"}));
  EXPECT_TRUE(root->find("a")->items().empty());
  EXPECT_TRUE(root->find("b")->items().empty());
  EXPECT_EQ(root->find("")->items().size(), 1u) << "an empty name streams nothing";
  EXPECT_EQ(root->find("c")->items().size(), 1u);
  EXPECT_FALSE(parseJsonStreamingMembers(R"({"a":[1],"a":[2]})", &error, members,
                                         [](std::size_t, JsonValue&&, std::size_t, std::size_t) {
                                           return JsonSinkAnswer::Next;
                                         }));
  EXPECT_EQ(error.message, "member \"a\" appears twice");
}

TEST(ParseJsonStreaming, IgnoreStillChecksTheRestAndStopEndsAtOnce) {
  std::size_t calls = 0;
  const auto ignoreAll = [&](JsonValue&&, std::size_t, std::size_t) {
    ++calls;
    return JsonSinkAnswer::Ignore;
  };
  JsonParseError error;
  EXPECT_TRUE(parseJsonStreamingMember(R"({"items":[1,2,3]})", &error, "items", ignoreAll));
  EXPECT_EQ(calls, 1u);
  EXPECT_FALSE(parseJsonStreamingMember(R"({"items":[1,2,3})", &error, "items", ignoreAll));
  EXPECT_FALSE(error.stopped);
  EXPECT_EQ(error.message, "expected ',' or ']' in an array");
  EXPECT_EQ(error.column, 16);

  calls = 0;
  EXPECT_FALSE(parseJsonStreamingMember(R"({"items":[1,2,3]})", &error, "items",
                                        [&](JsonValue&&, std::size_t, std::size_t) {
                                          ++calls;
                                          return JsonSinkAnswer::Stop;
                                        }));
  EXPECT_TRUE(error.stopped);
  EXPECT_EQ(calls, 1u);
  // A member that is not an array, or a document that is not an object, parses as parseJson does.
  const auto notArray = parseJsonStreamingMember(R"({"items":{"x":1}})", &error, "items", ignoreAll);
  ASSERT_TRUE(notArray);
  EXPECT_TRUE(notArray->find("items")->isObject());
  const auto array = parseJsonStreamingMember(R"([{"items":[1]}])", &error, "items", ignoreAll);
  ASSERT_TRUE(array);
  EXPECT_EQ(array->items()[0].find("items")->items().size(), 1u);
}

}  // namespace
}  // namespace ampscope
