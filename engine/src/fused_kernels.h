// The loops of the fused optimizer steps (fused_optimizer.h): plain float32 arrays, no torch.
// Each returns whether every parameter value it wrote is finite. `fma` selects x + a*b as one fused
// multiply-add (ATen's vectorised builds) or a rounded product then a rounded sum.
#pragma once

#include <cstdint>

#include "low_precision.h"

namespace ampscope::detail {

struct AdamWCoefficients {
  bool weightDecay = false;
  float decay = 1;            // 1 - lr * weight_decay
  float beta1 = 0, oneMinusBeta1 = 0, beta2 = 0, oneMinusBeta2 = 0;
  float biasCorrection2Sqrt = 1;  // sqrt(1 - beta2^t)
  float eps = 0;
  float negativeStepSize = 0;     // -lr / (1 - beta1^t)
};

struct SgdCoefficients {
  bool weightDecay = false;
  float decay = 0;
  bool momentum = false;
  float momentumFactor = 0;
  bool firstStep = false;  // the momentum buffer starts as a copy of the direction
  float negativeLr = 0;
};

bool adamwPass(float* param, const float* grad, float* expAvg, float* expAvgSq, int64_t n,
               const AdamWCoefficients& c, bool fma);
// Every in-place op rounded to `format`; the final parameter rounding is counted into `counts` (may be null).
bool adamwRoundedPass(float* param, const float* grad, float* expAvg, float* expAvgSq, int64_t n,
                      const AdamWCoefficients& c, bool fma, LowFormat format, RoundingCounts* counts);
// buffer: the momentum buffer (null without momentum).
bool sgdPass(float* param, const float* grad, float* buffer, int64_t n, const SgdCoefficients& c, bool fma);
bool sgdRoundedPass(float* param, const float* grad, float* buffer, int64_t n, const SgdCoefficients& c,
                    bool fma, LowFormat format, RoundingCounts* counts);

}  // namespace ampscope::detail
