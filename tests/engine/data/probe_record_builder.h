// Records as a probe builds them, for the advice's tests: exact exponent histograms of real float32
// values, their range counts from number_format.h's round to nearest even (IEEE 754-2019 binary16 and
// bfloat16, OCP E4M3 and E5M2), and rounding costs from rounding_cost.h. Links ampscope_formats.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "ampscope/engine/number_format.h"
#include "ampscope/engine/rounding_cost.h"
#include "ampscope/engine/telemetry.h"

namespace ampscope::testing {

inline DType dtypeOfRange(RangeFormat f) {
  switch (f) {
    case RangeFormat::FP16: return DType::FP16;
    case RangeFormat::BF16: return DType::BF16;
    case RangeFormat::FP8E4M3: return DType::FP8E4M3FN;
    case RangeFormat::FP8E5M2: return DType::FP8E5M2;
  }
  return DType::FP16;
}

// The exact histogram of `values`, with each range format's counts from the format's own rounding.
inline ExponentHistogram histogramOf(const std::vector<float>& values) {
  ExponentHistogram h;
  ExponentBins::Dense dense{};
  for (float v : values) {
    if (v == 0) {
      ++h.zero;
      continue;
    }
    int e = 0;
    std::frexp(v, &e);  // v = m 2^e, m in [0.5, 1): floor(log2 |v|) = e - 1
    ++dense[static_cast<size_t>(e - 1 - ExponentHistogram::kMinExponent)];
    for (RangeFormat f : {RangeFormat::FP16, RangeFormat::BF16, RangeFormat::FP8E4M3, RangeFormat::FP8E5M2}) {
      const DType d = dtypeOfRange(f);
      const ValueClass c = classify(d, encode(d, v));
      FormatRangeCounts& counts = h.formats[static_cast<size_t>(f)];
      if (c == ValueClass::Zero) ++counts.flushed;
      if (c == ValueClass::Subnormal) ++counts.subnormal;
      if (c == ValueClass::Infinite || c == ValueClass::NaN) ++counts.overflowed;
    }
  }
  h.counts.add(dense);
  h.formatsMeasured = true;
  return h;
}

inline std::vector<FormatCostStats> costsOf(const std::vector<float>& values) {
  std::vector<FormatCostStats> out;
  const auto costs = roundingCosts(values.data(), static_cast<int64_t>(values.size()));
  for (size_t i = 0; i < costs.size(); ++i) {
    FormatCostStats c;
    c.format = costFormatKey(allCostFormats()[i]);
    c.elements = costs[i].elements;
    c.changed = costs[i].changed;
    c.flushed = costs[i].flushed;
    c.subnormal = costs[i].subnormal;
    c.overflowed = costs[i].overflowed;
    c.sqnrDb = costs[i].sqnrDb();
    out.push_back(c);
  }
  return out;
}

// A tensor as the probe records it: `values` are the true (unscaled) values; the scaled histogram is of
// values * scale (a power of two: exact).
inline TensorStats tensorOf(const std::string& name, TensorRole role, const std::vector<float>& values, float scale = 1,
                     bool withCost = false) {
  TensorStats t;
  t.name = name;
  t.role = role;
  t.isParameter = role == TensorRole::Gradient;
  t.numel = static_cast<int64_t>(values.size());
  std::vector<float> scaled = values;
  for (float& v : scaled) v *= scale;
  t.unscaled = histogramOf(values);
  t.scaled = histogramOf(scaled);
  if (withCost) t.roundingCost = costsOf(scaled);
  return t;
}

// n values, `small` of them 1.5 x 2^smallExp and the rest 1.5 x 2^-8 (never a rounding tie).
inline std::vector<float> gradientValues(int n, int small, int smallExp) {
  std::vector<float> v;
  for (int i = 0; i < n; ++i) v.push_back(std::ldexp(1.5f, i < small ? smallExp : -8));
  return v;
}

// One probe step for the advice tests: net.0's and net.2's weight gradients and net.0's output.
// `flushing` of net.2's 100 gradient values are 1.5 x 2^-30, below half of FP16's smallest subnormal
// 2^-24 (IEEE 754-2019 binary16): they round to zero without a scale.
inline ModeStep flushingProbeStep(int64_t step, int flushing) {
  ModeStep s;
  s.mode = PrecisionMode::FP32;
  s.step = step;
  s.loss = 1.0 / static_cast<double>(step);
  s.lr = 0.01;
  s.instrumented = true;
  s.seq = step;
  s.tensors.push_back(tensorOf("net.0.weight", TensorRole::Gradient, gradientValues(100, 0, -8)));
  s.tensors.push_back(tensorOf("net.2.weight", TensorRole::Gradient, gradientValues(100, flushing, -30)));
  s.tensors.push_back(tensorOf("net.0", TensorRole::Activation, std::vector<float>(64, 0.75f)));
  return s;
}

}  // namespace ampscope::testing
