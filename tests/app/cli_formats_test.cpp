// `ampscope-cli formats` and `ampscope-cli convert`, run as a user would run them. Expected numbers come
// from the chapter (section 1 torch.finfo table, 2 memory, 5 underflow table) and IEEE 754-2019.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.h"
#include "json_syntax_checker.h"

namespace ampscope {
namespace {

using testing::CliResult;
using testing::CliRunner;
using testing::JsonSyntaxChecker;

CliResult cli(const std::vector<std::string>& args) { return CliRunner().run(args); }

std::vector<std::string> tokens(const std::string& line) {
  std::istringstream stream(line);
  std::vector<std::string> result;
  for (std::string token; stream >> token;) result.push_back(token);
  return result;
}

// The whitespace-separated fields of the first line whose first field is `first` (after `from`).
std::vector<std::string> rowStartingWith(const std::string& text, const std::string& first,
                                         std::size_t* from = nullptr) {
  const std::vector<std::string> lines = CliRunner::lines(text);
  for (std::size_t i = from ? *from : 0; i < lines.size(); ++i) {
    const std::vector<std::string> fields = tokens(lines[i]);
    if (!fields.empty() && fields[0] == first) {
      if (from) *from = i + 1;
      return fields;
    }
  }
  return {};
}

void expectValidJson(const std::string& text) {
  JsonSyntaxChecker checker;
  EXPECT_TRUE(checker.check(text)) << checker.error() << "\n" << text;
}

TEST(CliFormats, PrintsTheChaptersFinfoNumbers) {
  const CliResult r = cli({"formats"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  // The chapter, section 1: min, max, eps as torch.finfo prints them (%e); then tiny and the smallest
  // subnormal, which the chapter does not print (IEEE 754-2019: 2^(1-bias), 2^(1-bias-mantissa_bits)).
  struct Row {
    const char *dtype, *torch, *bits, *exponent, *mantissa, *bias, *min, *max, *eps;
  };
  const Row rows[] = {
      {"FP64", "float64", "64", "11", "52", "1023", "-1.797693e+308", "1.797693e+308", "2.220446e-16"},
      {"FP32", "float32", "32", "8", "23", "127", "-3.402823e+38", "3.402823e+38", "1.192093e-07"},
      {"FP16", "float16", "16", "5", "10", "15", "-6.550400e+04", "6.550400e+04", "9.765625e-04"},
      {"BF16", "bfloat16", "16", "8", "7", "127", "-3.389531e+38", "3.389531e+38", "7.812500e-03"}};
  for (const Row& row : rows) {
    const std::vector<std::string> f = rowStartingWith(r.out, row.dtype);
    ASSERT_GE(f.size(), 12u) << row.dtype << "\n" << r.out;
    EXPECT_EQ(f[1], row.torch);
    EXPECT_EQ(f[2], row.bits);
    EXPECT_EQ(f[3], row.exponent);
    EXPECT_EQ(f[4], row.mantissa);
    EXPECT_EQ(f[5], row.bias);
    EXPECT_EQ(f[6], row.min);
    EXPECT_EQ(f[7], row.max);
    EXPECT_EQ(f[8], row.eps);
  }
  const std::vector<std::string> fp16 = rowStartingWith(r.out, "FP16");
  EXPECT_EQ(fp16[9], "6.103516e-05");
  EXPECT_EQ(fp16[10], "5.960464e-08");
  const std::vector<std::string> bf16 = rowStartingWith(r.out, "BF16");
  EXPECT_EQ(bf16[9], "1.175494e-38");
  EXPECT_EQ(bf16[10], "9.183550e-41");
  // The rest of the formats are listed too (OCP FP8: E4M3FN max 448, E5M2 max 57344).
  EXPECT_NE(r.out.find("TF32"), std::string::npos);
  EXPECT_NE(r.out.find("4.480000e+02"), std::string::npos);
  EXPECT_NE(r.out.find("5.734400e+04"), std::string::npos);
}

TEST(CliFormats, ElementsAddsTheChaptersMemoryTable) {
  // The chapter, section 2: 1e9 elements are 7.4506 / 3.7253 / 1.8626 / 1.8626 GiB.
  const CliResult r = cli({"formats", "--dtypes", "fp64,fp32,fp16,bf16", "--elements", "1e9"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  std::size_t from = 0;
  rowStartingWith(r.out, "Memory", &from);
  const char* expected[][2] = {
      {"FP64", "7.4506"}, {"FP32", "3.7253"}, {"FP16", "1.8626"}, {"BF16", "1.8626"}};
  for (const auto& row : expected) {
    const std::vector<std::string> f = rowStartingWith(r.out, row[0], &from);
    ASSERT_EQ(f.size(), 4u) << r.out;
    EXPECT_EQ(f[3], row[1]);
  }
}

TEST(CliFormats, JsonListsEveryDtypeAndIsWellFormed) {
  const CliResult r = cli({"formats", "--json"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  expectValidJson(r.out);
  for (const char* name : {"FP64", "FP32", "TF32", "FP16", "BF16", "FP8 E4M3FN", "FP8 E5M2"}) {
    EXPECT_NE(r.out.find("\"dtype\": \"" + std::string(name) + "\""), std::string::npos) << name;
  }
  EXPECT_NE(r.out.find("\"max\": 65504"), std::string::npos);
  EXPECT_NE(r.out.find("\"smallest_subnormal\": 5.960464477539063e-08"), std::string::npos);
}

TEST(CliFormats, BadArgumentsExitWithUsageError) {
  for (const std::vector<std::string>& args : {std::vector<std::string>{"formats", "--bogus"},
                                               {"formats", "extra"},
                                               {"formats", "--dtypes", "fp12"},
                                               {"formats", "--elements", "many"},
                                               {"formats", "--dtypes"}}) {
    const CliResult r = cli(args);
    EXPECT_EQ(r.exitCode, 2) << args.back();
    EXPECT_NE(r.err.find("ampscope-cli formats:"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty());
  }
}

TEST(CliFormats, HelpDescribesTheOptions) {
  const CliResult r = cli({"formats", "--help"});
  EXPECT_EQ(r.exitCode, 0);
  EXPECT_NE(r.out.find("Usage: ampscope-cli formats"), std::string::npos);
  EXPECT_NE(r.out.find("--json"), std::string::npos);
}

TEST(CliConvert, ReproducesTheChaptersUnderflowTable) {
  // The chapter, section 5: [1e-2, 1e-4, 1e-6, 1e-7, 1e-8, 1e-9] in FP16 and BF16, printed with %.4e.
  const CliResult r =
      cli({"convert", "--dtypes", "fp16,bf16", "1e-2", "1e-4", "1e-6", "1e-7", "1e-8", "1e-9"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const char* fp16[] = {"1.0002e-02", "1.0002e-04", "1.0133e-06", "1.1921e-07", "0.0000e+00", "0.0000e+00"};
  const char* bf16[] = {"1.0010e-02", "1.0014e-04", "9.9838e-07", "1.0012e-07", "1.0012e-08", "9.9681e-10"};
  std::size_t from = 0;
  for (int i = 0; i < 6; ++i) {
    // Fields: dtype, sign, exponent, mantissa, hex, stored (%.4e), stored (%.17g), abs, rel, class, flags.
    const std::vector<std::string> half = rowStartingWith(r.out, "FP16", &from);
    const std::vector<std::string> brain = rowStartingWith(r.out, "BF16", &from);
    ASSERT_EQ(half.size(), 11u) << r.out;
    ASSERT_EQ(brain.size(), 11u) << r.out;
    EXPECT_EQ(half[5], fp16[i]);
    EXPECT_EQ(brain[5], bf16[i]);
    EXPECT_EQ(half[10], i >= 4 ? "flushed-to-zero" : (i >= 2 ? "subnormal" : "-")) << i;
    EXPECT_EQ(brain[9], "normal");
  }
}

TEST(CliConvert, ShowsBitsErrorsAndFlags) {
  const CliResult r = cli({"convert", "--dtypes", "fp16", "0.1", "65520", "-0"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  std::size_t from = 0;
  // 0.1 -> 0x2e66 = 0.0999755859375 (IEEE RNE), error 2.44140625e-05 = 2.4414e-05.
  const std::vector<std::string> tenth = rowStartingWith(r.out, "FP16", &from);
  ASSERT_EQ(tenth.size(), 11u) << r.out;
  EXPECT_EQ(tenth[1] + tenth[2] + tenth[3], "0010111001100110");
  EXPECT_EQ(tenth[4], "0x2e66");
  EXPECT_EQ(tenth[6], "0.0999755859375");
  EXPECT_EQ(tenth[7], "2.4414e-05");
  EXPECT_EQ(tenth[8], "2.4414e-04");
  // 65520 is the tie between 65504 and 2^16; ties-to-even goes up, so it overflows to inf.
  const std::vector<std::string> big = rowStartingWith(r.out, "FP16", &from);
  EXPECT_EQ(big[4], "0x7c00");
  EXPECT_EQ(big[9], "inf");
  EXPECT_EQ(big[10], "overflowed");
  const std::vector<std::string> zero = rowStartingWith(r.out, "FP16", &from);
  EXPECT_EQ(zero[4], "0x8000");
  EXPECT_EQ(zero[10], "exact");
}

TEST(CliConvert, BitPatternsAreReadInThePatternDtype) {
  const CliResult asHalf = cli({"convert", "--dtypes", "fp16,bf16", "0x3c00"});
  ASSERT_EQ(asHalf.exitCode, 0) << asHalf.err;
  EXPECT_EQ(rowStartingWith(asHalf.out, "FP16")[5], "1.0000e+00");
  EXPECT_EQ(rowStartingWith(asHalf.out, "BF16")[4], "0x3f80");
  const CliResult asBf16 = cli({"convert", "--pattern-dtype", "bf16", "--dtypes", "bf16", "0x3c00"});
  ASSERT_EQ(asBf16.exitCode, 0) << asBf16.err;
  EXPECT_EQ(rowStartingWith(asBf16.out, "BF16")[5], "7.8125e-03");
}

TEST(CliConvert, NegativeNumbersAreValuesNotOptions) {
  const CliResult r = cli({"convert", "--dtypes", "fp16", "-1e-8", "-inf", "--", "-2"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  std::size_t from = 0;
  EXPECT_EQ(rowStartingWith(r.out, "FP16", &from)[4], "0x8000");
  EXPECT_EQ(rowStartingWith(r.out, "FP16", &from)[4], "0xfc00");
  EXPECT_EQ(rowStartingWith(r.out, "FP16", &from)[4], "0xc000");
}

TEST(CliConvert, UnparsableValueIsNamedAndExitsWith2) {
  struct Case {
    const char* value;
    const char* reason;
  };
  const Case cases[] = {{"1e-8x", "unexpected 'x'"},
                        {"", "empty value"},
                        {"0xZZ", "not a hexadecimal digit"},
                        {"0x1ffff", "wider than FP16's 16 bits"},
                        {"ten", "not a number"}};
  for (const Case& c : cases) {
    const CliResult r = cli({"convert", "1", c.value});
    EXPECT_EQ(r.exitCode, 2) << c.value;
    EXPECT_NE(r.err.find("ampscope-cli convert: cannot parse value '" + std::string(c.value) + "'"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find(c.reason), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << "nothing is printed before every value parsed";
  }
}

TEST(CliConvert, BadOptionsExitWith2) {
  for (const std::vector<std::string>& args : {std::vector<std::string>{"convert", "--bogus", "1"},
                                               {"convert"},
                                               {"convert", "--dtypes", "fp12", "1"},
                                               {"convert", "--pattern-dtype", "int8", "0x1"},
                                               {"convert", "--elements", "5", "1"}}) {
    const CliResult r = cli(args);
    EXPECT_EQ(r.exitCode, 2) << args.size();
    EXPECT_NE(r.err.find("ampscope-cli convert:"), std::string::npos) << r.err;
  }
}

TEST(CliConvert, JsonIsWellFormedAndKeepsNanAndInf) {
  const CliResult r = cli({"convert", "--json", "1e-8", "nan", "-inf", "65520", "0x7c01"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  expectValidJson(r.out);
  EXPECT_NE(r.out.find("\"flushed_to_zero\": true"), std::string::npos);
  EXPECT_NE(r.out.find("\"value\": \"nan\""), std::string::npos);
  EXPECT_NE(r.out.find("\"stored\": \"-inf\""), std::string::npos);
  EXPECT_NE(r.out.find("\"overflowed\": true"), std::string::npos);
  EXPECT_NE(r.out.find("\"is_bit_pattern\": true"), std::string::npos);
  EXPECT_NE(r.out.find("\"bits_hex\": \"0x7e00\""), std::string::npos);  // FP16 NaN, quietened
}

TEST(CliConvert, HelpDescribesValuesAndExitCodes) {
  const CliResult r = cli({"convert", "--help"});
  EXPECT_EQ(r.exitCode, 0);
  EXPECT_NE(r.out.find("Usage: ampscope-cli convert"), std::string::npos);
  EXPECT_NE(r.out.find("0x3c00"), std::string::npos);
  EXPECT_NE(r.out.find("Exit status"), std::string::npos);
}

TEST(Cli, VersionHelpAndUnknownCommand) {
  const CliResult version = cli({"--version"});
  EXPECT_EQ(version.exitCode, 0);
  EXPECT_EQ(version.out.rfind("ampscope-cli ", 0), 0u) << version.out;
  EXPECT_NE(version.out.find("LibTorch"), std::string::npos);
  const CliResult help = cli({"--help"});
  EXPECT_EQ(help.exitCode, 0);
  EXPECT_NE(help.out.find("convert"), std::string::npos);
  const CliResult unknown = cli({"frobnicate"});
  EXPECT_EQ(unknown.exitCode, 2);
  EXPECT_NE(unknown.err.find("unknown command 'frobnicate'"), std::string::npos);
}

}  // namespace
TEST(CliConvert, ShowsSaturatingFp8AndFp4AndPyTorchsResult) {
  // OFP8 v1.0: E4M3 max 448 (overflow is NaN), E5M2 max 57344 (overflow is inf); OCP MX v1.0: E2M1 max 6,
  // no overflow encoding. 65519.99999 -> 65520 as float32, the FP16 overflow tie: inf in PyTorch.
  const CliResult r = cli({"convert", "--dtypes", "fp16,e4m3fn,e5m2,fp4", "65519.99999"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  std::size_t from = 0;
  EXPECT_EQ(rowStartingWith(r.out, "FP16", &from)[4], "0x7bff");
  const std::vector<std::string> e4 = rowStartingWith(r.out, "satfinite", &from);
  ASSERT_EQ(e4.size(), 6u) << r.out;
  EXPECT_EQ(e4[3], "0x7e");
  EXPECT_EQ(e4[4], "4.4800e+02");
  EXPECT_EQ(e4[5], "saturated");
  EXPECT_EQ(rowStartingWith(r.out, "satfinite", &from)[4], "5.7344e+04");
  EXPECT_EQ(rowStartingWith(r.out, "satfinite", &from)[4], "6.0000e+00");
  EXPECT_NE(r.out.find("pytorch FP16: 0x7c00 inf -- PyTorch rounds to float32 first: 65519.99999 -> 65520 "
                       "(float32) -> inf (ties to even at the overflow threshold)"),
            std::string::npos)
      << r.out;
  const CliResult json = cli({"convert", "--json", "--dtypes", "fp16,e4m3fn,e8m0", "65519.99999", "0"});
  ASSERT_EQ(json.exitCode, 0) << json.err;
  expectValidJson(json.out);
  EXPECT_NE(json.out.find("\"reason\": \"PyTorch rounds to float32 first"), std::string::npos) << json.out;
  EXPECT_NE(json.out.find("\"no_encoding\": true"), std::string::npos);  // E8M0 has no zero
}

TEST(CliFormats, ListsFp4AndE8M0WithHalfAByteForFp4) {
  const CliResult r = cli({"formats", "--dtypes", "float4_e2m1fn_x2,float8_e8m0fnu", "--elements", "3"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const std::vector<std::string> fp4 = rowStartingWith(r.out, "FP4");
  ASSERT_GE(fp4.size(), 9u) << r.out;
  EXPECT_EQ(fp4[8], "6.000000e+00");  // OCP MX v1.0 section 5.3.3: max 6
  std::size_t from = 0;
  rowStartingWith(r.out, "Memory", &from);
  const std::vector<std::string> memory = rowStartingWith(r.out, "FP4", &from);
  ASSERT_EQ(memory.size(), 5u) << r.out;
  EXPECT_EQ(memory[2], "0.5");
  EXPECT_EQ(memory[3], "2");  // three elements: one full byte and half of another
  const CliResult bad = cli({"convert", "--dtypes", "fp4,e9m0", "1"});
  EXPECT_EQ(bad.exitCode, 2);
  EXPECT_NE(bad.err.find("unknown dtype 'e9m0'"), std::string::npos) << bad.err;
}

}  // namespace ampscope
