// `ampscope-cli plan` and `train --plan-file` through the built CLI: a search that keeps one layer (the
// deep MLP with an outlier feature in fc1's input, FP8 current scaling: docs/precision-plans.md), its plan
// file read back with the plan codec and trained again by `train --plan-file` to the same losses bit for
// bit, a target that needs nothing kept, a search where no plan passes, and bad arguments exiting 2 with a
// message naming the option.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "ampscope/engine/json.h"
#include "ampscope/engine/precision_plan.h"
#include "cli_runner.h"

namespace ampscope {
namespace {

using testing::CliRunner;

std::string tempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("ampscope_plan_test_" + name)).string();
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::vector<std::string> split(const std::string& line, char separator) {
  std::vector<std::string> cells;
  std::stringstream in(line);
  std::string cell;
  while (std::getline(in, cell, separator)) cells.push_back(cell);
  return cells;
}

// The column `name` of a CSV whose first line is its header, per row.
std::vector<std::string> csvColumn(const std::string& text, const std::string& name) {
  std::stringstream in(text);
  std::string line;
  std::getline(in, line);
  const auto header = split(line, ',');
  size_t at = header.size();
  for (size_t i = 0; i < header.size(); ++i) {
    if (header[i] == name) at = i;
  }
  std::vector<std::string> column;
  while (std::getline(in, line)) {
    const auto cells = split(line, ',');
    if (at < cells.size()) column.push_back(cells[at]);
  }
  return column;
}

const std::vector<std::string> kOutlierRun = {"--model", "deep-mlp", "--outlier-factor", "1000000",
                                              "--loss-weight", "0.001", "--steps", "120"};

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

TEST(CliPlan, KeepsTheOutlierLayerAndTrainsThePlanAgainToTheSameLosses) {
  const std::string plan = tempPath("outlier.json");
  const std::string csv = tempPath("outlier.csv");
  std::filesystem::remove(plan);
  std::filesystem::remove(csv);
  const auto result = CliRunner().run(
      with(with({"plan"}, kOutlierRun), {"--target", "fp8-current", "--tolerance", "0.05", "--plan", plan, "--csv", csv}));
  ASSERT_EQ(result.exitCode, 0) << result.err << result.out;
  EXPECT_NE(result.out.find("result: keep fc1 in fp32 (1 of 5 layers), the rest in fp8-current"), std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("uniform fp8-current"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("fc1                   keep: bf16-amp    keep        both keep it higher"),
            std::string::npos)
      << result.out;
  EXPECT_NE(result.err.find("trial fc1 ("), std::string::npos) << result.err;  // progress, one line per trial

  std::string error;
  const auto decoded = decodePrecisionPlan(readFile(plan), &error);
  ASSERT_TRUE(decoded) << error;
  EXPECT_EQ(decoded->source.kind, "plan-search");
  EXPECT_EQ(decoded->target, "fp8-current");
  ASSERT_EQ(decoded->layers.size(), 5u);
  for (const auto& layer : decoded->layers) {
    EXPECT_EQ(layer.keptHigher, layer.layer == "fc1") << layer.layer;
    EXPECT_EQ(layer.mode, layer.layer == "fc1" ? "fp32" : "fp8-current") << layer.layer;
  }
  const std::string curves = readFile(csv);
  EXPECT_EQ(curves.substr(0, curves.find('\n')), "step,fp32,fp8-current,plan");
  const auto planLosses = csvColumn(curves, "plan");
  ASSERT_EQ(planLosses.size(), 120u);

  // train --plan-file adds the plan lane; on the same seed its losses are the search's, bit for bit.
  const std::string trained = tempPath("outlier-train.csv");
  std::filesystem::remove(trained);
  const auto train = CliRunner().run(
      with(with({"train"}, kOutlierRun), {"--modes", "fp32,fp8-current", "--plan-file", plan, "--csv", trained}));
  ASSERT_EQ(train.exitCode, 0) << train.err;
  std::vector<std::string> trainedPlan;
  std::stringstream rows(readFile(trained));
  std::string line;
  std::getline(rows, line);
  while (std::getline(rows, line)) {
    const auto cells = split(line, ',');
    if (cells.size() > 2 && cells[1] == "plan") trainedPlan.push_back(cells[2]);
  }
  ASSERT_EQ(trainedPlan.size(), planLosses.size());
  for (size_t i = 0; i < planLosses.size(); ++i) {
    EXPECT_EQ(std::stod(trainedPlan[i]), std::stod(planLosses[i])) << "step " << i + 1;
  }
}

TEST(CliPlan, ATargetThatTrainsLikeFp32KeepsNothing) {
  const std::string plan = tempPath("nothing.json");
  std::filesystem::remove(plan);
  const auto result = CliRunner().run({"plan", "--model", "tiny-mlp", "--target", "bf16-amp", "--steps", "40",
                                       "--tolerance", "0.5", "--plan", plan, "--json"});
  ASSERT_EQ(result.exitCode, 0) << result.err;
  JsonParseError parseError;
  const auto json = parseJson(result.out, &parseError);
  ASSERT_TRUE(json) << result.out;
  EXPECT_TRUE(json->find("found")->boolValue());
  EXPECT_TRUE(json->find("kept")->items().empty());
  EXPECT_EQ(json->find("trials")->items().size(), 1u);  // the uniform target alone
  EXPECT_EQ(json->find("losses")->find("plan")->items().size(), 40u);
  std::string error;
  const auto decoded = decodePrecisionPlan(readFile(plan), &error);
  ASSERT_TRUE(decoded) << error;
  for (const auto& layer : decoded->layers) EXPECT_FALSE(layer.keptHigher) << layer.layer;
}

// With every layer in BF16 the loss differs from FP32's by more than 1e-9: no plan of this kind exists;
// exit 1, and no plan file is written.
TEST(CliPlan, NoPassingPlanExitsOneAndWritesNoPlan) {
  const std::string plan = tempPath("none.json");
  std::filesystem::remove(plan);
  const auto result = CliRunner().run({"plan", "--model", "tiny-mlp", "--target", "fp16-amp", "--higher", "bf16-amp",
                                       "--steps", "20", "--tolerance", "1e-9", "--plan", plan});
  EXPECT_EQ(result.exitCode, 1) << result.err << result.out;
  EXPECT_NE(result.out.find("no plan found: even with every GEMM layer in bf16-amp"), std::string::npos) << result.out;
  EXPECT_NE(result.err.find("no plan passed; no plan written to"), std::string::npos) << result.err;
  EXPECT_FALSE(std::filesystem::exists(plan));
}

TEST(CliPlan, BadArgumentsExitTwoNamingTheOption) {
  const std::string existing = tempPath("existing.json");
  { std::ofstream(existing) << "{}"; }
  const std::map<std::vector<std::string>, std::string> cases = {
      {{"plan", "--model", "tiny-mlp"}, "option --target is required"},
      {{"plan", "--target", "fp16-pure"}, "option --target: 'fp16-pure' is not a mode a plan can use"},
      {{"plan", "--target", "fp32"}, "option --target: must be a low-precision mode"},
      {{"plan", "--target", "fp16-amp", "--tolerance", "-1"}, "option --tolerance: expected a loss difference > 0"},
      {{"plan", "--target", "fp16-amp", "--window", "0"}, "option --window: must be in [1, steps]"},
      {{"plan", "--target", "fp16-amp", "--higher", "fp16-amp"}, "option --higher: must be a mode a plan can use"},
      {{"plan", "--target", "fp16-amp", "--modes", "fp32"}, "option --modes: plan chooses the modes"},
      {{"plan", "--target", "fp16-amp", "--plan", existing}, "exists (add --force to overwrite it)"},
      {{"plan", "--target", "fp16-amp", "--lr", "-1"}, "--lr"},
      {{"plan", "--target", "fp16-amp", "--frobnicate"}, "unknown option '--frobnicate'"},
      {{"train", "--plan-file", tempPath("missing.json")}, "--plan-file: "},
      {{"train", "--plan-file", existing, "--plan-layers", "fc1=fp32"}, "--plan-file and --plan-layers both set the plan"},
      {{"train", "--plan-layers", "fc1=fp32,fc1=bf16-amp"}, "layer fc1 is named twice"},
  };
  for (const auto& [args, message] : cases) {
    const auto result = CliRunner().run(args);
    EXPECT_EQ(result.exitCode, 2) << args[1] << " " << args.back() << ": " << result.err;
    EXPECT_NE(result.err.find(message), std::string::npos) << result.err;
  }
  // A probe's plan names the probe's layers: none is the deep MLP's.
  const std::string probePlan = tempPath("probe.json");
  PrecisionPlan foreign;
  foreign.source.kind = "probe-stream";
  foreign.source.mode = "fp32";
  foreign.target = "fp16-amp";
  foreign.layers = {{"net.0", "fp32", true, ""}, {"net.2", "fp16-amp", false, ""}};
  ASSERT_TRUE(writePrecisionPlanFile(probePlan, foreign));
  const auto result = CliRunner().run({"train", "--model", "deep-mlp", "--plan-file", probePlan});
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_NE(result.err.find("none of the plan's layers (net.0, net.2) is a layer of deep-mlp"), std::string::npos)
      << result.err;
}

}  // namespace
}  // namespace ampscope
