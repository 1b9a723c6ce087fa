#include "fp8/element_quantizer.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "fp8/element_kernel.h"
#include "fp8/kernel_isa.h"

namespace ampscope::detail::fp8 {

using namespace kernel;

const ElementSpec& elementSpec(QuantFormat format) {
  // OCP 8-bit FP spec (E4M3: max 1.75 * 2^8 = 448, E5M2: max 1.75 * 2^15 = 57344) and the OCP MX spec's
  // FP4 E2M1 (max 1.5 * 2^2 = 6, subnormal 0.5).
  static const ElementSpec kE4M3{3, -6, 448.0f, 8, 0x1p-9f};
  static const ElementSpec kE5M2{2, -14, 57344.0f, 15, 0x1p-16f};
  static const ElementSpec kE2M1{1, 0, 6.0f, 2, 0.5f};
  switch (format) {
    case QuantFormat::E4M3: return kE4M3;
    case QuantFormat::E5M2: return kE5M2;
    case QuantFormat::E2M1: return kE2M1;
  }
  return kE4M3;
}

namespace {

AMPSCOPE_FP8_ALWAYS_INLINE void quantizeBody(const float* in, float* out, int64_t n, QuantFormat format,
                                             float scale, float invScale, QuantCounts* counts) {
  const Kernel k = kernelFor(elementSpec(format));
  if (counts == nullptr) {
    for (int64_t i = 0; i < n; ++i) out[i] = quantizeOne(in[i], scale, invScale, k);
    return;
  }
  int64_t saturated = 0;
  int64_t flushed = 0;
  for (int64_t i = 0; i < n; ++i) out[i] = quantizeOneCounted(in[i], scale, invScale, k, saturated, flushed);
  counts->saturated += saturated;
  counts->flushed += flushed;
}

AMPSCOPE_FP8_ALWAYS_INLINE float absMaxBody(const float* in, int64_t n) {
  // Positive floats order like their bit patterns, NaN patterns above inf; magnitudes are below 2^31,
  // so a signed maximum orders them (vectorised without unsigned compares).
  int32_t maxBits = 0;
  for (int64_t i = 0; i < n; ++i) {
    const auto a = static_cast<int32_t>(bitsOf(in[i]) & 0x7FFFFFFFu);
    maxBits = a > maxBits ? a : maxBits;
  }
  return maxBits > 0x7F800000 ? std::numeric_limits<float>::quiet_NaN() : floatOf(static_cast<uint32_t>(maxBits));
}

#if AMPSCOPE_FP8_ISA_VARIANTS
KernelIsa detectKernelIsa() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("x86-64-v4")) return KernelIsa::X86_64_V4;
  if (__builtin_cpu_supports("x86-64-v3")) return KernelIsa::X86_64_V3;
  return KernelIsa::Baseline;
}
#else
KernelIsa detectKernelIsa() { return KernelIsa::Baseline; }
#endif

// The variant in use, chosen at the first call: the CPU's best, or AMPSCOPE_FP8_ISA's if it is narrower.
std::atomic<int>& selectedIsa() {
  static std::atomic<int> isa{[] {
    KernelIsa chosen = bestKernelIsa();
    if (const char* env = std::getenv("AMPSCOPE_FP8_ISA")) {
      for (KernelIsa candidate : {KernelIsa::Baseline, KernelIsa::X86_64_V3, KernelIsa::X86_64_V4}) {
        if (std::strcmp(env, kernelIsaName(candidate)) == 0 && candidate <= chosen) chosen = candidate;
      }
    }
    return static_cast<int>(chosen);
  }()};
  return isa;
}

}  // namespace

KernelIsa bestKernelIsa() {
  static const KernelIsa best = detectKernelIsa();
  return best;
}

KernelIsa kernelIsa() { return static_cast<KernelIsa>(selectedIsa().load(std::memory_order_relaxed)); }

bool setKernelIsa(KernelIsa isa) {
  if (isa > bestKernelIsa()) return false;
  selectedIsa().store(static_cast<int>(isa), std::memory_order_relaxed);
  return true;
}

const char* kernelIsaName(KernelIsa isa) {
  switch (isa) {
    case KernelIsa::X86_64_V4: return "x86-64-v4";
    case KernelIsa::X86_64_V3: return "x86-64-v3";
    case KernelIsa::Baseline: break;
  }
  return "baseline";
}

AMPSCOPE_FP8_ISA_DISPATCH(void, quantize,
                          (const float* in, float* out, int64_t n, QuantFormat format, float scale, float invScale,
                           QuantCounts* counts),
                          (in, out, n, format, scale, invScale, counts))

float quantizeValue(float value, QuantFormat format) {
  float out = 0;
  quantize(&value, &out, 1, format, 1.0f, 1.0f, nullptr);
  return out;
}

AMPSCOPE_FP8_ISA_DISPATCH(float, absMax, (const float* in, int64_t n), (in, n))

}  // namespace ampscope::detail::fp8
