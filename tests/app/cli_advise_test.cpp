// `ampscope-cli advise`: small probe streams and a session written here with the record and session codecs
// (the tensors built as a probe builds them, probe_record_builder.h) go through the built CLI: the table,
// the GradScaler's advice, --plan (read back with the plan codec; an existing file is kept without
// --force), --json, and bad input (a missing, empty, foreign or newer file, bad flag values) exiting 2 with
// a message naming the field; a run too short to judge exits 1 and writes no plan.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ampscope/engine/json.h"
#include "ampscope/engine/precision_plan.h"
#include "ampscope/engine/record_codec.h"
#include "ampscope/engine/session_codec.h"
#include "cli_runner.h"
#include "probe_record_builder.h"

namespace ampscope {
namespace {

using testing::CliRunner;
using testing::tensorOf;

std::string tempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("ampscope_advise_test_" + name)).string();
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

void writeFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

std::string probeStream(int steps, int flushing) {
  StreamSource source;
  source.source = "probe";
  source.run = "advise-test";
  source.runId = "0123456789abcdef";
  source.device = "cpu";
  source.torch = "1.13";
  source.every = 1;
  source.parameters = {"net.0.weight", "net.2.weight"};
  std::string text = probeStreamHeader(source, "advise test");
  for (int i = 1; i <= steps; ++i) appendRecordStreamLine(text, testing::flushingProbeStep(i, flushing));
  return text;
}

TEST(CliAdvise, HealthyStreamGivesAPlanWithNothingKeptHigher) {
  const std::string run = tempPath("healthy.jsonl");
  const std::string plan = tempPath("healthy-plan.json");
  std::filesystem::remove(plan);
  writeFile(run, probeStream(6, 0));
  const auto result = CliRunner().run({"advise", run, "--plan", plan, "--target", "fp16-amp"});
  ASSERT_EQ(result.exitCode, 0) << result.err << result.out;
  EXPECT_NE(result.out.find("judged mode fp32, steps 1-6, 6 instrumented"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("thresholds: judged from 5 instrumented steps; unsafe: flushed > 1%"), std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("not needed"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("keep in higher precision: none"), std::string::npos) << result.out;
  std::string error;
  const auto decoded = decodePrecisionPlan(readFile(plan), &error);
  ASSERT_TRUE(decoded) << error;
  EXPECT_EQ(decoded->source.file, run);
  EXPECT_EQ(decoded->source.kind, "probe-stream");
  EXPECT_EQ(decoded->source.runId, "0123456789abcdef");
  EXPECT_EQ(decoded->target, "fp16-amp");
  ASSERT_EQ(decoded->layers.size(), 2u);
  for (const auto& layer : decoded->layers) {
    EXPECT_EQ(layer.mode, "fp16-amp") << layer.layer;
    EXPECT_FALSE(layer.keptHigher);
  }
}

// 20 of net.2's 100 gradient values flush in FP16 without a scale (20% > 1%): unsafe, a GradScaler is
// needed; 1.5 x 2^-30 needs a scale of 2^6 to reach 2^-24, which the default 2^16 gives at every step.
TEST(CliAdvise, FlushingGradientsNeedAScaler) {
  const std::string run = tempPath("flush.jsonl");
  writeFile(run, probeStream(6, 20));
  const auto result = CliRunner().run({"advise", run, "--target", "fp16-amp"});
  ASSERT_EQ(result.exitCode, 0) << result.err << result.out;
  EXPECT_NE(result.out.find("net.2 gradient fp16: UNSAFE: flushed 20% at step 1 (over a threshold at 6 of 6 steps"),
            std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("  needed: without a scale some layer's gradients flush more than 1%"), std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("need a scale of at least 2^6 (step 1)"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("covers the smallest gradients at every step"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("net.2  fp16-amp-scaled  kept higher"), std::string::npos) << result.out;
  // A stricter threshold passed by flag is used and printed.
  const auto strict = CliRunner().run({"advise", run, "--unsafe-flush-share", "0.5"});
  ASSERT_EQ(strict.exitCode, 0) << strict.err;
  EXPECT_NE(strict.out.find("unsafe: flushed > 50%"), std::string::npos) << strict.out;
  EXPECT_EQ(strict.out.find("UNSAFE:"), std::string::npos) << strict.out;
  EXPECT_NE(strict.out.find("net.2 gradient fp16: caution: flushed 20% at step 1"), std::string::npos) << strict.out;
}

TEST(CliAdvise, JsonIsOneDocumentWithThePlan) {
  const std::string run = tempPath("json.jsonl");
  writeFile(run, probeStream(6, 20));
  const auto result = CliRunner().run({"advise", run, "--json"});
  ASSERT_EQ(result.exitCode, 0) << result.err;
  JsonParseError error;
  const auto doc = parseJson(result.out, &error);
  ASSERT_TRUE(doc) << error.message << "\n" << result.out;
  ASSERT_TRUE(doc->find("grad-scaler"));
  EXPECT_TRUE(doc->find("grad-scaler")->find("needed")->boolValue());
  ASSERT_TRUE(doc->find("plan") && doc->find("plan")->isObject());
  EXPECT_EQ(doc->find("plan")->find("target")->string(), "auto");
  EXPECT_EQ(doc->find("evidence")->items().front().find("verdict")->string(), "ok");
}

TEST(CliAdvise, TooShortToJudgeExits1WithoutAPlan) {
  const std::string run = tempPath("short.jsonl");
  const std::string plan = tempPath("short-plan.json");
  std::filesystem::remove(plan);
  writeFile(run, probeStream(3, 20));
  const auto result = CliRunner().run({"advise", run, "--plan", plan});
  EXPECT_EQ(result.exitCode, 1) << result.err;
  EXPECT_NE(result.out.find("too short to judge: the most instrumented steps of any tensor is 3, at least 5"),
            std::string::npos)
      << result.out;
  EXPECT_FALSE(std::filesystem::exists(plan));
  // The same run judged from 3 steps.
  EXPECT_EQ(CliRunner().run({"advise", run, "--min-steps", "3"}).exitCode, 0);
}

TEST(CliAdvise, AnExistingPlanIsKeptWithoutForce) {
  const std::string run = tempPath("keep.jsonl");
  const std::string plan = tempPath("keep-plan.json");
  writeFile(run, probeStream(6, 0));
  writeFile(plan, "mine");
  const auto refused = CliRunner().run({"advise", run, "--plan", plan});
  EXPECT_EQ(refused.exitCode, 2);
  EXPECT_NE(refused.err.find("option --plan: '" + plan + "' exists (add --force to overwrite it)"), std::string::npos)
      << refused.err;
  EXPECT_EQ(readFile(plan), "mine");
  const auto forced = CliRunner().run({"advise", run, "--plan", plan, "--force"});
  ASSERT_EQ(forced.exitCode, 0) << forced.err;
  std::string error;
  EXPECT_TRUE(decodePrecisionPlan(readFile(plan), &error)) << error;
  // A plan that cannot be written (its folder does not exist) is a failure, not a silent success.
  const auto unwritable = CliRunner().run({"advise", run, "--plan", tempPath("no-such-folder/plan.json")});
  EXPECT_EQ(unwritable.exitCode, 1);
  EXPECT_NE(unwritable.err.find("writing --plan file"), std::string::npos) << unwritable.err;
}

TEST(CliAdvise, ReadsASession) {
  RunConfig config;
  config.modes = {PrecisionMode::FP32};
  std::vector<StepRecord> records;
  for (int i = 1; i <= 6; ++i) {
    ModeStep step = testing::flushingProbeStep(i, 20);
    step.seq = 0;
    records.push_back(StepRecord{i, {step}});
  }
  const std::string run = tempPath("session.ampscope");
  writeFile(run, encodeSession(config, "underflow", records));
  const auto result = CliRunner().run({"advise", run});
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_NE(result.out.find("(session, run underflow): judged mode fp32, steps 1-6"), std::string::npos) << result.out;
  // A session is the engine's: its model's parameters go by the engine's layer names (net.2 is fc2).
  EXPECT_NE(result.out.find("fc2 gradient fp16: UNSAFE"), std::string::npos) << result.out;
  // A session of followed runs only (no engine records): --followed picks one, by number.
  FollowedRun followed;
  followed.source.source = "probe";
  followed.source.run = "followed-probe";
  followed.source.runId = "fedcba9876543210";
  followed.source.every = 1;
  followed.source.device = "cpu";
  followed.source.torch = "1.13";
  followed.target = "run.jsonl";
  for (int i = 1; i <= 6; ++i) followed.steps.push_back(testing::flushingProbeStep(i, 0));
  const std::string followedRun = tempPath("followed.ampscope");
  writeFile(followedRun, encodeSession(config, "", {}, {followed}));
  const auto first = CliRunner().run({"advise", followedRun});
  ASSERT_EQ(first.exitCode, 0) << first.err;
  EXPECT_NE(first.out.find("(session, run followed-probe, run-id fedcba9876543210)"), std::string::npos) << first.out;
  EXPECT_NE(first.out.find("  net.2"), std::string::npos) << first.out;  // a probe's names stay as they are
  const auto second = CliRunner().run({"advise", followedRun, "--followed", "2"});
  EXPECT_EQ(second.exitCode, 2);
  EXPECT_NE(second.err.find("option --followed: the session holds 1 followed runs, not 2"), std::string::npos)
      << second.err;
  const auto noMode = CliRunner().run({"advise", run, "--mode", "bf16-amp"});
  EXPECT_EQ(noMode.exitCode, 2);
  EXPECT_NE(noMode.err.find("option --mode: the run has no bf16-amp records (it has: fp32)"), std::string::npos)
      << noMode.err;
}

// An engine stream of `train --jsonl`: the fp32 mode is judged, and fp8-current's quantised operands (fc1.input,
// ...) and fp32's parameter gradients (net.0.weight, ...) land in the same layer rows (fc1, ...).
TEST(CliAdvise, ReadsAnEngineStreamWithItsLayerNames) {
  const std::string run = tempPath("engine.jsonl");
  std::filesystem::remove(run);
  const auto train = CliRunner().setTimeoutSeconds(300).run(
      {"train", "--modes", "fp32,fp8-current", "--steps", "6", "--instrument-every", "1", "--quiet", "--jsonl", run});
  ASSERT_EQ(train.exitCode, 0) << train.err;
  const auto result = CliRunner().run({"advise", run, "--target", "fp8-current"});
  ASSERT_EQ(result.exitCode, 0) << result.err << result.out;
  EXPECT_NE(result.out.find("(engine-stream, run-id "), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("judged mode fp32, steps 1-6, 6 instrumented"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("run:fp8-current"), std::string::npos) << result.out;
  const auto rows = CliRunner::lines(result.out);
  bool gemmInput = false, gradient = false;
  for (const auto& row : rows) {
    EXPECT_EQ(row.find("  net."), std::string::npos) << row;
    if (row.rfind("  fc1", 0) == 0 && row.find("gemm-input") != std::string::npos) gemmInput = true;
    if (row.rfind("  fc1", 0) == 0 && row.find("gradient") != std::string::npos) gradient = true;
  }
  EXPECT_TRUE(gemmInput && gradient) << result.out;
}

TEST(CliAdvise, BadInputExits2NamingTheField) {
  const std::string good = tempPath("good.jsonl");
  writeFile(good, probeStream(6, 0));
  const std::string empty = tempPath("empty.jsonl");
  writeFile(empty, "\n  \n");
  const std::string foreign = tempPath("foreign.txt");
  writeFile(foreign, "hello, world\n");
  const std::string newer = tempPath("newer.jsonl");
  std::string text = probeStream(6, 0);
  text.replace(text.find("\"version\":4"), 11, "\"version\":99");
  writeFile(newer, text);
  const std::string damaged = tempPath("damaged.jsonl");
  text = probeStream(6, 0);
  text.replace(text.find("\"loss\":"), 7, "\"lost\":");
  writeFile(damaged, text);
  const std::string missing = tempPath("no-such-run.jsonl");
  std::filesystem::remove(missing);

  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"advise"}, "no RUN given"},
      {{"advise", missing}, "RUN: '" + missing + "' does not exist"},
      {{"advise", std::filesystem::temp_directory_path().string()}, "is a folder"},
      {{"advise", empty}, "RUN: '" + empty + "' is empty"},
      {{"advise", foreign}, "is neither a record stream nor a session"},
      {{"advise", newer}, "99"},
      {{"advise", damaged}, "line 2"},
      {{"advise", good, "--min-steps", "0"}, "option --min-steps"},
      {{"advise", good, "--min-steps", "five"}, "--min-steps"},
      {{"advise", good, "--unsafe-flush-share", "1.5"}, "option --unsafe-flush-share: expected a share from 0 to 1"},
      {{"advise", good, "--sqnr-margin-db", "nan"}, "option --sqnr-margin-db"},
      {{"advise", good, "--target", "fp9"}, "option --target: unknown mode 'fp9'"},
      {{"advise", good, "--target", "fp16-pure"}, "option --target: 'fp16-pure' is not a mode a plan advises"},
      {{"advise", good, "--mode", "fp9"}, "option --mode: unknown mode 'fp9'"},
      {{"advise", good, "--plan"}, "option --plan needs a value"},
      {{"advise", good, "--plan", ""}, "--plan"},
      {{"advise", good, "--plan", good}, "is RUN itself"},
      {{"advise", good, "--json", "--json"}, "--json"},
      {{"advise", good, "--colour"}, "unknown option '--colour'"},
      {{"advise", good, good}, "one RUN only"},
  };
  for (const auto& [args, expected] : cases) {
    const auto result = CliRunner().run(args);
    EXPECT_EQ(result.exitCode, 2) << args.back() << "\n" << result.err;
    EXPECT_NE(result.err.find(expected), std::string::npos) << args.back() << ": " << result.err;
    EXPECT_EQ(result.err.find("\n"), result.err.size() - 1) << "one line: " << result.err;
  }
  EXPECT_EQ(readFile(good), probeStream(6, 0));  // --plan naming RUN left it alone
}

TEST(CliAdvise, HelpIsListed) {
  const auto help = CliRunner().run({"advise", "--help"});
  EXPECT_EQ(help.exitCode, 0);
  EXPECT_NE(help.out.find("Usage: ampscope-cli advise RUN"), std::string::npos);
  const auto top = CliRunner().run({"--help"});
  EXPECT_NE(top.out.find("advise RUN"), std::string::npos) << top.out;
}

}  // namespace
}  // namespace ampscope
