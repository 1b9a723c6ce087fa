// `ampscope-cli reproduce DIR`: the folder it writes, its exit codes, and run.py run by Debian's
// python3-torch reproducing the CLI's own recorded losses.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include "cli_runner.h"

namespace {

namespace fs = std::filesystem;
using ampscope::testing::CliRunner;

fs::path freshDir(const std::string& name) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("ampscope_cli_reproduce_" + name);
  fs::remove_all(dir);
  return dir;
}

TEST(CliReproduce, WritesScriptWeightsBatchesReadmeAndTheAppsLosses) {
  const fs::path dir = freshDir("layout");
  const auto result = CliRunner().setTimeoutSeconds(300).run(
      {"reproduce", dir.string(), "--steps", "5", "--modes", "fp32,bf16-amp", "--quiet"});
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_TRUE(result.out.empty()) << "--quiet prints nothing: " << result.out;
  for (const char* file : {"run.py", "README.txt", "ampscope_loss.csv", "weights/net.0.weight.npy",
                           "weights/net.2.bias.npy", "batches/inputs.npy", "batches/targets.npy"}) {
    EXPECT_TRUE(fs::exists(dir / file)) << file;
  }
  std::ifstream csv(dir / "ampscope_loss.csv");
  std::string line;
  int rows = -1;  // the header
  while (std::getline(csv, line)) ++rows;
  EXPECT_EQ(rows, 5 * 2) << "one row per step and mode";
}

TEST(CliReproduce, NoReferenceSkipsTrainingAndTheLossFile) {
  const fs::path dir = freshDir("noref");
  const auto result =
      CliRunner().setTimeoutSeconds(120).run({"reproduce", dir.string(), "--steps", "3", "--no-reference"});
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_TRUE(fs::exists(dir / "run.py"));
  EXPECT_FALSE(fs::exists(dir / "ampscope_loss.csv"));
  EXPECT_NE(result.out.find("python3 " + dir.string() + "/run.py"), std::string::npos) << result.out;
}

TEST(CliReproduce, BadArgumentsExitWith2AndNameTheProblem) {
  auto result = CliRunner().run({"reproduce"});
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_NE(result.err.find("no output folder"), std::string::npos) << result.err;
  result = CliRunner().run({"reproduce", freshDir("bad").string(), "--lr", "0"});
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_NE(result.err.find("--lr"), std::string::npos) << result.err;
  result = CliRunner().run({"reproduce", freshDir("bad").string(), "--modes", "fp64"});
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_NE(result.err.find("unknown mode 'fp64'"), std::string::npos) << result.err;
  result = CliRunner().run({"reproduce", "a", "b"});
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_NE(result.err.find("one folder only"), std::string::npos) << result.err;
}

std::string readFile(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A folder holding someone's files: refused with exit 1 (the arguments parse; the folder is the
// problem), naming what it holds and the flag; --force writes beside them and keeps them.
TEST(CliReproduce, AForeignFolderNeedsForceAndKeepsItsFiles) {
  const fs::path dir = freshDir("foreign");
  fs::create_directories(dir);
  std::ofstream(dir / "notes.txt") << "mine";
  auto result = CliRunner().run({"reproduce", dir.string(), "--steps", "2", "--no-reference"});
  EXPECT_EQ(result.exitCode, 1) << result.err;
  EXPECT_NE(result.err.find("the folder is not empty"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("it holds 'notes.txt'; --force writes into it anyway"), std::string::npos)
      << result.err;
  EXPECT_FALSE(fs::exists(dir / "run.py"));
  // The folder is refused before the reference run trains (which would print that it does).
  result = CliRunner().run({"reproduce", dir.string(), "--steps", "2"});
  EXPECT_EQ(result.exitCode, 1) << result.err;
  EXPECT_EQ(result.out.find("training"), std::string::npos) << result.out;
  result = CliRunner().run({"reproduce", dir.string(), "--steps", "2", "--no-reference", "--force", "--quiet"});
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_TRUE(fs::exists(dir / "run.py"));
  EXPECT_EQ(readFile(dir / "notes.txt"), "mine");
  result = CliRunner().run({"reproduce", "/", "--steps", "2", "--no-reference", "--force"});
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_NE(result.err.find("refusing to export into the root"), std::string::npos) << result.err;
  result = CliRunner().run({"reproduce", dir.string(), "--force", "--force"});
  EXPECT_EQ(result.exitCode, 2) << "a repeated flag is refused like every other";
  result = CliRunner().run({"reproduce", "--help"});
  EXPECT_NE(result.out.find("--force"), std::string::npos);
}

// run.py's CONFIG dict shows what the flags set; --no-reference trains nothing, so these stay cheap.
TEST(CliReproduce, SwitchFlagsAndTheDeprecatedSpellingSetTheConfig) {
  const fs::path dir = freshDir("switches");
  auto result = CliRunner().run({"reproduce", dir.string(), "--no-reference", "--quiet"});
  ASSERT_EQ(result.exitCode, 0) << result.err;
  std::string script = readFile(dir / "run.py");
  EXPECT_NE(script.find("'scaler_for_pure_fp16': False"), std::string::npos);
  EXPECT_NE(script.find("'enabled': True}"), std::string::npos);

  result = CliRunner().run({"reproduce", dir.string(), "--no-reference", "--quiet", "--scaler-for-fp16-pure"});
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_NE(readFile(dir / "run.py").find("'scaler_for_pure_fp16': True"), std::string::npos);

  result = CliRunner().run({"reproduce", dir.string(), "--no-reference", "--quiet", "--scaler-for-pure-fp16",
                            "--no-scaler"});
  ASSERT_EQ(result.exitCode, 0) << result.err;
  script = readFile(dir / "run.py");
  EXPECT_NE(script.find("'scaler_for_pure_fp16': True"), std::string::npos);
  EXPECT_NE(script.find("'enabled': False}"), std::string::npos);
}

// One threads bound, [1, 256], for the CLI as for the session and lesson readers (config_schema_test).
TEST(CliReproduce, ThreadsAccepts256AndRefuses300) {
  const fs::path dir = freshDir("threads");
  auto result = CliRunner().run({"reproduce", dir.string(), "--no-reference", "--quiet", "--threads", "256"});
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_NE(readFile(dir / "run.py").find("'threads': 256,"), std::string::npos);
  result = CliRunner().run({"reproduce", dir.string(), "--no-reference", "--threads", "300"});
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_NE(result.err.find("invalid --threads (threads): must be <= 256 (got 300)"), std::string::npos)
      << result.err;
}

TEST(CliReproduce, HelpIsGeneratedFromTheSchemaAndMarksTheOldSpelling) {
  const auto result = CliRunner().run({"reproduce", "--help"});
  EXPECT_EQ(result.exitCode, 0);
  EXPECT_NE(result.out.find("--growth-interval N"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("deprecated spelling of --scaler-for-pure-fp16"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("--no-reference"), std::string::npos) << result.out;
}

TEST(CliReproduce, AnUnwritableFolderExitsWith1) {
  const auto result = CliRunner().run({"reproduce", "/proc/ampscope-no-such-dir", "--no-reference"});
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_NE(result.err.find("/proc/ampscope-no-such-dir"), std::string::npos) << result.err;
}

// A folder with someone's files in it is refused (exit 1, the folder named, the files as they were);
// a folder an earlier export wrote is exported into again.
TEST(CliReproduce, RefusesAForeignNonEmptyFolderButNotItsOwn) {
  const fs::path dir = freshDir("foreign");
  fs::create_directories(dir);
  std::ofstream(dir / "thesis.tex") << "\\chapter{}";
  auto result = CliRunner().run({"reproduce", dir.string(), "--steps", "2", "--no-reference", "--quiet"});
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_NE(result.err.find(dir.string() + ": the folder is not empty"), std::string::npos) << result.err;
  EXPECT_FALSE(fs::exists(dir / "run.py"));
  std::ifstream kept(dir / "thesis.tex");
  std::string text((std::istreambuf_iterator<char>(kept)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "\\chapter{}");

  const fs::path own = freshDir("own");
  for (int round = 0; round < 2; ++round) {
    result = CliRunner().run({"reproduce", own.string(), "--steps", "2", "--no-reference", "--quiet"});
    EXPECT_EQ(result.exitCode, 0) << "round " << round << ": " << result.err;
  }
  EXPECT_TRUE(fs::exists(own / ".ampscope-reproduce"));
}

// The verdict of `mode` in run.py's agreement table ("  fp32             native   identical: ..."): the
// text after the mode and its path, or "" when the table has no such row.
std::string agreementLine(const std::string& out, const std::string& mode) {
  std::istringstream lines(out);
  std::string line;
  bool inTable = false;
  while (std::getline(lines, line)) {
    if (line.rfind("Agreement with AmpScope's losses", 0) == 0) inTable = true;
    if (!inTable || line.rfind("  " + mode + " ", 0) != 0) continue;
    std::istringstream words(line);
    std::string name, path;
    words >> name >> path;
    std::string rest;
    std::getline(words, rest);
    return rest.substr(rest.find_first_not_of(' ') == std::string::npos ? rest.size() : rest.find_first_not_of(' '));
  }
  return "";
}

// The deep-MLP underflow preset (loss weight 1e-5): run.py, executed by Debian's python3-torch (the
// same LibTorch version as the CLI's), says per mode whether its losses agree with the CLI's.
TEST(CliReproduce, RunPyReproducesTheDeepMlpUnderflowRun) {
  CliRunner python("/usr/bin/python3");
  if (python.run({"-c", "import numpy, torch"}).exitCode != 0) {
    GTEST_SKIP() << "/usr/bin/python3 lacks numpy or torch (apt install python3-torch)";
  }
  const fs::path dir = freshDir("deep");
  auto result = CliRunner().setTimeoutSeconds(600).run({"reproduce", dir.string(), "--model", "deep-mlp",
                                                        "--steps", "60", "--modes",
                                                        "fp32,fp16-amp,fp16-amp-scaled,bf16-amp", "--quiet"});
  ASSERT_EQ(result.exitCode, 0) << result.err;
  result = python.setTimeoutSeconds(600).run({(dir / "run.py").string(), "--quiet"});
  ASSERT_EQ(result.exitCode, 0) << result.err;
  for (const char* mode : {"fp32", "fp16-amp", "fp16-amp-scaled", "bf16-amp"}) {
    // Under the same LibTorch, each mode run as AmpScope ran it agrees bit for bit (run.py's agreement
    // table: "  <mode> <native|emulated> identical: all 60 steps bit for bit").
    EXPECT_EQ(agreementLine(result.out, mode).find("identical: all 60 steps bit for bit"), 0u)
        << mode << ": " << agreementLine(result.out, mode) << "\n" << result.out;
  }
}

// The half-vs-autocast lesson's regime: initial weights multiplied by 8, plain SGD. The gain is applied
// once, to the weights the export writes; run.py loads them as they are and must match bit for bit.
TEST(CliReproduce, RunPyReproducesARunWithAnInitialGain) {
  CliRunner python("/usr/bin/python3");
  if (python.run({"-c", "import numpy, torch"}).exitCode != 0) {
    GTEST_SKIP() << "/usr/bin/python3 lacks numpy or torch (apt install python3-torch)";
  }
  const fs::path dir = freshDir("gain");
  auto result = CliRunner().setTimeoutSeconds(600).run(
      {"reproduce", dir.string(), "--steps", "30", "--modes", "fp32,fp16-pure,fp16-amp-scaled", "--optimizer",
       "sgd", "--momentum", "0", "--lr", "1e-4", "--batch", "128", "--init-gain", "8", "--quiet"});
  ASSERT_EQ(result.exitCode, 0) << result.err;
  std::ifstream script(dir / "run.py");
  const std::string text((std::istreambuf_iterator<char>(script)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("'init_gain': 8.0,"), std::string::npos);
  result = python.setTimeoutSeconds(600).run({(dir / "run.py").string(), "--quiet"});
  ASSERT_EQ(result.exitCode, 0) << result.err;
  for (const char* mode : {"fp32", "fp16-pure", "fp16-amp-scaled"}) {
    EXPECT_EQ(agreementLine(result.out, mode).find("identical: all 30 steps bit for bit"), 0u)
        << mode << ": " << agreementLine(result.out, mode) << "\n" << result.out;
  }
}

}  // namespace
