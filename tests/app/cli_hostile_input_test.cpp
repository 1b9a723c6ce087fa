// What ampscope-cli does with input a clumsy or hostile user gives it. Expected exit codes are the ones
// app/cli/commands.h documents (1 a runtime failure, 2 a bad argument); /dev/full is the Linux device
// on which every write fails with ENOSPC (null(4)), standing in for a full disk or a closed reader.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli_runner.h"

namespace {

using ampscope::testing::CliResult;
using ampscope::testing::CliRunner;

// Runs ampscope-cli with its stdout redirected as `redirection` says (sh syntax).
CliResult runWithStdout(const std::vector<std::string>& args, const std::string& redirection) {
  std::string command = "exec \"$0\"";
  for (std::size_t i = 0; i < args.size(); ++i) command += " \"$" + std::to_string(i + 1) + "\"";
  command += " " + redirection;
  std::vector<std::string> shellArgs = {"-c", command, AMPSCOPE_CLI_PATH};
  shellArgs.insert(shellArgs.end(), args.begin(), args.end());
  return CliRunner("/bin/sh").setTimeoutSeconds(120).run(shellArgs);
}

CliResult runToFullStdout(const std::vector<std::string>& args) { return runWithStdout(args, ">/dev/full"); }

TEST(CliHostileInput, AFullStdoutIsAFailureWithAMessage) {
  const std::vector<std::vector<std::string>> commands = {
      {"formats"}, {"formats", "--json"}, {"convert", "--json", "1e-8"}, {"convert", "65504"},
      {"train", "--steps", "2", "--quiet"}, {"--version"}};
  for (const auto& args : commands) {
    const CliResult result = runToFullStdout(args);
    EXPECT_EQ(result.exitCode, 1) << args.front() << ": " << result.err;
    // The reason is strerror(ENOSPC) as glibc spells it: the first failed write's errno, not a later one.
    EXPECT_NE(result.err.find("cannot write to standard output: No space left on device"), std::string::npos)
        << result.err;
  }
}

TEST(CliHostileInput, AClosedStdoutIsAFailureThatSaysWhy) {
  // `>&-` closes file descriptor 1, so each write fails with EBADF (write(2)).
  for (const std::vector<std::string>& args : {std::vector<std::string>{"formats"}, {"convert", "--json", "1"}}) {
    const CliResult result = runWithStdout(args, ">&-");
    EXPECT_EQ(result.exitCode, 1) << args.front() << ": " << result.err;
    EXPECT_NE(result.err.find("cannot write to standard output: Bad file descriptor"), std::string::npos)
        << result.err;
  }
}

TEST(CliHostileInput, TheSameRunWithAWritableStdoutSucceeds) {
  // The control for the test above: the exit code 1 comes from /dev/full, not from the arguments.
  EXPECT_EQ(CliRunner().run({"formats", "--json"}).exitCode, 0);
  EXPECT_EQ(CliRunner().setTimeoutSeconds(120).run({"train", "--steps", "2", "--quiet"}).exitCode, 0);
}

TEST(CliHostileInput, ARepeatedFlagIsRefusedByName) {
  struct Case {
    std::vector<std::string> args;
    std::string flag;
  };
  const std::vector<Case> cases = {
      {{"train", "--lr", "0.1", "--lr", "0.2"}, "--lr"},
      {{"train", "--steps", "2", "--steps", "3"}, "--steps"},
      {{"train", "--modes", "fp32", "--modes", "bf16"}, "--modes"},
      {{"train", "--quiet", "--quiet"}, "--quiet"},
      {{"train", "--csv", "a.csv", "--csv", "b.csv"}, "--csv"},
      {{"reproduce", "dir", "--no-reference", "--no-reference"}, "--no-reference"},
      {{"reproduce", "dir", "--seed", "1", "--seed", "2"}, "--seed"},
      {{"convert", "--dtypes", "fp16", "--dtypes", "bf16", "1"}, "--dtypes"},
      {{"formats", "--json", "--json"}, "--json"},
  };
  for (const Case& c : cases) {
    const CliResult result = CliRunner().run(c.args);
    EXPECT_EQ(result.exitCode, 2) << c.flag << ": " << result.err;
    EXPECT_NE(result.err.find("option " + c.flag + " is given more than once"), std::string::npos) << result.err;
  }
}

// A batch whose step would not fit in memory is an input error (exit 2) naming --batch and the estimate,
// before anything is allocated; the model given after the batch is the one judged.
TEST(CliHostileInput, ABatchBeyondTheStepMemoryIsRefusedWithTheEstimate) {
  for (const char* command : {"train", "reproduce"}) {
    std::vector<std::string> args = {command};
    if (std::string(command) == "reproduce") args.push_back(::testing::TempDir() + "ampscope_cli_huge_batch");
    for (const char* arg : {"--batch", "65536", "--model", "tiny-transformer", "--steps", "1"}) args.push_back(arg);
    const CliResult result = CliRunner().setTimeoutSeconds(60).run(args);
    EXPECT_EQ(result.exitCode, 2) << command << ": " << result.err;
    EXPECT_NE(result.err.find("--batch"), std::string::npos) << result.err;
    EXPECT_NE(result.err.find("one step would need about"), std::string::npos) << result.err;
    EXPECT_NE(result.err.find("at most batch"), std::string::npos) << result.err;
  }
}

// The reproduce export holds every step's batch: 10^8 steps of the TinyMLP's 32 examples (520 bytes
// each: 128 float32 inputs and an int64 label) are about 1664 GB, refused as an input error before
// anything is trained or allocated.
TEST(CliHostileInput, AReproduceExportTooLargeToHoldIsRefusedBeforeTraining) {
  const std::string dir = ::testing::TempDir() + "ampscope_cli_huge_export";
  const CliResult result = CliRunner().setTimeoutSeconds(60).run({"reproduce", dir, "--steps", "100000000"});
  EXPECT_EQ(result.exitCode, 2) << result.err;
  EXPECT_NE(result.err.find("--steps: the batches of 100000000 steps (batch 32, 520 bytes an example) would "
                            "need about 1664 GB"),
            std::string::npos)
      << result.err;
  EXPECT_NE(result.err.find("at most 258111 steps fit"), std::string::npos) << result.err;
  EXPECT_EQ(result.out.find("training"), std::string::npos) << result.out;
}

TEST(CliHostileInput, AnEmptyOutputFileNameIsRefused) {
  for (const std::string flag : {"--csv", "--jsonl"}) {
    const CliResult result = CliRunner().run({"train", "--steps", "1", flag, ""});
    EXPECT_EQ(result.exitCode, 2) << result.err;
    EXPECT_NE(result.err.find("option " + flag + " needs a file name"), std::string::npos) << result.err;
  }
}

TEST(CliHostileInput, AnEmptyItemInTheModeListIsRefused) {
  for (const std::string list : {"fp32,", ",fp32", "fp32,,bf16", ""}) {
    const CliResult result = CliRunner().run({"train", "--steps", "1", "--modes", list});
    EXPECT_EQ(result.exitCode, 2) << list;
    EXPECT_NE(result.err.find("--modes"), std::string::npos) << result.err;
  }
}

TEST(CliHostileInput, ALeadingMinusNumberIsAValueEvenWhenItDoesNotParse) {
  // Both are out of what convert reads; the message is the value's, not "unknown option".
  for (const std::string value : {"-1e400", "-0x3c00"}) {
    const CliResult result = CliRunner().run({"convert", value});
    EXPECT_EQ(result.exitCode, 2) << value;
    EXPECT_NE(result.err.find("cannot parse value '" + value + "'"), std::string::npos) << result.err;
    EXPECT_EQ(result.err.find("unknown option"), std::string::npos) << result.err;
  }
}

TEST(CliHostileInput, NanPrintsAsNumberTextSpellsItWhateverItsSign) {
  // 0xfe00 is an FP16 NaN with the sign bit set; printf's %e writes it "-nan".
  const CliResult result = CliRunner().run({"convert", "--pattern-dtype", "fp16", "0xfe00", "nan"});
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_NE(result.out.find("nan"), std::string::npos);
  EXPECT_EQ(result.out.find("-nan"), std::string::npos) << result.out;
}

}  // namespace
