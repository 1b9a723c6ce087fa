// JsonSyntaxChecker (the CLI tests' RFC 8259 grammar check) refuses what is not JSON and accepts what is.
#include "json_syntax_checker.h"

#include <gtest/gtest.h>

namespace ampscope {
namespace {

using testing::JsonSyntaxChecker;

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
