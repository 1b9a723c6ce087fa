// JsonWriter (app/cli/json_writer.h): RFC 8259 output, escaping, the NaN/Inf policy, misuse detection.
#include "json_writer.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>

#include "json_syntax_checker.h"

namespace ampscope {
namespace {

using cli::JsonWriter;
using testing::JsonSyntaxChecker;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(JsonWriter, WritesNestedObjectsAndArraysCompactly) {
  std::ostringstream out;
  JsonWriter json(out);
  json.beginObject()
      .field("name", "fp16")
      .field("bits", 16)
      .field("ok", true)
      .nullField("none")
      .key("list")
      .beginArray()
      .value(1.5)
      .beginObject()
      .endObject()
      .beginArray()
      .endArray()
      .endArray()
      .endObject();
  EXPECT_EQ(out.str(), R"({"name":"fp16","bits":16,"ok":true,"none":null,"list":[1.5,{},[]]})");
  EXPECT_TRUE(json.complete());
}

TEST(JsonWriter, PrettyLayoutIsValidJson) {
  std::ostringstream out;
  JsonWriter json(out, JsonWriter::Layout::Pretty);
  json.beginObject().key("a").beginArray().value(1).value("x").endArray().field("b", -0.0).endObject();
  EXPECT_EQ(out.str(), "{\n  \"a\": [\n    1,\n    \"x\"\n  ],\n  \"b\": -0\n}");
  JsonSyntaxChecker checker;
  EXPECT_TRUE(checker.check(out.str())) << checker.error();
}

TEST(JsonWriter, EscapesQuotesBackslashesAndControlCharacters) {
  EXPECT_EQ(JsonWriter::escape("a\"b\\c\nd\te\x01"), "a\\\"b\\\\c\\nd\\te\\u0001");
  EXPECT_EQ(JsonWriter::escape("µs"), "µs");  // UTF-8 passes through
  std::ostringstream out;
  JsonWriter(out).beginObject().field("k\"", "v\x1f").endObject();
  JsonSyntaxChecker checker;
  EXPECT_TRUE(checker.check(out.str())) << checker.error() << out.str();
}

TEST(JsonWriter, NonFiniteNumbersBecomeStringsOrNull) {
  // JSON has no NaN/Infinity literals (RFC 8259 §6); the default keeps them visible as strings.
  std::ostringstream strings;
  JsonWriter(strings).beginArray().value(kNaN).value(kInf).value(-kInf).endArray();
  EXPECT_EQ(strings.str(), R"(["nan","inf","-inf"])");
  std::ostringstream nulls;
  JsonWriter(nulls, JsonWriter::Layout::Compact, JsonWriter::NonFinite::AsNull)
      .beginArray()
      .value(kNaN)
      .value(-kInf)
      .value(2.0)
      .endArray();
  EXPECT_EQ(nulls.str(), "[null,null,2]");
}

TEST(JsonWriter, DoublesAreShortestAndReadBackExactly) {
  std::ostringstream out;
  JsonWriter(out).beginArray().value(0.1).value(1e-8).value(65504.0).value(5e-324).endArray();
  EXPECT_EQ(out.str(), "[0.1,1e-08,65504,5e-324]");
  std::mt19937_64 rng(3);
  std::uniform_int_distribution<uint64_t> anyBits;
  for (int i = 0; i < 10000; ++i) {
    const uint64_t raw = anyBits(rng);
    double x;
    std::memcpy(&x, &raw, sizeof x);
    if (!std::isfinite(x)) continue;
    std::ostringstream one;
    JsonWriter(one).value(x);
    ASSERT_EQ(std::strtod(one.str().c_str(), nullptr), x) << one.str();
  }
}

TEST(JsonWriter, MisuseThrowsLogicError) {
  std::ostringstream out;
  EXPECT_THROW(JsonWriter(out).beginObject().value(1), std::logic_error);              // value without key
  EXPECT_THROW(JsonWriter(out).beginArray().key("k"), std::logic_error);               // key in an array
  EXPECT_THROW(JsonWriter(out).beginArray().endObject(), std::logic_error);            // wrong closer
  EXPECT_THROW(JsonWriter(out).value(1).value(2), std::logic_error);                   // two top-level values
  EXPECT_THROW(JsonWriter(out).beginObject().key("a").endObject(), std::logic_error);  // dangling key
  EXPECT_FALSE(JsonWriter(out).beginObject().complete());
}

TEST(JsonSyntaxChecker, RejectsMalformedJson) {
  JsonSyntaxChecker checker;
  for (const char* bad : {"", "{", "[1,]", "{\"a\" 1}", "nan", "01", "1.", "\"\\x\"", "[1] [2]", "{'a':1}"}) {
    EXPECT_FALSE(checker.check(bad)) << bad;
  }
  for (const char* good : {"0", "-0.5e+3", "\"\\u00e9\"", "[]", "{}", " {\"a\":[true,false,null]} "}) {
    EXPECT_TRUE(checker.check(good)) << good << ": " << checker.error();
  }
}

}  // namespace
}  // namespace ampscope
