// The probe cross-check: a training script instrumented with the Python probe wrote its record stream
// and, for every instrumented step, each gradient exactly as the probe saw it (NPY '<f4', C order) plus
// the float32 multiplier of the unscaled histogram (DIR/grads/manifest.json). Building the histograms of
// those gradients with the engine's own builder (scaled: multiplier 1; unscaled: the inv-scale) must
// give the stream's counts exactly: every exponent bin, zero, inf, NaN, the target overlays and the four
// formats' range counts. The directory comes from AMPSCOPE_PROBE_RUN_DIR; without it the test skips.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "ampscope/engine/json.h"
#include "ampscope/engine/record_codec.h"
#include "exponent_histogram_builder.h"
#include "support/npy_reader.h"
#include "support/record_samples.h"

namespace ampscope::detail {
namespace {

std::string readText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// The overlays' format: BF16 for the bf16 modes, FP16 otherwise (fp32 included).
LowFormat targetOf(PrecisionMode mode) {
  return mode == PrecisionMode::BF16Amp || mode == PrecisionMode::BF16Pure ? LowFormat::BF16 : LowFormat::FP16;
}

TEST(ProbeCrossCheck, EngineHistogramsEqualTheProbeStreamCountForCount) {
  const char* dirEnv = std::getenv("AMPSCOPE_PROBE_RUN_DIR");
  if (dirEnv == nullptr || *dirEnv == '\0') {
    GTEST_SKIP() << "AMPSCOPE_PROBE_RUN_DIR is not set (the probe's training script writes the directory)";
  }
  const std::string dir = dirEnv;
  RecordError streamError;
  const auto stream = readRecordStream(readText(dir + "/stream.jsonl"), &streamError);
  ASSERT_TRUE(stream) << dir << "/stream.jsonl: " << streamError.text();
  EXPECT_EQ(stream->source.source, "probe");

  JsonParseError parseError;
  const auto manifest = parseJson(readText(dir + "/grads/manifest.json"), &parseError);
  ASSERT_TRUE(manifest && manifest->isObject()) << dir << "/grads/manifest.json: " << parseError.where() << " "
                                                << parseError.message;
  const JsonValue* steps = manifest->find("steps");
  ASSERT_TRUE(steps && steps->isArray() && !steps->items().empty()) << "manifest: no \"steps\"";

  std::map<int64_t, const ModeStep*> byStep;
  for (const auto& s : stream->steps) byStep[s.step] = &s;
  int64_t tensorsChecked = 0;
  for (const auto& entry : steps->items()) {
    const JsonValue* stepValue = entry.find("step");
    const JsonValue* invScaleValue = entry.find("inv-scale");
    const JsonValue* tensors = entry.find("tensors");
    ASSERT_TRUE(stepValue && stepValue->integer() && invScaleValue && invScaleValue->isNumber() && tensors &&
                tensors->isArray())
        << "manifest entry without step / inv-scale / tensors";
    const int64_t step = *stepValue->integer();
    // The manifest holds the float32 multiplier; its JSON text reads back as that float32 exactly.
    const float invScale = static_cast<float>(invScaleValue->number());
    ASSERT_EQ(static_cast<double>(invScale), invScaleValue->number()) << "step " << step << ": inv-scale is not a float32";
    const auto found = byStep.find(step);
    ASSERT_NE(found, byStep.end()) << "step " << step << " is in the manifest but not in the stream";
    const ModeStep& record = *found->second;
    ASSERT_TRUE(record.instrumented) << "step " << step;
    const LowFormat target = targetOf(record.mode);
    for (const auto& tensor : tensors->items()) {
      const JsonValue* name = tensor.find("name");
      const JsonValue* file = tensor.find("file");
      ASSERT_TRUE(name && name->isString() && file && file->isString());
      const TensorStats* stats = nullptr;
      for (const auto& t : record.tensors) {
        if (t.name == name->string()) stats = &t;
      }
      ASSERT_NE(stats, nullptr) << "step " << step << ": " << name->string() << " is not in the stream's record";
      testing::NpyFloat32 gradient;
      std::string npyError;
      ASSERT_TRUE(testing::readNpyFloat32(dir + "/grads/" + file->string(), gradient, &npyError)) << npyError;
      EXPECT_EQ(static_cast<int64_t>(gradient.values.size()), stats->numel) << name->string();
      ExponentHistogram scaled;
      ExponentHistogram unscaled;
      const auto n = static_cast<int64_t>(gradient.values.size());
      accumulateHistogram(gradient.values.data(), n, 1.0f, target, scaled);
      accumulateHistogram(gradient.values.data(), n, invScale, target, unscaled);
      SCOPED_TRACE("step " + std::to_string(step) + ", " + name->string());
      EXPECT_TRUE(stats->scaled.formatsMeasured && stats->unscaled.formatsMeasured) << "the stream has no formats";
      samples::expectSameHistogram(stats->scaled, scaled);
      samples::expectSameHistogram(stats->unscaled, unscaled);
      ++tensorsChecked;
    }
  }
  EXPECT_GT(tensorsChecked, 0);
  std::cout << "probe cross-check: " << tensorsChecked << " gradient tensors in " << steps->items().size()
            << " steps match count for count\n";
}

}  // namespace
}  // namespace ampscope::detail
