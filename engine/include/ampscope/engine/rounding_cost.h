// What rounding a tensor into a low-precision format costs: per format, the signal-to-quantisation-noise
// ratio SQNR = 10 log10(sum x^2 / sum (x - q(x))^2) in dB (+inf when every value is exact, -inf when a value
// became inf or NaN), the values changed, and the flushed / subnormal / overflowed counts. The formats, and
// how each one scales the tensor, are those of the engine's FP8 recipes (docs/fp8-recipes.md):
// - fp16, bf16: an IEEE 754-2019 cast from float32, round to nearest even, overflow to inf;
// - fp8-e4m3, fp8-e5m2: one scale per tensor from its amax, scale = (format max / amax) in float32
//   (fp8/scaling.h's perTensorScale, margin 0, scale 1 for an all-zero tensor or one holding inf/NaN),
//   q = satfinite(round(x * scale)) * (1 / scale) in float32 (OCP 8-bit FP spec v1.0);
// - mxfp8: E4M3 elements, blocks of 32 consecutive values (the last one may be shorter), an E8M0 scale
//   2^X per block with X = floor(log2(block amax)) - 8, clamped to [-127, 127] (OCP MX spec v1.0, 6.3),
//   q = satfinite(round(x * 2^-X)) * 2^X; a block holding inf or NaN becomes NaN;
// - nvfp4: E2M1 elements, blocks of 16, tensor scale ts = (6 * 448) / tensor amax (1 for a zero tensor),
//   block scale bs = E4M3 satfinite of (block amax / 6) * ts, q = satfinite(round(x * (ts / bs))) * (bs /
//   ts), a zero block scale zeroing the block; a tensor holding inf or NaN becomes NaN throughout.
// Only finite values count (elements); inf and NaN inputs are left out of every number. The rounding is
// number_format.h's (roundValue / roundValueSaturating), each float32 product and quotient as the
// engine's quantisers compute it.
//
// The two sums are order independent, so that a probe computing them with whole-tensor operations on a
// GPU, in any order, gets the same bits (ExactSquareSum below).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace ampscope {

enum class CostFormat { FP16, BF16, FP8E4M3, FP8E5M2, MXFP8, NVFP4 };
constexpr int kCostFormatCount = 6;
const std::array<CostFormat, kCostFormatCount>& allCostFormats();
// "fp16", "bf16", "fp8-e4m3", "fp8-e5m2", "mxfp8", "nvfp4": the record's keys, in this order.
const char* costFormatKey(CostFormat format);

// A sum of non-negative doubles that does not depend on the order of its terms. A finite term t > 0 with
// biased exponent field E (0 for subnormals, counted as 1) and 53-bit significand m is t = s * 2^(8b - 1075)
// with band b = E >> 3 and s = m << (E & 7) < 2^61; s is split into three 21-bit chunks
// (s & (2^21 - 1), (s >> 21) & (2^21 - 1), s >> 42) and each chunk added into part[3b + k]. Every part is a
// sum of integers below 2^21, so it is exact in a double for up to 2^32 terms, whatever the order.
// value() adds the parts times 2^(8b - 1075 + 21k) in increasing (b, k), in double: a fixed order, so two
// implementations with the same parts get the same bits. An inf or NaN term makes the sum inf.
class ExactSquareSum {
 public:
  static constexpr int kBands = 256;
  static constexpr int kChunks = 3;
  static constexpr int kChunkBits = 21;
  void add(double term);
  void addPart(int index, double chunkSum);  // a part computed elsewhere (a probe's record)
  void addInfinite() { infinite_ = true; }
  double value() const;
  bool infinite() const { return infinite_; }
  const std::array<double, kBands * kChunks>& parts() const { return parts_; }

 private:
  std::array<double, kBands * kChunks> parts_{};
  bool infinite_ = false;
};

struct RoundingCost {
  int64_t elements = 0;    // finite values
  int64_t changed = 0;     // finite values with q(x) != x (a NaN q included)
  int64_t flushed = 0;     // x != 0, q(x) == 0
  int64_t subnormal = 0;   // the rounded element (before the scale is undone) is a subnormal of the format
  int64_t overflowed = 0;  // the (scaled) value rounded beyond the format's largest finite value: to inf
                           // (fp16, bf16) or clamped to it (the scaled formats), the thresholds of
                           // docs/record-format.md's range counts
  ExactSquareSum signal;   // sum of x^2 (x^2 is exact in a double)
  ExactSquareSum error;    // sum of d^2, d = double(x) - double(q(x)), d^2 rounded to a double
  // 10 (log10(signal) - log10(error)); +inf when error is 0, -inf when it is infinite.
  double sqnrDb() const;
};

// The cost of rounding n float32 values into one format, or into each of them (allCostFormats() order).
// n < 0 throws std::invalid_argument naming it.
RoundingCost roundingCost(CostFormat format, const float* values, int64_t n);
std::array<RoundingCost, kCostFormatCount> roundingCosts(const float* values, int64_t n);

// SQNR in dB from the two sums' values, the rule of RoundingCost::sqnrDb.
double sqnrDb(double signal, double error);

}  // namespace ampscope
