// The probe's rounding costs against the engine's (rounding_cost.h), bit for bit: for every gradient a
// probed training script saved (DIR/grads, see probe_cross_check_test.cpp) the stream's "rounding-cost"
// must equal roundingCosts() of those values, and so must the probe's costs of the edge tensors in
// DIR/rounding (ties, flush and overflow thresholds, NaN blocks; tests/probe/train_with_probe.py): every
// count and every SQNR, compared as doubles with ==. The probe computes them with whole-tensor torch
// operations on float32 bit patterns, the engine with number_format's rounding, element by element.
// The directory comes from AMPSCOPE_PROBE_RUN_DIR; without it the test skips.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "ampscope/engine/json.h"
#include "ampscope/engine/record_codec.h"
#include "ampscope/engine/rounding_cost.h"
#include "support/npy_reader.h"

namespace ampscope {
namespace {

std::string readText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::string runDir() {
  const char* dir = std::getenv("AMPSCOPE_PROBE_RUN_DIR");
  return dir == nullptr ? std::string() : std::string(dir);
}

std::array<RoundingCost, kCostFormatCount> engineCosts(const std::string& path) {
  testing::NpyFloat32 npy;
  std::string error;
  EXPECT_TRUE(testing::readNpyFloat32(path, npy, &error)) << path << ": " << error;
  return roundingCosts(npy.values.data(), static_cast<int64_t>(npy.values.size()));
}

void expectSame(const std::vector<FormatCostStats>& probe, const std::array<RoundingCost, kCostFormatCount>& engine,
                const std::string& what) {
  ASSERT_EQ(probe.size(), engine.size()) << what << ": the stream has no rounding-cost";
  for (size_t i = 0; i < engine.size(); ++i) {
    const std::string where = what + " " + costFormatKey(allCostFormats()[i]);
    EXPECT_EQ(probe[i].format, costFormatKey(allCostFormats()[i])) << where;
    EXPECT_EQ(probe[i].elements, engine[i].elements) << where;
    EXPECT_EQ(probe[i].changed, engine[i].changed) << where;
    EXPECT_EQ(probe[i].flushed, engine[i].flushed) << where;
    EXPECT_EQ(probe[i].subnormal, engine[i].subnormal) << where;
    EXPECT_EQ(probe[i].overflowed, engine[i].overflowed) << where;
    EXPECT_EQ(probe[i].sqnrDb, engine[i].sqnrDb()) << where;  // the same double, not a near one
  }
}

// A manifest's "rounding-cost" object, read by the record codec's rules (through a one-tensor step).
std::vector<FormatCostStats> costOf(const JsonValue& cost) {
  std::vector<FormatCostStats> out;
  for (size_t i = 0; i < kCostFormatCount; ++i) {
    const JsonValue* f = cost.find(costFormatKey(allCostFormats()[i]));
    if (f == nullptr) return {};
    FormatCostStats c;
    c.format = costFormatKey(allCostFormats()[i]);
    c.elements = f->find("elements")->integer().value_or(-1);
    c.changed = f->find("changed")->integer().value_or(-1);
    c.flushed = f->find("flushed")->integer().value_or(-1);
    c.subnormal = f->find("subnormal")->integer().value_or(-1);
    c.overflowed = f->find("overflowed")->integer().value_or(-1);
    const JsonValue* sqnr = f->find("sqnr-db");
    if (sqnr->isString()) {
      c.sqnrDb = sqnr->string() == "inf" ? INFINITY : (sqnr->string() == "-inf" ? -INFINITY : NAN);
    } else {
      c.sqnrDb = sqnr->number();
    }
    out.push_back(c);
  }
  return out;
}

TEST(ProbeRoundingCrossCheck, TheStreamsGradientCostsAreTheEngines) {
  const std::string dir = runDir();
  if (dir.empty()) GTEST_SKIP() << "AMPSCOPE_PROBE_RUN_DIR is not set (the probe's training script writes it)";
  RecordError streamError;
  const auto stream = readRecordStream(readText(dir + "/stream.jsonl"), &streamError);
  ASSERT_TRUE(stream) << dir << "/stream.jsonl: " << streamError.text();
  JsonParseError parseError;
  const auto manifest = parseJson(readText(dir + "/grads/manifest.json"), &parseError);
  ASSERT_TRUE(manifest && manifest->find("steps")) << parseError.message;
  std::map<int64_t, const ModeStep*> byStep;
  for (const auto& s : stream->steps) byStep[s.step] = &s;
  int checked = 0;
  for (const auto& entry : manifest->find("steps")->items()) {
    const int64_t step = entry.find("step")->integer().value_or(-1);
    ASSERT_TRUE(byStep.count(step)) << "step " << step;
    for (const auto& tensor : entry.find("tensors")->items()) {
      const std::string name = tensor.find("name")->string();
      const TensorStats* stats = nullptr;
      for (const auto& t : byStep[step]->tensors) {
        if (t.name == name && tensorRole(t) == TensorRole::Gradient) stats = &t;
      }
      ASSERT_NE(stats, nullptr) << "step " << step << " " << name;
      expectSame(stats->roundingCost, engineCosts(dir + "/grads/" + tensor.find("file")->string()),
                 "step " + std::to_string(step) + " " + name);
      ++checked;
    }
  }
  EXPECT_GT(checked, 0);
}

TEST(ProbeRoundingCrossCheck, TheProbesEdgeTensorCostsAreTheEngines) {
  const std::string dir = runDir();
  if (dir.empty()) GTEST_SKIP() << "AMPSCOPE_PROBE_RUN_DIR is not set (the probe's training script writes it)";
  JsonParseError parseError;
  const auto manifest = parseJson(readText(dir + "/rounding/manifest.json"), &parseError);
  ASSERT_TRUE(manifest && manifest->find("tensors")) << parseError.message;
  int checked = 0, nonTrivial = 0;
  for (const auto& tensor : manifest->find("tensors")->items()) {
    const std::string name = tensor.find("name")->string();
    const auto engine = engineCosts(dir + "/rounding/" + tensor.find("file")->string());
    expectSame(costOf(*tensor.find("rounding-cost")), engine, name);
    for (const auto& c : engine) nonTrivial += std::isfinite(c.sqnrDb()) && c.changed > 0 ? 1 : 0;
    ++checked;
  }
  EXPECT_GE(checked, 10);
  EXPECT_GT(nonTrivial, 30);  // the edges really round: not a comparison of +inf with +inf
}

}  // namespace
}  // namespace ampscope
