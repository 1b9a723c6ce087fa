// The sum of the squares of float32 values in double: the gradient norm a step shows when no clip needs
// torch's own arithmetic (mode_trainer.cpp). A float's square is exact in double (24 + 24 significant
// bits < 53), so whether the instruction set a loop is compiled for contracts the step into an FMA
// changes nothing; lane j sums elements j, j + 64, ... and the lanes are added in one fixed order, so
// every kernelIsa() (kernel_isa.h) gives the same bits. inf and NaN values give inf and NaN.
#pragma once

#include <cstdint>

namespace ampscope::detail {

double sumOfSquares(const float* data, int64_t n);
// The same sum while copying the n values to dst (dst and src must not overlap).
double copyWithSumOfSquares(const float* src, float* dst, int64_t n);
// A GradScaler's unscale and the norm of what it leaves, in one pass: data[i] *= invScale in float32
// (invScale 1 writes nothing, the bits stay), returning the sum above of the unscaled values; *inputExponent
// gets the largest exponent field of the values before the multiply (0x7F800000: an inf or NaN among them,
// the check PyTorch's unscale makes; grad_scaler.h).
double unscaleWithSumOfSquares(float* data, int64_t n, float invScale, uint32_t* inputExponent);

}  // namespace ampscope::detail
