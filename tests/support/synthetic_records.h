// Synthetic StepRecords for the training views' tests and the GUI benchmark: shaped like the engine's
// (one ModeStep per mode, histograms and rounding counts on instrumented steps) but made up, so the
// store and plots can be checked exactly without training anything.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ampscope/engine/run_config.h"
#include "ampscope/engine/telemetry.h"
#include "ampscope/engine/telemetry_store.h"

namespace ampscope::test {

struct SyntheticOptions {
  std::vector<PrecisionMode> modes{PrecisionMode::FP32, PrecisionMode::FP16AmpScaled, PrecisionMode::FP16Amp,
                                   PrecisionMode::BF16Amp};
  int64_t instrumentEvery = 1;
  int64_t tensorElements = 1000;  // per tensor; two parameter tensors and one activation gradient
  int layers = 2;
};

// Histogram of `numel` values: most at exponent `center`, a few zeros, one NaN every 7th step.
inline ExponentHistogram syntheticHistogram(int center, int64_t numel, int64_t step) {
  ExponentHistogram h;
  h.zero = 3;
  h.nan = (step % 7 == 0) ? 1 : 0;
  h.posInf = (step % 11 == 0) ? 1 : 0;
  int64_t left = numel - h.zero - h.nan - h.posInf;
  const int64_t spread[] = {left / 10, left / 5, 0, left / 5, left / 10};
  int64_t used = 0;
  for (int i = 0; i < 5; ++i) {
    if (i == 2) continue;
    h.counts.set(center - 2 + i, spread[i]);
    used += spread[i];
  }
  h.counts.set(center, left - used);
  h.targetUnderflow = center < -25 ? left : 0;
  return h;
}

inline ModeStep syntheticModeStep(PrecisionMode mode, int64_t step, const SyntheticOptions& o) {
  ModeStep m;
  m.mode = mode;
  m.step = step;
  const double offset = 0.1 * static_cast<int>(mode);
  m.loss = offset + 2.3 * std::exp(-static_cast<double>(step) / 500.0) + 0.01 * std::sin(static_cast<double>(step));
  const bool scaled = mode == PrecisionMode::FP16AmpScaled;
  m.lossScale = scaled ? std::ldexp(1.0, 16 + static_cast<int>((step / 50) % 4)) : 1.0;
  m.skipped = scaled && step % 50 == 0;
  m.foundInf = m.skipped;
  m.gradNormBeforeClip = m.gradNormAfterClip = 1.0;
  m.stepTimeMs = 1.0;
  m.currentBytes = 1 << 20;
  m.peakBytes = 2 << 20;
  m.instrumented = o.instrumentEvery > 0 && step % o.instrumentEvery == 0;
  if (!m.instrumented) return m;
  for (int l = 0; l < o.layers; ++l) {
    RoundingPointStats rp;
    rp.layer = "fc" + std::to_string(l + 1);
    rp.name = rp.layer + ".grad_input";
    rp.backward = true;
    rp.counts.elements = o.tensorElements;
    rp.counts.flushedToZero = mode == PrecisionMode::FP16Amp ? o.tensorElements / 2 : 0;
    rp.counts.subnormal = mode == PrecisionMode::FP16Amp ? o.tensorElements / 4 : 0;
    rp.counts.overflowed = step % 50 == 0 ? 1 : 0;
    m.rounding.add(rp.counts);
    m.roundingPoints.push_back(rp);
  }
  const int unscaledCenter = mode == PrecisionMode::FP16Amp ? -28 : -20;
  const int shift = scaled ? static_cast<int>(std::lround(std::log2(m.lossScale))) : 0;
  for (int t = 0; t < 3; ++t) {
    TensorStats ts;
    ts.name = t < 2 ? "fc" + std::to_string(t + 1) + ".weight" : "act:fc1.out";
    ts.isParameter = t < 2;
    ts.numel = o.tensorElements;
    ts.unscaled = syntheticHistogram(unscaledCenter - t, o.tensorElements, step);
    ts.scaled = syntheticHistogram(unscaledCenter - t + shift, o.tensorElements, step);
    m.tensors.push_back(ts);
  }
  return m;
}

inline StepRecord syntheticRecord(int64_t step, const SyntheticOptions& o = {}) {
  StepRecord r;
  r.step = step;
  for (PrecisionMode mode : o.modes) r.modes.push_back(syntheticModeStep(mode, step, o));
  return r;
}

// Store limits that fold within a test's few hundred steps: `recentSteps` kept at full resolution, folded
// `foldChunk` at a time into buckets of `stepsPerBucket`; the other limits keep their defaults.
inline StoreLimits foldingLimits(std::size_t recentSteps, std::size_t foldChunk, std::size_t stepsPerBucket) {
  StoreLimits limits;
  limits.recentSteps = recentSteps;
  limits.foldChunk = foldChunk;
  limits.stepsPerBucket = stepsPerBucket;
  return limits;
}

// Appends the synthetic records of steps `from`..`to`; `edit(record)` may change each before the store
// sees it (a spike, a NaN, a burst of overflows at one step).
template <class Edit>
void feed(TelemetryStore& store, int64_t from, int64_t to, const SyntheticOptions& o, Edit edit) {
  for (int64_t s = from; s <= to; ++s) {
    StepRecord r = syntheticRecord(s, o);
    edit(r);
    store.append(r);
  }
}

inline void feed(TelemetryStore& store, int64_t from, int64_t to, const SyntheticOptions& o = {}) {
  feed(store, from, to, o, [](StepRecord&) {});
}

}  // namespace ampscope::test
