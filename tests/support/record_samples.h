// Telemetry for the codec and session-file tests: every field set to something other than its default, the non-finite
// values a lesson is about (NaN, +Inf, -Inf), -0.0, and histograms reaching both ends of float32's
// exponent range. Equality is bitwise for doubles, so NaN == NaN and -0 != +0.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "ampscope/engine/record_codec.h"
#include "ampscope/engine/run_config.h"
#include "ampscope/engine/telemetry.h"

namespace ampscope::samples {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

inline ExponentHistogram histogram(int seed) {
  ExponentHistogram h;
  h.counts.set(-149, 1);        // the smallest float32 subnormal's bin
  h.counts.set(-24, 100 + seed);  // FP16's 2^-24
  h.counts.set(127, 7);
  h.zero = 3 + seed;
  h.posInf = 1;
  h.negInf = 2;
  h.nan = 4;
  h.targetSubnormal = 50;
  h.targetUnderflow = 9;
  return h;
}

inline RunConfig config() {
  RunConfig c = presetFor(ModelKind::DeepMLP);
  c.modes = {PrecisionMode::FP32, PrecisionMode::FP16Amp, PrecisionMode::FP16Pure};
  c.optimizer = OptimizerKind::SGD;
  c.lr = 0.0123456789012345;
  c.momentum = 0.85;
  c.weightDecay = 0.001;
  c.adamEps = 1e-12;
  c.batchSize = 48;
  c.seed = 987654321;
  c.steps = 321;
  c.lossWeight = 1e-5;
  c.scaler = {1024.0, 3.0, 0.25, 17, false};
  c.scalerForPureFp16 = true;
  c.clipOrder = ClipOrder::BeforeUnscale;
  c.clipMaxNorm = 0.5;
  c.instrumentEvery = 3;
  c.threadsPerMode = 2;
  return c;
}

inline std::vector<StepRecord> records(const RunConfig& c, int64_t steps = 6) {
  std::vector<StepRecord> list;
  for (int64_t step = 1; step <= steps; ++step) {
    StepRecord record;
    record.step = step;
    for (PrecisionMode mode : c.modes) {
      ModeStep s;
      s.mode = mode;
      s.step = step;
      s.loss = 2.302585092994046 / static_cast<double>(step) + 1e-17 * static_cast<double>(mode);
      s.lossScale = 65536.0 / static_cast<double>(step);
      s.skipped = step % 2 == 0;
      s.foundInf = step == 4;
      s.gradNormBeforeClip = 1.0 / 3.0 * static_cast<double>(step);
      s.gradNormAfterClip = 0.1 + static_cast<double>(step);
      s.clipNormSeen = 1e300;
      s.lr = 1e-3 * static_cast<double>(step);
      s.stepTimeMs = 1.25 + 0.001 * static_cast<double>(step);
      s.currentBytes = 123456789012 + step;
      s.peakBytes = 2 * s.currentBytes;
      s.instrumented = step % 3 == 0;
      if (s.instrumented) {
        s.rounding = {1000, 10, 20, 1, 2};
        s.roundingPoints.push_back({"fc1.input", "fc1", false, {500, 5, 6, 0, 0}});
        s.roundingPoints.push_back({"fc1.grad_input", "fc1", true, {500, 5, 14, 1, 2}});
        s.tensors.push_back({"net.0.weight", true, 65536, histogram(1), histogram(2), TensorRole::Gradient, {}});
        s.tensors.push_back({"act:fc1.out \"quoted\"\n", false, 2048, histogram(3), histogram(4), TensorRole::Gradient, {}});
      }
      record.modes.push_back(s);
    }
    list.push_back(record);
  }
  if (list.size() >= 6 && c.modes.size() >= 3) {
    list[4].modes[1].loss = kNaN;
    list[4].modes[1].diverged = true;
    list[5].modes[2].loss = kInf;
    list[5].modes[2].gradNormBeforeClip = -kInf;
    list[5].modes[2].lossScale = kNaN;
    list[5].modes[0].gradNormAfterClip = -0.0;
    list[5].modes[0].lr = 5e-324;  // the smallest subnormal double
  }
  return list;
}

inline bool same(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::memcmp(&a, &b, sizeof a) == 0;
}

inline void expectSameCounts(const RoundingCounts& a, const RoundingCounts& b) {
  EXPECT_EQ(a.elements, b.elements);
  EXPECT_EQ(a.flushedToZero, b.flushedToZero);
  EXPECT_EQ(a.subnormal, b.subnormal);
  EXPECT_EQ(a.overflowed, b.overflowed);
  EXPECT_EQ(a.nan, b.nan);
}

inline void expectSameHistogram(const ExponentHistogram& a, const ExponentHistogram& b) {
  EXPECT_EQ(a.counts, b.counts);
  EXPECT_EQ(a.zero, b.zero);
  EXPECT_EQ(a.posInf, b.posInf);
  EXPECT_EQ(a.negInf, b.negInf);
  EXPECT_EQ(a.nan, b.nan);
  EXPECT_EQ(a.targetSubnormal, b.targetSubnormal);
  EXPECT_EQ(a.targetUnderflow, b.targetUnderflow);
  EXPECT_EQ(a.formatsMeasured, b.formatsMeasured);
  for (size_t f = 0; f < a.formats.size(); ++f) {
    EXPECT_EQ(a.formats[f].flushed, b.formats[f].flushed) << rangeFormatKey(static_cast<RangeFormat>(f));
    EXPECT_EQ(a.formats[f].subnormal, b.formats[f].subnormal) << rangeFormatKey(static_cast<RangeFormat>(f));
    EXPECT_EQ(a.formats[f].overflowed, b.formats[f].overflowed) << rangeFormatKey(static_cast<RangeFormat>(f));
  }
}

// `withDetail`: compare rounding points and histograms too (CSV has none).
inline void expectSameStep(const ModeStep& a, const ModeStep& b, bool withDetail = true) {
  EXPECT_EQ(a.mode, b.mode);
  EXPECT_EQ(a.step, b.step);
  EXPECT_TRUE(same(a.loss, b.loss)) << a.loss << " vs " << b.loss;
  EXPECT_TRUE(same(a.lossScale, b.lossScale));
  EXPECT_EQ(a.skipped, b.skipped);
  EXPECT_EQ(a.foundInf, b.foundInf);
  EXPECT_TRUE(same(a.gradNormBeforeClip, b.gradNormBeforeClip));
  EXPECT_TRUE(same(a.gradNormAfterClip, b.gradNormAfterClip));
  EXPECT_TRUE(same(a.clipNormSeen, b.clipNormSeen));
  EXPECT_TRUE(same(a.lr, b.lr));
  EXPECT_TRUE(same(a.stepTimeMs, b.stepTimeMs));
  EXPECT_EQ(a.currentBytes, b.currentBytes);
  EXPECT_EQ(a.peakBytes, b.peakBytes);
  EXPECT_EQ(a.diverged, b.diverged);
  EXPECT_EQ(a.instrumented, b.instrumented);
  expectSameCounts(a.rounding, b.rounding);
  if (!withDetail) return;
  EXPECT_EQ(a.seq, b.seq);
  EXPECT_TRUE(same(a.wallTime, b.wallTime)) << a.wallTime << " vs " << b.wallTime;
  EXPECT_EQ(a.nonFinite, b.nonFinite);
  EXPECT_EQ(a.foundInfPerDevice, b.foundInfPerDevice);
  ASSERT_EQ(a.roundingPoints.size(), b.roundingPoints.size());
  for (size_t i = 0; i < a.roundingPoints.size(); ++i) {
    EXPECT_EQ(a.roundingPoints[i].name, b.roundingPoints[i].name);
    EXPECT_EQ(a.roundingPoints[i].layer, b.roundingPoints[i].layer);
    EXPECT_EQ(a.roundingPoints[i].backward, b.roundingPoints[i].backward);
    expectSameCounts(a.roundingPoints[i].counts, b.roundingPoints[i].counts);
  }
  ASSERT_EQ(a.tensors.size(), b.tensors.size());
  for (size_t i = 0; i < a.tensors.size(); ++i) {
    EXPECT_EQ(a.tensors[i].name, b.tensors[i].name);
    EXPECT_EQ(a.tensors[i].isParameter, b.tensors[i].isParameter);
    EXPECT_EQ(a.tensors[i].numel, b.tensors[i].numel);
    expectSameHistogram(a.tensors[i].scaled, b.tensors[i].scaled);
    expectSameHistogram(a.tensors[i].unscaled, b.tensors[i].unscaled);
    EXPECT_EQ(tensorRole(a.tensors[i]), tensorRole(b.tensors[i]));
    ASSERT_EQ(a.tensors[i].roundingCost.size(), b.tensors[i].roundingCost.size());
    for (size_t j = 0; j < a.tensors[i].roundingCost.size(); ++j) {
      const auto& x = a.tensors[i].roundingCost[j];
      const auto& y = b.tensors[i].roundingCost[j];
      EXPECT_EQ(x.format, y.format);
      EXPECT_EQ(x.elements, y.elements);
      EXPECT_EQ(x.changed, y.changed);
      EXPECT_EQ(x.flushed, y.flushed);
      EXPECT_EQ(x.subnormal, y.subnormal);
      EXPECT_EQ(x.overflowed, y.overflowed);
      EXPECT_EQ(x.sqnrDb, y.sqnrDb);
    }
  }
}

// A training script's stream identity: every field set.
inline StreamSource probeSource() {
  StreamSource s;
  s.source = "probe";
  s.run = "my-run \"quoted\"";
  s.runId = "5f0c2a9e1b7d4c3a";
  s.rank = 1;
  s.worldSize = 2;
  s.ranks = "per-rank";
  s.device = "cuda:1";
  s.torch = "2.4.1";
  s.every = 10;
  s.parameters = {"net.0.weight", "net.0.bias", "net.2.weight"};
  return s;
}

// probeSource()'s stream header line with another run-id, and ModeSteps as stream lines.
inline std::string probeHeaderLine(const std::string& runId = "5f0c2a9e1b7d4c3a") {
  StreamSource source = probeSource();
  source.runId = runId;
  return probeStreamHeader(source, "ampscope_probe 0.2.0");
}

inline std::string streamLines(const std::vector<ModeStep>& steps) {
  std::string text;
  for (const auto& step : steps) appendRecordStreamLine(text, step);
  return text;
}

// Histograms with the version 3 "formats" (every count different, so a swapped key shows).
inline ExponentHistogram histogramWithFormats(int seed) {
  ExponentHistogram h = histogram(seed);
  for (size_t f = 0; f < h.formats.size(); ++f) {
    h.formats[f] = {static_cast<int64_t>(100 * seed + 10 * f + 1), static_cast<int64_t>(10 * f + 2),
                    static_cast<int64_t>(10 * f + 3)};
  }
  h.formatsMeasured = true;
  return h;
}

// What a probe writes: records with seq, wall-time, nonfinite, found-inf-per-device and histograms
// with formats. seq runs from `firstSeq`.
inline std::vector<ModeStep> probeSteps(int64_t count, int64_t firstSeq = 1) {
  std::vector<ModeStep> list;
  for (int64_t i = 0; i < count; ++i) {
    ModeStep s;
    s.mode = PrecisionMode::FP16Amp;
    s.step = 1 + 10 * (firstSeq - 1 + i);
    s.loss = 1.0 / static_cast<double>(s.step);
    s.lossScale = 65536;
    s.seq = firstSeq + i;
    s.wallTime = 1764550000.125 + static_cast<double>(s.seq);
    s.instrumented = true;
    s.tensors.push_back({"net.0.weight", true, 4096, histogramWithFormats(1), histogramWithFormats(2), TensorRole::Gradient, {}});
    if (s.seq % 3 == 0) {
      s.skipped = true;
      s.foundInf = true;
      s.nonFinite = {"net.0.weight", "net.2.weight"};
      s.foundInfPerDevice = {{"cuda:0", true}, {"cuda:1", false}};
    }
    list.push_back(s);
  }
  return list;
}

// One random damage per trial, the same for a given `rng` state: even trials cut the text short at a
// random length, odd trials overwrite three random bytes with random values.
inline std::string damaged(const std::string& text, int trial, std::mt19937& rng) {
  std::string out = text;
  if (trial % 2 == 0) {
    out.resize(std::uniform_int_distribution<size_t>(0, text.size() - 1)(rng));
  } else {
    for (int flips = 0; flips < 3; ++flips) {
      out[std::uniform_int_distribution<size_t>(0, text.size() - 1)(rng)] =
          static_cast<char>(std::uniform_int_distribution<int>(0, 255)(rng));
    }
  }
  return out;
}

}  // namespace ampscope::samples
