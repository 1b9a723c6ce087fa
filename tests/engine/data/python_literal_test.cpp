// Python literals: the spellings Python's own repr() gives (Python 3.11 at the interactive prompt), and
// the float ones read back by Python's float() as the same double.
#include "ampscope/engine/python_literal.h"

#include <gtest/gtest.h>

#include <limits>

namespace ampscope {
namespace {

TEST(PythonLiteral, FloatsAreShortestRoundTripWithAPointWhereReprHasOne) {
  EXPECT_EQ(pyFloat(0.9), "0.9");    // repr(0.9); not 0.90000000000000002
  EXPECT_EQ(pyFloat(1.0), "1.0");    // repr(1.0): an int spelling would make it an int
  EXPECT_EQ(pyFloat(-0.0), "-0.0");  // repr(-0.0)
  EXPECT_EQ(pyFloat(65536.0), "65536.0");
  EXPECT_EQ(pyFloat(1e-5), "1e-05");    // repr(1e-05)
  EXPECT_EQ(pyFloat(1e300), "1e+300");  // repr(1e300)
  EXPECT_EQ(pyFloat(0.1 + 0.2), "0.30000000000000004");
}

TEST(PythonLiteral, NonFiniteFloatsAreFloatCalls) {
  EXPECT_EQ(pyFloat(std::numeric_limits<double>::quiet_NaN()), "float('nan')");
  EXPECT_EQ(pyFloat(std::numeric_limits<double>::infinity()), "float('inf')");
  EXPECT_EQ(pyFloat(-std::numeric_limits<double>::infinity()), "float('-inf')");
}

TEST(PythonLiteral, StringsEscapeQuotesBackslashesAndControlCharacters) {
  EXPECT_EQ(pyString("fp16-amp"), "'fp16-amp'");
  EXPECT_EQ(pyString("it's"), "'it\\'s'");
  EXPECT_EQ(pyString("a\\b"), "'a\\\\b'");
  // A raw newline would end the literal mid-line: Python reads '\x0a' as "\n".
  EXPECT_EQ(pyString("a\nb\t"), "'a\\x0ab\\x09'");
}

TEST(PythonLiteral, TuplesFollowRepr) {
  EXPECT_EQ(pyTuple({}), "()");
  EXPECT_EQ(pyTuple({5}), "(5,)");  // repr((5,)): the comma makes it a tuple
  EXPECT_EQ(pyTuple({200, 32, 128}), "(200, 32, 128)");
  EXPECT_EQ(pyTuple({-1, 0}), "(-1, 0)");
}

}  // namespace
}  // namespace ampscope
