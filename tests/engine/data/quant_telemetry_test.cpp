// FP8/microscaling telemetry (QuantTensorStats): the record codec keeps every field bit for bit, refuses
// damaged entries by name, and the TelemetryStore keeps one bounded scale series per quantised tensor
// whose merges keep a saturation burst's count.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ampscope/engine/record_codec.h"
#include "ampscope/engine/telemetry_store.h"

namespace ampscope {
namespace {

QuantTensorStats sample(const std::string& name, ScalingKind scaling, bool measured) {
  QuantTensorStats q;
  q.name = name;
  q.layer = "fc1";
  q.backward = name.find("grad") != std::string::npos;
  q.format = q.backward ? QuantFormat::E5M2 : QuantFormat::E4M3;
  q.scaling = scaling;
  q.numel = 4096;
  q.scale = 448.0 / 3.0;  // not a short decimal: the round trip must keep every bit
  q.amax = 3.0000001;
  q.amaxHistoryMax = std::numeric_limits<double>::infinity();
  if (scaling == ScalingKind::MxBlock) {
    q.scale = 1;
    q.blockScaleExpMin = -20;
    q.blockScaleExpMax = 3;
  }
  if (measured) {
    q.measured = true;
    q.saturated = 7;
    q.flushed = 1234;
    auto h = std::make_shared<ExponentHistogram>();
    h->counts.set(-3, 4000);
    h->zero = 96;
    q.histogram = h;
  }
  return q;
}

ModeStep stepWith(std::vector<QuantTensorStats> quantized, int64_t step = 3) {
  ModeStep s;
  s.mode = PrecisionMode::Fp8Delayed;
  s.step = step;
  s.loss = 2.5;
  s.quantized = std::move(quantized);
  return s;
}

TEST(QuantTelemetry, TheStreamKeepsEveryField) {
  const ModeStep original = stepWith({sample("fc1.input", ScalingKind::Delayed, true),
                                      sample("fc1.grad_output", ScalingKind::None, false),
                                      sample("fc2.weight", ScalingKind::MxBlock, true)});
  std::string text = recordStreamHeader(RunConfig{});
  appendRecordStreamLine(text, original);
  RecordError error;
  const auto stream = readRecordStream(text, &error);
  ASSERT_TRUE(stream) << error.text();
  ASSERT_EQ(stream->steps.size(), 1u);
  const auto& got = stream->steps[0].quantized;
  ASSERT_EQ(got.size(), 3u);
  for (size_t i = 0; i < got.size(); ++i) {
    const QuantTensorStats& a = original.quantized[i];
    const QuantTensorStats& b = got[i];
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.layer, b.layer);
    EXPECT_EQ(a.backward, b.backward);
    EXPECT_EQ(a.format, b.format);
    EXPECT_EQ(a.scaling, b.scaling);
    EXPECT_EQ(a.numel, b.numel);
    EXPECT_EQ(a.scale, b.scale);
    EXPECT_EQ(a.amax, b.amax);
    EXPECT_EQ(a.amaxHistoryMax, b.amaxHistoryMax);
    EXPECT_EQ(a.blockScaleExpMin, b.blockScaleExpMin);
    EXPECT_EQ(a.blockScaleExpMax, b.blockScaleExpMax);
    EXPECT_EQ(a.measured, b.measured);
    EXPECT_EQ(a.saturated, b.saturated);
    EXPECT_EQ(a.flushed, b.flushed);
    ASSERT_EQ(a.histogram != nullptr, b.histogram != nullptr);
    if (a.histogram) {
      EXPECT_EQ(b.histogram->countAt(-3), 4000);
      EXPECT_EQ(b.histogram->zero, 96);
      EXPECT_EQ(b.histogram->total(), 4096);
    }
  }
  EXPECT_NE(text.find("\"scaling\":\"mx-block\""), std::string::npos);
  EXPECT_NE(text.find("\"block-scale-exp-min\":-20"), std::string::npos);
}

TEST(QuantTelemetry, DamagedEntriesAreRefusedByName) {
  std::string text = recordStreamHeader(RunConfig{});
  appendRecordStreamLine(text, stepWith({sample("fc1.input", ScalingKind::Current, true)}));
  auto refused = [](std::string damaged) {
    RecordError error;
    EXPECT_FALSE(readRecordStream(damaged, &error).has_value());
    return error.text();
  };
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string t = text;
    const size_t at = t.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return t.replace(at, from.size(), to);
  };
  EXPECT_EQ(refused(replaced("\"format\":\"e4m3\"", "\"format\":\"e3m4\"")),
            "line 2: quantized[0].format: expected \"e4m3\", \"e5m2\" or \"e2m1\"");
  EXPECT_NE(refused(replaced("\"scaling\":\"current\"", "\"scaling\":\"tensorwise\"")).find("quantized[0].scaling"),
            std::string::npos);
  EXPECT_NE(refused(replaced("\"saturated\":7", "\"saturated\":-7")).find("quantized[0].saturated"),
            std::string::npos);
  // Block exponents belong to block scalings only.
  EXPECT_NE(refused(replaced("\"numel\":4096", "\"numel\":4096,\"block-scale-exp-min\":1"))
                .find("quantized[0].block-scale-exp-min"),
            std::string::npos);
  EXPECT_NE(refused(replaced("\"numel\":4096", "\"numel\":4096,\"colour\":1")).find("quantized[0].colour"),
            std::string::npos);
}

TEST(QuantTelemetry, TheStoreKeepsOneBoundedScaleSeriesPerTensor) {
  StoreLimits limits;
  limits.quantPoints = 100;
  TelemetryStore store(limits);
  for (int64_t step = 1; step <= 1000; ++step) {
    QuantTensorStats in = sample("fc1.input", ScalingKind::Delayed, step % 10 == 0);
    in.scale = static_cast<double>(step);
    in.saturated = step == 20 ? 999 : 1;  // one burst, long merged away from full resolution
    QuantTensorStats grad = sample("fc1.grad_output", ScalingKind::Delayed, false);
    StepRecord record;
    record.step = step;
    record.modes.push_back(stepWith({in, grad}, step));
    store.append(record);
  }
  const ModeSeries* series = store.series(PrecisionMode::Fp8Delayed);
  ASSERT_NE(series, nullptr);
  ASSERT_EQ(series->quantized.size(), 2u);
  const QuantSeries* input = series->quantSeries("fc1.input");
  ASSERT_NE(input, nullptr);
  EXPECT_LE(input->points.size(), 100u);
  EXPECT_EQ(input->points.back().step, 1000);
  EXPECT_EQ(input->points.back().scale, 1000.0);
  EXPECT_EQ(input->latestMeasuredStep, 1000);
  ASSERT_TRUE(input->latestMeasured.histogram);
  // Saturation counts only come from measured steps (every 10th): 99 of them at 1, step 20 at 999.
  int64_t saturated = 0;
  for (const QuantPoint& p : input->points) saturated += p.saturated;
  EXPECT_EQ(saturated, 99 + 999);
  for (size_t i = 1; i < input->points.size(); ++i) EXPECT_LT(input->points[i - 1].step, input->points[i].step);
}

}  // namespace
}  // namespace ampscope
