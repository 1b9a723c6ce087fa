// `ampscope-cli train` from the outside: exit codes and messages for bad configurations (a message
// naming the field, exit 2), the unwritable output file (exit 1), one file given for both --csv and
// --jsonl (exit 2), the contents of a short run's summary, CSV and JSONL, and a --jsonl header that
// holds every configuration flag's value.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "ampscope/engine/config_schema.h"
#include "ampscope/engine/record_codec.h"
#include "ampscope/engine/run_config.h"
#include "cli_runner.h"
#include "json_syntax_checker.h"

namespace ampscope::testing {
namespace {

CliResult train(std::vector<std::string> args) {
  args.insert(args.begin(), "train");
  return CliRunner().setTimeoutSeconds(300).run(args);
}

struct BadCase {
  std::vector<std::string> args;
  std::string expectedMessage;
};

TEST(CliTrain, InvalidConfigurationNamesTheFieldAndExits2) {
  const std::vector<BadCase> cases = {
      // "invalid FLAG (KEY): REASON", the bounds from the schema's table (config_schema.cpp).
      {{"--lr", "nan"}, "invalid --lr (lr): must be a finite number in (0, 1000] (got nan)"},
      {{"--lr", "0"}, "invalid --lr (lr): must be > 0 (got 0)"},
      {{"--lr", "fast"}, "invalid --lr (lr): not a number (got 'fast')"},
      {{"--batch", "0"}, "invalid --batch (batch): must be >= 1 (got 0)"},
      {{"--steps", "0"}, "invalid --steps (steps): must be >= 1 (got 0)"},
      {{"--steps", "ten"}, "invalid --steps (steps): not an integer (got 'ten')"},
      {{"--growth-factor", "1"}, "invalid --growth-factor (scaler.growth-factor): must be > 1 (got 1)"},
      {{"--backoff-factor", "1.5"}, "invalid --backoff-factor (scaler.backoff-factor): must be < 1 (got 1.5)"},
      {{"--backoff-factor", "0"}, "invalid --backoff-factor (scaler.backoff-factor): must be > 0 (got 0)"},
      {{"--growth-interval", "0"}, "invalid --growth-interval (scaler.growth-interval): must be >= 1 (got 0)"},
      {{"--modes", "fp32,fp8"}, "invalid --modes (modes): unknown mode 'fp8'"},
      {{"--modes", "fp32,fp32"}, "invalid --modes (modes): mode fp32 is listed twice"},
      {{"--model", "gpt5"}, "invalid --model (model): unknown value 'gpt5'"},
      {{"--loss-weight", "-1"}, "invalid --loss-weight (loss-weight): must be > 0 (got -1)"},
      {{"--clip-order", "sideways"}, "invalid --clip-order (clip.order): unknown value 'sideways'"},
      {{"--clip", "-1"}, "invalid --clip (clip.max-norm): must be > 0 (got -1)"},
      // Values validate() used to accept and LibTorch then refused ("value cannot be converted to type
      // float without overflow"), or that a JSON session cannot hold exactly.
      {{"--lr", "1e38"}, "invalid --lr (lr): must be <= 1000 (got 1e38)"},
      {{"--clip", "1e39"}, "invalid --clip (clip.max-norm): must be <= 1e+30 (got 1e39)"},
      {{"--init-scale", "1e308"}, "invalid --init-scale (scaler.init-scale): must be <= 1e+30 (got 1e308)"},
      {{"--threads", "300"}, "invalid --threads (threads): must be <= 256 (got 300)"},
      {{"--steps", "9223372036854775807"},
       "invalid --steps (steps): must be <= 100000000 (got 9223372036854775807)"},
      {{"--seed", "9007199254740992"}, "invalid --seed (seed): must be <= 9007199254740991 (got 9007199254740992)"},
      {{"--frobnicate"}, "unknown option '--frobnicate'"},
      {{"--steps"}, "option --steps needs a value"},
  };
  for (const auto& c : cases) {
    const CliResult result = train(c.args);
    EXPECT_EQ(result.exitCode, 2) << c.args.front();
    EXPECT_NE(result.err.find("ampscope-cli train: " + c.expectedMessage), std::string::npos)
        << "stderr: " << result.err;
    EXPECT_TRUE(result.out.empty()) << c.args.front();
  }
}

TEST(CliTrain, UnwritableCsvPathFailsWithExit1) {
  const CliResult result = train({"--steps", "1", "--csv", "/nonexistent-dir/run.csv"});
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_NE(result.err.find("cannot write --csv file '/nonexistent-dir/run.csv'"), std::string::npos)
      << result.err;
}

std::vector<std::string> readLines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The chapter's TinyMLP, three modes, 12 steps: one CSV row and one JSONL object per step and mode
// after the record stream's header, the first fp16-amp-scaled step at scale 65536 (GradScaler's default
// init_scale, 2^16), and a summary row per mode.
TEST(CliTrain, ShortRunWritesCsvJsonlAndSummary) {
  const std::string csvPath = ::testing::TempDir() + "ampscope-train-test.csv";
  const std::string jsonlPath = ::testing::TempDir() + "ampscope-train-test.jsonl";
  const CliResult result = train({"--model", "tiny-mlp", "--modes", "fp32,fp16-amp-scaled,bf16-amp",
                                  "--steps", "12", "--instrument-every", "5", "--csv", csvPath,
                                  "--jsonl", jsonlPath});
  ASSERT_EQ(result.exitCode, 0) << result.err;
  for (const char* mode : {"fp32 ", "fp16-amp-scaled ", "bf16-amp "}) {
    EXPECT_NE(result.out.find(std::string("\n") + mode), std::string::npos) << mode;
  }
  EXPECT_NE(result.out.find("Summary"), std::string::npos);
  EXPECT_NE(result.out.find("emulated"), std::string::npos);  // FP16 on CPU LibTorch 1.13
  EXPECT_NE(result.out.find("native"), std::string::npos);

  const auto csv = readLines(csvPath);
  ASSERT_EQ(csv.size(), 1u + 12u * 3u);
  EXPECT_EQ(csv[0].rfind("step,mode,loss,loss_scale,", 0), 0u);
  EXPECT_EQ(csv[2].rfind("1,fp16-amp-scaled,", 0), 0u);

  const auto jsonl = readLines(jsonlPath);
  ASSERT_EQ(jsonl.size(), 1u + 12u * 3u);
  JsonSyntaxChecker checker;
  for (const auto& line : jsonl) EXPECT_TRUE(checker.check(line)) << checker.error() << "\n" << line;
  // The header (docs/record-format.md): format, version 4, the app, the source, then the config with
  // every field.
  EXPECT_EQ(jsonl[0].rfind(R"({"format":"ampscope-records","version":4,"app":"AmpScope )", 0), 0u) << jsonl[0];
  // The run-id: 16 lowercase hex digits after "source" (docs/record-format.md, header keys).
  const std::string idKey = R"(,"source":"engine","run-id":")";
  const std::size_t idAt = jsonl[0].find(idKey);
  ASSERT_NE(idAt, std::string::npos) << jsonl[0];
  const std::string runId = jsonl[0].substr(idAt + idKey.size(), 16);
  EXPECT_EQ(runId.find_first_not_of("0123456789abcdef"), std::string::npos) << runId;
  EXPECT_EQ(jsonl[0].compare(idAt + idKey.size() + 16, 11, R"(","config":)"), 0) << jsonl[0];
  EXPECT_NE(jsonl[0].find(R"("config":{"model":"tiny-mlp",)"), std::string::npos) << jsonl[0];
  EXPECT_NE(jsonl[0].find(R"("fp32","fp16-amp-scaled","bf16-amp")"), std::string::npos) << jsonl[0];
  EXPECT_NE(jsonl[2].find("\"mode\":\"fp16-amp-scaled\""), std::string::npos);
  EXPECT_NE(jsonl[2].find("\"loss-scale\":65536"), std::string::npos);
  EXPECT_NE(jsonl[2].find("\"instrumented\":true"), std::string::npos);  // step 1
  EXPECT_NE(jsonl[2].find("\"bins\":[["), std::string::npos);
  EXPECT_NE(jsonl[2].find("\"name\":\"net.0.weight\""), std::string::npos);
  EXPECT_NE(jsonl[5].find("\"instrumented\":false"), std::string::npos);  // step 2
  // The CSV and the stream hold the same loss, digit for digit (one number formatter for both).
  const std::string csvLoss = csv[2].substr(csv[2].find(',', 2) + 1, csv[2].find(',', csv[2].find(',', 2) + 1) -
                                                                          csv[2].find(',', 2) - 1);
  EXPECT_NE(jsonl[2].find("\"loss\":" + csvLoss + ","), std::string::npos) << csv[2] << "\n" << jsonl[2];
  EXPECT_NE(result.out.find("Memory ledger of each mode's last step (counting allocator)\n"), std::string::npos);
  std::remove(csvPath.c_str());
  std::remove(jsonlPath.c_str());
}

// Every field of the schema given on the command line with a value other than its default (the chosen
// model's preset, and the tiny-mlp preset a run without --model starts from), nothing that makes the run
// long: the --jsonl header's config holds exactly the values the flags gave, field by field.
TEST(CliTrain, TheJsonlHeaderHoldsTheValueOfEveryFlagGiven) {
  // Keys and values as the schema spells them; switches "true" / "false" become --X / --no-X.
  const std::vector<std::pair<std::string, std::string>> given = {
      {"model", "deep-mlp"},
      {"modes", "bf16-amp,fp16-amp-scaled"},
      {"optimizer", "sgd"},
      {"lr", "0.0123"},
      {"momentum", "0.75"},
      {"weight-decay", "0.03125"},
      {"adam-eps", "3e-07"},
      {"batch", "4"},
      {"seed", "12345"},
      {"steps", "2"},
      {"loss-weight", "0.5"},
      {"scaler.init-scale", "1024"},
      {"scaler.growth-factor", "3"},
      {"scaler.backoff-factor", "0.25"},
      {"scaler.growth-interval", "7"},
      {"scaler.enabled", "false"},
      {"scaler-for-pure-fp16", "true"},
      {"clip.order", "before-unscale"},
      {"clip.max-norm", "2.5"},
      {"instrument-every", "3"},
      {"threads", "2"},
      {"precision-path", "emulated"},
      {"init-gain", "2"},
      {"fp8.amax-history-len", "16"},
      {"fp8.margin", "1"},
      {"fp8.scaling", "false"},
      {"fp8.spike-step", "2"},
      {"fp8.spike-factor", "100"},
      {"fp8.outlier-factor", "4"},
      {"rounding-cost", "true"},
      {"plan.default", "bf16-amp"},
      {"plan.layers", "fc1=fp32,fc5=nvfp4"},
  };
  RunConfig expected = presetFor(ModelKind::DeepMLP);
  const RunConfig modelPreset = expected;
  const RunConfig cliDefault = presetFor(ModelKind::TinyMLP);
  std::vector<std::string> args = {"train", "--quiet"};
  for (const ConfigField& field : configFields()) {
    const std::string key(field.key);
    auto it = given.begin();
    while (it != given.end() && it->first != key) ++it;
    ASSERT_NE(it, given.end()) << "the test gives no value for the schema's field " << key;
    const auto error = setFieldText(expected, field, it->second);
    ASSERT_FALSE(error.has_value()) << key << ": " << error->message;
    // A default would pass without the flag doing anything.
    EXPECT_NE(fieldText(expected, field), fieldText(cliDefault, field)) << key << " is tiny-mlp's value";
    if (key != "model") {
      EXPECT_NE(fieldText(expected, field), fieldText(modelPreset, field)) << key << " is deep-mlp's value";
    }
    if (field.type == FieldType::Switch) {
      args.push_back(it->second == "true" ? std::string(field.flag) : "--no-" + std::string(field.flag.substr(2)));
    } else {
      args.insert(args.end(), {std::string(field.flag), it->second});
    }
  }
  const std::string jsonlPath = ::testing::TempDir() + "ampscope-train-every-flag.jsonl";
  args.insert(args.end(), {"--jsonl", jsonlPath});

  const CliResult result = CliRunner().setTimeoutSeconds(300).run(args);
  ASSERT_EQ(result.exitCode, 0) << result.err;
  std::ifstream in(jsonlPath, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  RecordError error;
  const auto stream = readRecordStream(text.str(), &error);
  ASSERT_TRUE(stream.has_value()) << error.text();
  ASSERT_TRUE(stream->config.has_value()) << "no header";
  EXPECT_EQ(stream->steps.size(), 2u * 2u);  // 2 steps of 2 modes
  for (const ConfigField& field : configFields()) {
    EXPECT_EQ(fieldText(*stream->config, field), fieldText(expected, field)) << field.key;
    if (field.type == FieldType::Real) {
      const double a = field.access.getReal(*stream->config);
      const double b = field.access.getReal(expected);
      uint64_t bitsA = 0;
      uint64_t bitsB = 0;
      std::memcpy(&bitsA, &a, sizeof a);
      std::memcpy(&bitsB, &b, sizeof b);
      EXPECT_EQ(bitsA, bitsB) << field.key << ": the double's bits differ";
    }
  }
  std::remove(jsonlPath.c_str());
}

TEST(CliTrain, TheSameFileForCsvAndJsonlIsRefusedWithExit2) {
  const std::string path = ::testing::TempDir() + "ampscope-train-same.out";
  std::remove(path.c_str());
  // The same file under two spellings: the check compares canonical paths, not the text.
  const std::string other = ::testing::TempDir() + "./ampscope-train-same.out";
  const CliResult result = train({"--steps", "1", "--csv", path, "--jsonl", other});
  EXPECT_EQ(result.exitCode, 2) << result.err;
  EXPECT_NE(result.err.find("--csv"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("--jsonl"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("the same file"), std::string::npos) << result.err;
  std::ifstream created(path);
  EXPECT_FALSE(created.good()) << "nothing is written before the refusal";
}

TEST(CliTrain, ADeprecatedFlagSpellingWorksWithAWarning) {
  const CliResult result = train({"--steps", "1", "--quiet", "--modes", "fp16-pure", "--scaler-for-fp16-pure"});
  EXPECT_EQ(result.exitCode, 0) << result.err;
  EXPECT_NE(result.err.find("warning: --scaler-for-fp16-pure is deprecated; use --scaler-for-pure-fp16"),
            std::string::npos)
      << result.err;
}

TEST(CliTrain, HelpListsTheOptions) {
  const CliResult result = train({"--help"});
  EXPECT_EQ(result.exitCode, 0);
  for (const char* flag : {"--model", "--modes", "--loss-weight", "--clip-order", "--jsonl", "--threads",
                           "--[no-]scaler-for-pure-fp16", "--[no-]scaler "}) {
    EXPECT_NE(result.out.find(flag), std::string::npos) << flag;
  }
  // Generated from the schema's table: the bounds and the preset's value are there.
  // (Entries wrap at 100 columns with a 26-column indent; joined back here.)
  std::string joined = result.out;
  for (std::size_t at; (at = joined.find("\n" + std::string(26, ' '))) != std::string::npos;) {
    joined.replace(at, 27, " ");
  }
  EXPECT_NE(joined.find("in [1, 256] threads (default 1)"), std::string::npos) << result.out;
  // The old spelling still works (cli_reproduce_test) and is marked.
  EXPECT_NE(result.out.find("--scaler-for-fp16-pure  deprecated spelling of --scaler-for-pure-fp16"),
            std::string::npos)
      << result.out;
}

}  // namespace
}  // namespace ampscope::testing
