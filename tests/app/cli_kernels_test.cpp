// `ampscope-cli kernels`: the self-check table and the auto paths, as text and JSON; bad flags exit 2
// naming the flag.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <string>

#include "cli_runner.h"
#include "json_syntax_checker.h"

namespace ampscope::testing {
namespace {

TEST(CliKernels, PrintsEveryCheckAndThePathOfEachMode) {
  const CliResult r = CliRunner().setTimeoutSeconds(300).run({"kernels"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  for (const char* kernel : {"bf16-linear: ", "fp16-linear: ", "fp32-linear: ", "fp32-conv1d: ", "amp-unscale: ",
                             "amp-update-scale: ", "float8-e4m3fn-cast: ", "float8-e5m2-cast: "}) {
    EXPECT_NE(r.out.find(kernel), std::string::npos) << kernel << "\n" << r.out;
  }
  EXPECT_NE(r.out.find("Paths with --precision-path auto on tiny-mlp:"), std::string::npos) << r.out;
  for (const char* mode : {"bf16-amp \u00b7 ", "bf16-pure \u00b7 ", "fp16-amp \u00b7 ", "fp16-amp-scaled \u00b7 ",
                           "fp16-pure \u00b7 "}) {
    EXPECT_NE(r.out.find(mode), std::string::npos) << mode << "\n" << r.out;
  }
}

TEST(CliKernels, JsonIsValidAndNamesEachKernel) {
  const CliResult r = CliRunner().setTimeoutSeconds(300).run({"kernels", "--json", "--model", "deep-mlp"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  JsonSyntaxChecker checker;
  EXPECT_TRUE(checker.check(r.out)) << checker.error() << "\n" << r.out;
  EXPECT_NE(r.out.find("\"model\": \"deep-mlp\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"kernel\": \"bf16-linear\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"compared-steps\""), std::string::npos) << r.out;
}

// The first run checks and keeps the table in the cache folder; the next says it used the kept one;
// --recheck runs the checks again.
TEST(CliKernels, TheChecksAreKeptBetweenRunsUntilRecheck) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("ampscope-cli-kernels-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  CliRunner runner;
  runner.setTimeoutSeconds(300).setEnvironment({"AMPSCOPE_CACHE_DIR=" + dir.string()});
  CliResult r = runner.run({"kernels"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("exact reference (run now)"), std::string::npos) << r.out;
  EXPECT_TRUE(fs::exists(dir / "kernel-checks.json"));
  r = runner.run({"kernels", "--json"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("\"checks-from\": \"" + (dir / "kernel-checks.json").string() + "\""), std::string::npos)
      << r.out;
  r = runner.run({"kernels", "--recheck"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("exact reference (run now)"), std::string::npos) << r.out;
  fs::remove_all(dir);
}

TEST(CliKernels, BadFlagsExit2NamingTheFlag) {
  CliResult r = CliRunner().run({"kernels", "--model", "resnet"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("--model: unknown model 'resnet'"), std::string::npos) << r.err;
  r = CliRunner().run({"kernels", "--model"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("--model needs a value"), std::string::npos) << r.err;
  r = CliRunner().run({"kernels", "--fast"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("unexpected argument '--fast'"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace ampscope::testing
