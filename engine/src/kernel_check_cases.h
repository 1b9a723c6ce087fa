// The cases of the native-kernel self-check (ampscope/engine/kernel_check.h), each taking the kernel
// under test as a function so that a test can plant a wrong one and see it caught.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ampscope/engine/kernel_check.h"

namespace ampscope::detail {

// y = x W^T + b; x [batch, in], W [out, in], b [out], all in the dtype under test.
using LinearKernel =
    std::function<torch::Tensor(const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b)>;
// y = conv1d(x, W, b, padding 1); x [batch, channels, length], W [filters, channels, width].
using Conv1dKernel = LinearKernel;

struct GemmShape {
  int64_t batch = 0;
  int64_t in = 0;
  int64_t out = 0;
};

// The distinct linear-layer shapes of AmpScope's three models, at batch 16.
std::vector<GemmShape> modelGemmShapes();

// A GEMM with bias in `dtype` (float32, float16 or bfloat16) over `shapes`, inputs drawn with `seed`.
// Low-precision dtypes are also compared with the emulation (FP32 GEMM rounded once).
KernelCheck checkLinear(const std::string& name, torch::ScalarType dtype, const std::vector<GemmShape>& shapes,
                        const LinearKernel& kernel, uint64_t seed);
// float32 conv1d with padding 1 on a [16, 24, 12] input and 32 filters of width 3.
KernelCheck checkConv1d(const Conv1dKernel& kernel, uint64_t seed);
// The GradScaler's CPU kernels; unavailable where LibTorch has none (1.13).
KernelCheck checkAmpUnscale();
KernelCheck checkAmpUpdateScale();
// float8_e4m3fn and float8_e5m2 casts (LibTorch >= 2.1).
std::vector<KernelCheck> checkFloat8Casts();

// Tests: the process's checks replaced by made-up ones (a wrong kernel planted), or run afresh on next
// use (nullopt). Each call starts a new generation; the capability probe probes again after a change.
void replaceNativeKernelChecksForTest(std::optional<std::vector<KernelCheck>> checks);
int nativeKernelChecksGeneration();

// The kernels LibTorch itself runs for the checks above.
torch::Tensor nativeLinear(const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b);
torch::Tensor nativeConv1d(const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b);

}  // namespace ampscope::detail
