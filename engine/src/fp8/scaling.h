// How the FP8 recipes choose their scales, as plain float32 arithmetic (no torch):
// - per tensor (Transformer Engine's DelayedScaling and Float8CurrentScaling, torchao's tensorwise):
//   scale = (format max / amax) / 2^margin; an amax of 0 or a non-finite one keeps the previous scale
//   (1 at first), and a scale that overflows float32 becomes float32's max;
// - delayed scaling takes amax as the maximum of the last `length` steps' amaxes (amax_compute_algo
//   "max"), not counting the current step: the history rolls once per optimizer step;
// - MX blocks (OCP MX spec 1.0, section 6.3): the shared scale is 2^X with
//   X = floor(log2(block amax)) - emax(element format), clamped to E8M0's [-127, 127];
// - NVFP4 blocks: an FP32 tensor scale (6 * 448) / tensor amax and, per block of 16, the E4M3 value of
//   (block amax / 6) * tensor scale.
#pragma once

#include <cstdint>
#include <deque>

namespace ampscope::detail::fp8 {

float perTensorScale(float amax, float formatMax, int64_t margin, float previous);

class AmaxHistory {
 public:
  explicit AmaxHistory(int64_t length) : length_(length < 1 ? 1 : length) {}
  void push(float amax);  // the newest; the oldest falls out past `length`
  float max() const;      // 0 when empty; NaN/inf if one is held
  int64_t size() const { return static_cast<int64_t>(values_.size()); }

 private:
  int64_t length_;
  std::deque<float> values_;
};

// The MX shared exponent X of a block whose largest magnitude is `blockAmax` (finite); a zero block
// gets -127 (its elements are zero whatever the scale).
int mxSharedExponent(float blockAmax, int elementMaxExp);

}  // namespace ampscope::detail::fp8
