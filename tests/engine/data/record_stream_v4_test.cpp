// Record stream version 4 (docs/record-format.md): a tensor's "role" (gradient, activation,
// activation-gradient, weight) and "rounding-cost" (six formats, every key) read back bit for bit, the
// role is written only where the version 3 default would not give it, damaged values are refused naming
// the field, and a version 3 probe stream, which has neither, still reads with the old meaning.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "ampscope/engine/record_codec.h"
#include "support/record_samples.h"

namespace ampscope {
namespace {

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at == std::string::npos) return text;
  return text.replace(at, from.size(), to);
}

std::vector<FormatCostStats> costs() {
  std::vector<FormatCostStats> out;
  const char* keys[] = {"fp16", "bf16", "fp8-e4m3", "fp8-e5m2", "mxfp8", "nvfp4"};
  for (int i = 0; i < 6; ++i) {
    FormatCostStats c;
    c.format = keys[i];
    c.elements = 100;
    c.changed = 10 + i;
    c.flushed = i;
    c.subnormal = 2 * i;
    c.overflowed = i == 0 ? 1 : 0;
    c.sqnrDb = i == 0 ? -std::numeric_limits<double>::infinity()
                      : (i == 1 ? std::numeric_limits<double>::infinity() : 20.5 + 0.1 * i);
    out.push_back(c);
  }
  return out;
}

ModeStep stepWithRoles() {
  ModeStep s = samples::probeSteps(1)[0];
  s.tensors.clear();
  TensorStats grad{"fc1.weight", true, 64, {}, {}, TensorRole::Gradient, {}};
  grad.roundingCost = costs();
  TensorStats act{"fc1", false, 32, {}, {}, TensorRole::Gradient, {}};
  act.role = TensorRole::Activation;
  act.roundingCost = costs();
  TensorStats actGrad{"fc1", false, 32, {}, {}, TensorRole::Gradient, {}};
  actGrad.role = TensorRole::ActivationGradient;
  TensorStats weight{"fc1.weight", false, 64, {}, {}, TensorRole::Gradient, {}};
  weight.role = TensorRole::Weight;
  s.tensors = {grad, act, actGrad, weight};
  return s;
}

std::string streamOf(const ModeStep& step) {
  std::string text = probeStreamHeader(samples::probeSource(), "ampscope_probe 0.3.0");
  appendRecordStreamLine(text, step);
  return text;
}

TEST(RecordStreamV4, RolesAndRoundingCostsReadBackBitForBit) {
  const ModeStep step = stepWithRoles();
  const std::string text = streamOf(step);
  EXPECT_EQ(text.rfind(R"({"format":"ampscope-records","version":4,)", 0), 0u);
  RecordError error;
  const auto stream = readRecordStream(text, &error);
  ASSERT_TRUE(stream) << error.text();
  ASSERT_EQ(stream->steps.size(), 1u);
  samples::expectSameStep(stream->steps[0], step);
  const auto& t = stream->steps[0].tensors;
  EXPECT_EQ(tensorRole(t[0]), TensorRole::Gradient);
  EXPECT_EQ(tensorRole(t[1]), TensorRole::Activation);
  EXPECT_EQ(tensorRole(t[2]), TensorRole::ActivationGradient);
  EXPECT_EQ(tensorRole(t[3]), TensorRole::Weight);
  EXPECT_EQ(t[1].roundingCost[3].sqnrDb, 20.8);
  // The role is written only for activations and weights (a version 3 reader's defaults give the others).
  EXPECT_NE(text.find(R"("role":"activation")"), std::string::npos) << text;
  EXPECT_NE(text.find(R"("role":"weight")"), std::string::npos) << text;
  EXPECT_EQ(text.find(R"("role":"gradient")"), std::string::npos) << text;
  EXPECT_NE(text.find(R"("rounding-cost":{"fp16":{"elements":100,"changed":10,"flushed":0,"subnormal":0,)"
                      R"("overflowed":1,"sqnr-db":"-inf"},"bf16":{"elements":100,"changed":11,"flushed":1,)"
                      R"("subnormal":2,"overflowed":0,"sqnr-db":"inf"},)"),
            std::string::npos)
      << text;
}

TEST(RecordStreamV4, TheProbeSpellingOfEveryRoleReads) {
  // The probe writes "role" on every tensor, "gradient" and "activation-gradient" included.
  std::string text = streamOf(stepWithRoles());
  text = replaced(text, R"("name":"fc1.weight","is-parameter":true,"numel":64,)",
                  R"("name":"fc1.weight","is-parameter":true,"numel":64,"role":"gradient",)");
  RecordError error;
  const auto stream = readRecordStream(text, &error);
  ASSERT_TRUE(stream) << error.text();
  EXPECT_EQ(stream->steps[0].tensors[0].role, TensorRole::Gradient);
}

TEST(RecordStreamV4, DamagedRolesAndCostsAreRefusedNamingTheField) {
  const std::string text = streamOf(stepWithRoles());
  auto error = [&](const std::string& from, const std::string& to) {
    RecordError e;
    EXPECT_FALSE(readRecordStream(replaced(text, from, to), &e).has_value());
    return e.text();
  };
  EXPECT_EQ(error(R"("role":"activation")", R"("role":"optimizer-state")"),
            "line 2: tensors[1].role: unknown tensor role \"optimizer-state\" (gradient, activation, "
            "activation-gradient, weight)");
  EXPECT_EQ(error(R"("role":"activation")", R"("role":7)"), "line 2: tensors[1].role: expected a string");
  EXPECT_EQ(error(R"("name":"fc1","is-parameter":false,"numel":32,)", R"("name":"fc1","is-parameter":true,"numel":32,)"),
            "line 2: tensors[1].is-parameter: true with role \"activation\" (true only for \"gradient\")");
  EXPECT_EQ(error(R"("sqnr-db":"-inf"},"bf16")", R"("sqnr-db":"nan"},"bf16")"),
            "line 2: tensors[0].rounding-cost.fp16.sqnr-db: expected a number, \"inf\" or \"-inf\"");
  EXPECT_EQ(error(R"("elements":100,"changed":10,)", R"("elements":100,"changed":101,)"),
            "line 2: tensors[0].rounding-cost.fp16.changed: more than the elements (100)");
  EXPECT_EQ(error(R"(,"nvfp4":{"elements":100,"changed":15,"flushed":5,"subnormal":10,"overflowed":0,"sqnr-db":21})",
                  ""),
            "line 2: tensors[0].rounding-cost.nvfp4: missing");
  EXPECT_EQ(error(R"("rounding-cost":{"fp16")", R"("rounding-cost":{"fp4":{},"fp16")"),
            "line 2: tensors[0].rounding-cost.fp4: unknown key");
}

TEST(RecordStreamV4, AVersion3ProbeStreamKeepsItsMeaning) {
  // Version 3 had no role: a parameter's gradient and a tapped activation gradient ("act:" names).
  std::string text = probeStreamHeader(samples::probeSource(), "ampscope_probe 0.2.0");
  text = replaced(text, R"("version":4)", R"("version":3)");
  for (const auto& step : samples::probeSteps(2)) appendRecordStreamLine(text, step);
  RecordError error;
  const auto stream = readRecordStream(text, &error);
  ASSERT_TRUE(stream) << error.text();
  EXPECT_EQ(stream->version, 3);
  bool sawParameter = false, sawOther = false;
  for (const auto& t : stream->steps[0].tensors) {
    EXPECT_TRUE(t.roundingCost.empty());
    EXPECT_EQ(tensorRole(t), t.isParameter ? TensorRole::Gradient : TensorRole::ActivationGradient);
    (t.isParameter ? sawParameter : sawOther) = true;
  }
  EXPECT_TRUE(sawParameter);
}

}  // namespace
}  // namespace ampscope
