// The native-kernel self-check: planted wrong kernels are caught, a kernel exact by construction passes
// with no output off the exact rounding, the capability probe takes a mode's native path away when its
// GEMM fails, and this LibTorch's own kernels report what its version has (GradScaler CPU kernels from
// torch 2.3, float8 dtypes from 2.1, per PyTorch's release notes).
#include <gtest/gtest.h>
#include <torch/torch.h>
#include <torch/version.h>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ampscope/engine/comparison.h"
#include "ampscope/engine/kernel_check.h"
#include "ampscope/engine/number_format.h"
#include "ampscope/engine/path_timing.h"
#include "kernel_check_cases.h"
#include "torch_compat.h"

namespace ampscope::detail {
namespace {

const std::vector<GemmShape> kShapes = {{16, 64, 32}, {16, 256, 10}};

// The exact GEMM in double, rounded once to the dtype: what a perfect kernel returns.
torch::Tensor exactLinear(const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b) {
  const torch::Tensor y = torch::linear(x.to(torch::kDouble), w.to(torch::kDouble), b.to(torch::kDouble));
  const DType format = x.scalar_type() == torch::kBFloat16 ? DType::BF16
                       : x.scalar_type() == torch::kHalf   ? DType::FP16
                                                           : DType::FP32;
  torch::Tensor rounded = y.clone();
  double* data = rounded.data_ptr<double>();
  for (int64_t i = 0; i < rounded.numel(); ++i) data[i] = roundTo(format, data[i]);
  return rounded.to(x.scalar_type());
}

TEST(KernelCheck, AKernelExactByConstructionPassesWithNothingOffTheExactRounding) {
  for (torch::ScalarType dtype : {torch::kBFloat16, torch::kHalf, torch::kFloat}) {
    const KernelCheck check = checkLinear("exact", dtype, kShapes, exactLinear, 7);
    ASSERT_TRUE(check.available) << check.note;
    EXPECT_TRUE(check.correct) << check.note;
    EXPECT_EQ(check.outputs, 16 * 32 + 16 * 10);
    EXPECT_EQ(check.differingShare, 0);
    EXPECT_EQ(check.maxUlps, 0);
    EXPECT_LE(check.worstBoundRatio, 0.5) << "at most half an ulp from the exact result";
  }
}

// A BF16 GEMM that rounds its running sum to BF16 after every product (no FP32 accumulator): its
// error grows with the sum's length far past one BF16 rounding.
TEST(KernelCheck, ALowPrecisionAccumulatorIsCaught) {
  const LinearKernel bf16Accumulator = [](const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b) {
    torch::Tensor y = b.to(torch::kFloat).expand({x.size(0), w.size(0)}).clone();
    const torch::Tensor xf = x.to(torch::kFloat), wf = w.to(torch::kFloat);
    for (int64_t k = 0; k < x.size(1); ++k) {
      y = (y + xf.select(1, k).unsqueeze(1) * wf.select(1, k).unsqueeze(0)).to(torch::kBFloat16).to(torch::kFloat);
    }
    return y.to(torch::kBFloat16);
  };
  const KernelCheck check = checkLinear("planted", torch::kBFloat16, kShapes, bf16Accumulator, 7);
  ASSERT_TRUE(check.available);
  EXPECT_FALSE(check.correct);
  EXPECT_GT(check.worstBoundRatio, 1.0);
  EXPECT_NE(check.note.find("times what FP32 accumulation and one rounding allow"), std::string::npos) << check.note;
  EXPECT_NE(kernelCheckLine(check).find("WRONG, not used"), std::string::npos) << kernelCheckLine(check);
}

// One output moved by 4 BF16 ulps is enough.
TEST(KernelCheck, OneOutputFourUlpsOffIsCaught) {
  const LinearKernel oneOff = [](const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b) {
    torch::Tensor y = exactLinear(x, w, b);
    if (y.size(1) == 10) {
      torch::Tensor bits = y.view(torch::kShort);
      bits[3][4] += 4;
    }
    return y;
  };
  const KernelCheck check = checkLinear("planted", torch::kBFloat16, kShapes, oneOff, 7);
  EXPECT_FALSE(check.correct);
  EXPECT_EQ(check.maxUlps, 4);
  EXPECT_NEAR(check.differingShare, 1.0 / (16 * 32 + 16 * 10), 1e-12);
}

// The emulation's linear (FP32 GEMM of the rounded inputs, rounded once) compared with itself: no
// difference; the exact kernel against it differs at most where FP32's sum crossed a rounding boundary.
TEST(KernelCheck, TheComparisonWithTheEmulationCountsOutputsThatDiffer) {
  const LinearKernel emulation = [](const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b) {
    return torch::linear(x.to(torch::kFloat), w.to(torch::kFloat), b.to(torch::kFloat)).to(x.scalar_type());
  };
  const KernelCheck check = checkLinear("emulation", torch::kHalf, kShapes, emulation, 7);
  ASSERT_TRUE(check.comparedWithEmulation);
  EXPECT_TRUE(check.correct) << check.note;
  EXPECT_EQ(check.emulationDifferingShare, 0);
  EXPECT_EQ(check.emulationMaxUlps, 0);
  const KernelCheck fp32 = checkLinear("fp32", torch::kFloat, kShapes, emulation, 7);
  EXPECT_FALSE(fp32.comparedWithEmulation) << "FP32 is not emulated";
}

// The conv1d failure seen with Debian 13's torch 2.6 on an AVX-512 CPU (oneDNN): errors near 0.84. A
// conv1d that leaves out one input channel errs by that order; the exact one passes.
TEST(KernelCheck, AConv1dThatLosesAChannelIsCaught) {
  const Conv1dKernel exact = [](const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b) {
    return torch::conv1d(x.to(torch::kDouble), w.to(torch::kDouble), b.to(torch::kDouble), 1, 1).to(torch::kFloat);
  };
  const Conv1dKernel lossy = [](const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b) {
    torch::Tensor w2 = w.clone();
    w2.select(1, 5).zero_();
    return torch::conv1d(x, w2, b, 1, 1);
  };
  const KernelCheck good = checkConv1d(exact, 4);
  EXPECT_TRUE(good.correct) << good.note;
  EXPECT_EQ(good.outputs, 16 * 32 * 12);
  const KernelCheck bad = checkConv1d(lossy, 4);
  EXPECT_TRUE(bad.available);
  EXPECT_FALSE(bad.correct);
  EXPECT_GT(bad.worstBoundRatio, 100.0);
}

TEST(KernelCheck, AKernelThatThrowsIsUnavailableWithItsMessage) {
  const LinearKernel throws = [](const torch::Tensor&, const torch::Tensor&, const torch::Tensor&) -> torch::Tensor {
    throw std::runtime_error("\"addmm_impl_cpu_\" not implemented for 'Half'\nmore");
  };
  const KernelCheck check = checkLinear("fp16-linear", torch::kHalf, kShapes, throws, 7);
  EXPECT_FALSE(check.available);
  EXPECT_FALSE(check.correct);
  EXPECT_EQ(check.note, "\"addmm_impl_cpu_\" not implemented for 'Half'");
  EXPECT_EQ(kernelCheckLine(check), "fp16-linear: not in this LibTorch (\"addmm_impl_cpu_\" not implemented for 'Half')");
}

// The shapes come from the models: TinyMLP's first layer and the Transformer's feed-forward among them.
TEST(KernelCheck, TheGemmShapesAreTheModelsLayers) {
  const std::vector<GemmShape> shapes = modelGemmShapes();
  EXPECT_GE(shapes.size(), 4u);
  for (const GemmShape& s : shapes) {
    EXPECT_EQ(s.batch, 16);
    EXPECT_GT(s.in, 0);
    EXPECT_GT(s.out, 0);
  }
}

// This LibTorch's own kernels: the checks print (for the record of this machine) and say what the
// version has. Correctness of the native GEMMs is not asserted here: that is what the check reports
// at run time, and a wrong kernel on some CPU is exactly what it is there to catch.
TEST(KernelCheck, ThisLibTorchsKernelsAreCheckedAndReported) {
  const std::vector<KernelCheck>& checks = nativeKernelChecks();
  for (const KernelCheck& check : checks) std::printf("%s\n", kernelCheckLine(check).c_str());
  for (const char* name : {"bf16-linear", "fp16-linear", "fp32-linear", "fp32-conv1d", "amp-unscale",
                           "amp-update-scale", "float8-e4m3fn-cast", "float8-e5m2-cast"}) {
    EXPECT_TRUE(findKernelCheck(checks, name)) << name;
  }
  const KernelCheck* fp32 = findKernelCheck(checks, "fp32-linear");
  ASSERT_TRUE(fp32);
  EXPECT_TRUE(fp32->available);
  const bool scalerKernels = AMPSCOPE_TORCH_AT_LEAST(2, 3);
  const bool float8 = AMPSCOPE_TORCH_AT_LEAST(2, 1);
  for (const char* name : {"amp-unscale", "amp-update-scale"}) {
    const KernelCheck* check = findKernelCheck(checks, name);
    EXPECT_EQ(check->available, scalerKernels) << kernelCheckLine(*check);
    // Where the kernels exist they follow GradScaler's documented rule exactly: anything else is a bug
    // in the LibTorch, not a rounding question.
    if (scalerKernels) {
      EXPECT_TRUE(check->correct) << kernelCheckLine(*check);
    }
  }
  for (const char* name : {"float8-e4m3fn-cast", "float8-e5m2-cast"}) {
    const KernelCheck* check = findKernelCheck(checks, name);
    EXPECT_EQ(check->available, float8) << kernelCheckLine(*check);
    if (float8) {
      EXPECT_TRUE(check->correct) << kernelCheckLine(*check);
      EXPECT_GT(check->outputs, 256);
    }
  }
}

// A native GEMM that fails the check takes the native path away: the mode runs the emulation, and the
// capability says why (the CLI's path line and the status bar show it).
TEST(KernelCheck, AModeWhoseNativeGemmFailsItsCheckIsEmulatedAndSaysWhy) {
  disablePathTiming();
  if (!probeCapabilities({PrecisionMode::BF16Amp}, PrecisionPath::Native).front().native) {
    GTEST_SKIP() << "no native BF16 path in this LibTorch";
  }
  std::vector<KernelCheck> planted = nativeKernelChecks();
  for (KernelCheck& check : planted) {
    if (check.kernel != "bf16-linear") continue;
    check.correct = false;
    check.note = "error up to 57 times what FP32 accumulation and one rounding allow";
  }
  replaceNativeKernelChecksForTest(planted);
  for (PrecisionPath path : {PrecisionPath::Auto, PrecisionPath::Native}) {
    const auto caps = probeCapabilities({PrecisionMode::BF16Amp, PrecisionMode::BF16Pure}, path);
    for (const ModeCapability& c : caps) {
      EXPECT_FALSE(c.native) << modeName(c.mode);
      EXPECT_TRUE(c.nativeFailedCheck);
      EXPECT_NE(c.pathNote.find("native BF16 linear failed its self-check on this CPU: error up to 57 times"),
                std::string::npos)
          << c.pathNote;
      EXPECT_NE(c.detail.find("Native not used"), std::string::npos) << c.detail;
    }
  }
  replaceNativeKernelChecksForTest(std::nullopt);
  EXPECT_TRUE(probeCapabilities({PrecisionMode::BF16Amp}, PrecisionPath::Native).front().native);
}

// The checks run once per machine: the first nativeKernelChecks() stores them in the cache file, the
// next process reads them from there (what it reads is what it uses: a kernel the file says is wrong
// stays unused), and a recheck runs them again and replaces the file.
TEST(KernelCheck, TheChecksAreKeptInTheCacheFileUntilARecheck) {
  namespace fs = std::filesystem;
  disablePathTiming();
  const fs::path dir = fs::temp_directory_path() / ("ampscope-kernel-cache-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const std::string file = (dir / "kernel-checks.json").string();
  useKernelCheckCache(file);
  const std::vector<KernelCheck> measured = nativeKernelChecks();
  EXPECT_EQ(nativeKernelChecksSource(), "");
  EXPECT_EQ(kernelCheckCacheProblem(), "");
  ASSERT_TRUE(fs::exists(file));

  // A later start on this machine: the file's table, kernel by kernel.
  useKernelCheckCache("");
  useKernelCheckCache(file);
  const std::vector<KernelCheck> cached = nativeKernelChecks();
  EXPECT_EQ(nativeKernelChecksSource(), file);
  ASSERT_EQ(cached.size(), measured.size());
  for (size_t i = 0; i < cached.size(); ++i) {
    EXPECT_EQ(kernelCheckLine(cached[i]), kernelCheckLine(measured[i]));
  }

  // The file says native BF16 GEMM is wrong here: the next start believes it without running anything.
  std::stringstream text;
  text << std::ifstream(file).rdbuf();
  std::string planted = text.str();
  const auto gemm = planted.find("\"bf16-linear\"");
  ASSERT_NE(gemm, std::string::npos);
  const auto correct = planted.find("\"correct\": true", gemm);
  ASSERT_NE(correct, std::string::npos) << planted;
  planted.replace(correct, 15, "\"correct\": false");
  std::ofstream(file, std::ios::trunc) << planted;
  useKernelCheckCache("");
  useKernelCheckCache(file);
  const KernelCheck* wrong = findKernelCheck(nativeKernelChecks(), "bf16-linear");
  ASSERT_TRUE(wrong);
  EXPECT_FALSE(wrong->correct);
  if (wrong->available) {
    EXPECT_FALSE(probeCapabilities({PrecisionMode::BF16Amp}, PrecisionPath::Native).front().native);
  }

  // --recheck: run now, and the file holds the fresh table again.
  useKernelCheckCache(file, true);
  EXPECT_EQ(kernelCheckLine(*findKernelCheck(nativeKernelChecks(), "bf16-linear")),
            kernelCheckLine(*findKernelCheck(measured, "bf16-linear")));
  EXPECT_EQ(nativeKernelChecksSource(), "");
  useKernelCheckCache("");
  useKernelCheckCache(file);
  EXPECT_EQ(kernelCheckLine(*findKernelCheck(nativeKernelChecks(), "bf16-linear")),
            kernelCheckLine(*findKernelCheck(measured, "bf16-linear")));
  EXPECT_EQ(nativeKernelChecksSource(), file);

  useKernelCheckCache("");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ampscope::detail
