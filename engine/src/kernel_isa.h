// The instruction set the engine's hand-dispatched loops run with: the FP8/FP4 quantiser loops
// (fp8/element_quantizer.cpp, fp8/block_quantizer.cpp), the FP16/BF16 rounding and counting loops
// (low_precision.cpp), the exponent histogram's field counts (exponent_histogram_builder.cpp), the
// gradients' sum of squares (sum_of_squares.cpp), the fused optimizer passes (fused_kernels.cpp) and the
// GradScaler's float32 unscale (grad_scaler.cpp).
// kernelIsa() is the widest the CPU has, unless the environment variable AMPSCOPE_KERNEL_ISA (baseline,
// x86-64-v3, x86-64-v4) or setKernelIsa() asks for a narrower one, so that the tests run every
// fallback on a machine that has the widest (tests/engine/low_precision_test.cpp,
// tests/engine/histogram_formats_test.cpp, tests/engine/fused_optimizer_test.cpp,
// tests/engine/grad_scaler_test.cpp, tests/engine/fp8/kernel_isa_test.cpp). Every choice gives the same
// bits and counts.
//   baseline:  SSE2 only; FP16 rounding by c10::Half, one value at a time.
//   x86-64-v3: AVX2, FMA, F16C: FP16 rounding by VCVTPS2PH, 8 lanes.
//   x86-64-v4: AVX-512 F/BW/DQ/VL/CD: 16-lane rounding that counts in the same pass, 64-byte field
//              counts; with AVX512_BF16 too (kernelIsaHasBf16()), BF16 rounding by VCVTNEPS2BF16;
//              with GFNI, AVX512_BITALG and AVX512_VBMI too (kernelIsaHasGfni()), the field counts'
//              bit columns summed without a population count per bit.
// The quantiser loops are compiled once per choice (AMPSCOPE_ISA_DISPATCH below, GCC on x86-64 only;
// elsewhere only the baseline body exists and the choice does not reach them). This is a plain
// function-pointer or branch choice, not an ifunc, so it is safe under ThreadSanitizer too; the loops
// marked AMPSCOPE_VECTOR_CLONES (vector_clones.h) are chosen by the loader instead and ignore it.
#pragma once

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define AMPSCOPE_ISA_VARIANTS 1
#define AMPSCOPE_ISA_TARGET_V4 __attribute__((target("arch=x86-64-v4")))
#define AMPSCOPE_ISA_TARGET_V3 __attribute__((target("arch=x86-64-v3")))
#else
#define AMPSCOPE_ISA_VARIANTS 0
#endif

// For a loop body `name##Body` (an always-inline function): name##V4, name##V3 and name##Base, the
// body compiled for each instruction set, and `name`, which calls the one kernelIsa() names.
#if AMPSCOPE_ISA_VARIANTS
#define AMPSCOPE_ISA_DISPATCH(ret, name, params, args)                     \
  AMPSCOPE_ISA_TARGET_V4 ret name##V4 params { return name##Body args; }    \
  AMPSCOPE_ISA_TARGET_V3 ret name##V3 params { return name##Body args; }    \
  ret name##Base params { return name##Body args; }                         \
  ret name params {                                                         \
    switch (::ampscope::detail::kernelIsa()) {                              \
      case ::ampscope::detail::KernelIsa::X86_64_V4: return name##V4 args;  \
      case ::ampscope::detail::KernelIsa::X86_64_V3: return name##V3 args;  \
      case ::ampscope::detail::KernelIsa::Baseline: break;                  \
    }                                                                       \
    return name##Base args;                                                 \
  }
#else
#define AMPSCOPE_ISA_DISPATCH(ret, name, params, args) \
  ret name params { return name##Body args; }
#endif

#define AMPSCOPE_ALWAYS_INLINE inline __attribute__((always_inline))

namespace ampscope::detail {

enum class KernelIsa { Baseline, X86_64_V3, X86_64_V4 };

KernelIsa bestKernelIsa();  // the widest this CPU runs
KernelIsa kernelIsa();      // the one in use
// Whether the loops may use AVX512_BF16 (VCVTNEPS2BF16): the CPU has it and x86-64-v4 is in use.
bool kernelIsaHasBf16();
// Whether the exponent histogram's loops may use GFNI, AVX512_BITALG and AVX512_VBMI (bit columns by
// GF2P8AFFINEQB and VPOPCNTB, their sums gathered by VPERMB): the CPU has all three, x86-64-v4 is in
// use, and neither AMPSCOPE_KERNEL_GFNI=off nor setKernelIsaGfni(false) turned them off.
bool kernelIsaHasGfni();
bool cpuHasKernelGfni();      // whether the CPU has all three (and x86-64-v4)
bool kernelIsaGfniAllowed();  // whether they are allowed (the default unless AMPSCOPE_KERNEL_GFNI=off)
// Tests: allow or forbid those three under x86-64-v4; false (nothing changes) when the CPU lacks them.
bool setKernelIsaGfni(bool allowed);
// Tests: use `isa` from now on; false (nothing changes) when the CPU lacks it.
bool setKernelIsa(KernelIsa isa);
const char* kernelIsaName(KernelIsa isa);  // "baseline", "x86-64-v3", "x86-64-v4"

}  // namespace ampscope::detail
