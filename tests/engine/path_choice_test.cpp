// The precision path each mode takes (native LibTorch kernels or the exact emulation): the probe's
// choice from timings made up here (no test times anything unless asked), its cache, the settings
// that force a path, and the two paths of the BF16 modes agreeing on a TinyMLP step within what BF16
// rounding allows.
#include <gtest/gtest.h>
#include <torch/torch.h>
#include <torch/version.h>

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "ampscope/engine/comparison.h"
#include "ampscope/engine/path_timing.h"
#include "mode_trainer.h"
#include "models/model.h"
#include "precision_context.h"
#include "synthetic_data.h"

namespace ampscope::detail {
namespace {

namespace fs = std::filesystem;

// CPU FP16 autocast and FP16 GEMMs: missing in LibTorch 1.13 (autocast's CPU dtype must be bfloat16,
// addmm is not implemented for Half), present in the 2.6 of Debian 13. Other versions: what the
// probe finds.
bool fp16Native() {
#if TORCH_VERSION_MAJOR == 1
  return false;
#elif TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 6
  return true;
#else
  return probeCapabilities({PrecisionMode::FP16Amp}, PrecisionPath::Native).front().nativeAvailable;
#endif
}

const ModeCapability& of(const std::vector<ModeCapability>& caps, PrecisionMode mode) {
  for (const auto& c : caps)
    if (c.mode == mode) return c;
  throw std::runtime_error("no capability for " + modeName(mode));
}

// Turns path timing on with a cache file of its own and a counting fake timer; off again at the end.
class PathTimingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    file_ = fs::temp_directory_path() /
            ("ampscope-path-choice-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".json");
    fs::remove(file_);
  }
  void TearDown() override {
    disablePathTiming();
    fs::remove(file_);
  }
  // A fake timer whose two paths trained bit-identically over 7 steps unless `firstDiffering` says
  // from which step their losses parted.
  void enable(PathTiming timing, int firstDiffering = 0) {
    timing.comparedSteps = 7;
    timing.firstDifferingStep = firstDiffering;
    timing.largestLossDifference = firstDiffering ? 0.001 : 0;
    enablePathTiming({file_.string(), [this, timing](PrecisionMode mode, ModelKind model, int) {
                        timed_.push_back(mode);
                        models_.push_back(model);
                        return timing;
                      }});
  }
  fs::path file_;
  std::vector<PrecisionMode> timed_;
  std::vector<ModelKind> models_;
};

// The direction of a CPU without BF16 instructions (the Zen 3: native 4761 us a step).
TEST_F(PathTimingTest, AutoTakesTheEmulationWhereTheTimingsSayItIsFasterAndKeepsTheChoice) {
  enable({4761, 915});
  const std::vector<PrecisionMode> modes = {PrecisionMode::FP32, PrecisionMode::BF16Amp, PrecisionMode::BF16Pure,
                                            PrecisionMode::FP16Amp};
  const auto caps = probeCapabilities(modes, PrecisionPath::Auto, 1);
  ASSERT_TRUE(of(caps, PrecisionMode::BF16Amp).nativeAvailable) << "LibTorch 1.13 and 2.6 have CPU BF16 autocast";
  EXPECT_EQ(of(caps, PrecisionMode::FP16Amp).nativeAvailable, fp16Native());
  // Only the modes with both paths are timed: FP32 has one, FP16 autocast is missing on 1.13's CPU.
  std::vector<PrecisionMode> expectTimed = {PrecisionMode::BF16Amp, PrecisionMode::BF16Pure};
  if (fp16Native()) expectTimed.push_back(PrecisionMode::FP16Amp);
  EXPECT_EQ(timed_, expectTimed);
  EXPECT_TRUE(of(caps, PrecisionMode::FP32).native);
  for (PrecisionMode mode : {PrecisionMode::BF16Amp, PrecisionMode::BF16Pure}) {
    const ModeCapability& c = of(caps, mode);
    EXPECT_FALSE(c.native) << modeName(mode);
    EXPECT_EQ(c.pathNote, "emulated: bit-identical to native over 7 steps and 5.2x faster on this CPU");
    EXPECT_EQ(c.comparedSteps, 7);
    EXPECT_EQ(c.firstDifferingStep, 0);
    EXPECT_EQ(c.nativeStepUs, 4761);
    EXPECT_EQ(c.emulatedStepUs, 915);
    EXPECT_NE(c.detail.find("emulated"), std::string::npos) << c.detail;
    EXPECT_EQ(c.detail.find("failed"), std::string::npos) << "chosen, not a failure: " << c.detail;
  }
  EXPECT_FALSE(of(caps, PrecisionMode::FP16Amp).native);

  // Asked again: the same answer, nothing timed again.
  const auto again = probeCapabilities(modes, PrecisionPath::Auto, 1);
  EXPECT_EQ(timed_.size(), expectTimed.size());
  EXPECT_FALSE(of(again, PrecisionMode::BF16Amp).native);

  // A new process (a fresh cache over the same file) reads the choice back without timing.
  enablePathTiming({file_.string(), [](PrecisionMode, ModelKind, int) -> PathTiming {
                      ADD_FAILURE() << "timed although the file holds the timing";
                      return {1, 1};
                    }});
  EXPECT_FALSE(of(probeCapabilities(modes, PrecisionPath::Auto, 1), PrecisionMode::BF16Pure).native);

  // Another thread count is another machine key: timed anew.
  enable({845, 1690});
  const auto twoThreads = probeCapabilities({PrecisionMode::BF16Amp}, PrecisionPath::Auto, 2);
  EXPECT_EQ(timed_.size(), expectTimed.size() + 1);
  EXPECT_TRUE(twoThreads.front().native);
}

// This machine's direction (BF16 instructions: native 845 us, emulated slower).
TEST_F(PathTimingTest, AutoKeepsNativeWhereItIsFaster) {
  enable({845, 1690});
  const auto caps = probeCapabilities({PrecisionMode::BF16Amp}, PrecisionPath::Auto, 1);
  EXPECT_TRUE(caps.front().native);
  EXPECT_EQ(caps.front().pathNote, "native: 2.0x faster than emulated on this CPU (bit-identical to native over 7 steps)");
  EXPECT_NE(caps.front().detail.find("native"), std::string::npos);
}

// The case: this CPU's BF16 dot products sum in another order, so the emulation, though faster
// on a CPU without BF16 instructions, trains differently from PyTorch here: auto keeps native.
TEST_F(PathTimingTest, AutoKeepsNativeWhereTheEmulationIsNotBitIdenticalHere) {
  enable({4761, 915}, /*firstDiffering=*/2);
  const auto caps = probeCapabilities({PrecisionMode::BF16Amp}, PrecisionPath::Auto, 1);
  EXPECT_TRUE(caps.front().native);
  EXPECT_EQ(caps.front().firstDifferingStep, 2);
  EXPECT_EQ(caps.front().pathNote.rfind("native: the emulation is not bit-identical to this CPU's kernels", 0), 0u)
      << caps.front().pathNote;
}

// The paths are compared on the run's own model (its layer shapes), each model once.
TEST_F(PathTimingTest, ThePathsAreComparedOnTheRunsModel) {
  enable({845, 1690});
  probeCapabilities({PrecisionMode::BF16Amp}, PrecisionPath::Auto, 1, ModelKind::TinyTransformer);
  probeCapabilities({PrecisionMode::BF16Amp}, PrecisionPath::Auto, 1, ModelKind::DeepMLP);
  probeCapabilities({PrecisionMode::BF16Amp}, PrecisionPath::Auto, 1, ModelKind::TinyTransformer);
  EXPECT_EQ(models_, (std::vector<ModelKind>{ModelKind::TinyTransformer, ModelKind::DeepMLP}));
}

TEST_F(PathTimingTest, AForcedPathIsTakenWithoutTiming) {
  enable({4761, 915});
  const auto native = probeCapabilities({PrecisionMode::BF16Amp, PrecisionMode::FP16AmpScaled},
                                        PrecisionPath::Native, 1);
  EXPECT_TRUE(of(native, PrecisionMode::BF16Amp).native);
  EXPECT_EQ(of(native, PrecisionMode::BF16Amp).pathNote, "native: set by precision-path");
  EXPECT_EQ(of(native, PrecisionMode::FP16AmpScaled).native, fp16Native()) << "no FP16 autocast on 1.13's CPU";
  EXPECT_EQ(of(native, PrecisionMode::FP16AmpScaled).pathNote,
            fp16Native() ? "native: set by precision-path"
                         : "emulated: precision-path asks for native, but this LibTorch has no native path");
  const auto emulated = probeCapabilities({PrecisionMode::BF16Pure}, PrecisionPath::Emulated, 1);
  EXPECT_FALSE(emulated.front().native);
  EXPECT_TRUE(timed_.empty());
}

TEST_F(PathTimingTest, AFailingTimerKeepsNativeAndSaysWhy) {
  enablePathTiming({file_.string(), [](PrecisionMode, ModelKind, int) -> PathTiming {
                      throw std::runtime_error("no kernel\nsecond line");
                    }});
  const auto caps = probeCapabilities({PrecisionMode::BF16Amp}, PrecisionPath::Auto, 1);
  EXPECT_TRUE(caps.front().native);
  EXPECT_EQ(caps.front().pathNote, "native: the paths were not timed (timing failed: no kernel)");
}

// Without the apps turning timing on (tests, library users), auto keeps native where there is one.
TEST(PathChoice, WithTimingOffAutoKeepsNative) {
  disablePathTiming();
  const auto caps = probeCapabilities({PrecisionMode::BF16Amp}, PrecisionPath::Auto, 1);
  EXPECT_TRUE(caps.front().native);
  EXPECT_EQ(caps.front().pathNote, "native: the paths were not timed");
}

TEST(PathChoice, AComparisonRunsThePathTheSettingChose) {
  disablePathTiming();
  RunConfig config = presetFor(ModelKind::TinyMLP);
  config.modes = {PrecisionMode::BF16Amp, PrecisionMode::BF16Pure};
  config.precisionPath = PrecisionPath::Emulated;
  Comparison comparison(config);
  for (const auto& c : comparison.capabilities()) EXPECT_FALSE(c.native) << modeName(c.mode);
  const StepRecord record = comparison.step();
  ASSERT_EQ(record.modes.size(), 2u);
  for (const auto& s : record.modes) EXPECT_TRUE(std::isfinite(s.loss)) << modeName(s.mode);
  // The op table reads the values' format: emulated ops say so.
  bool sawEmulated = false;
  for (const auto& op : comparison.opDtypeReport(PrecisionMode::BF16Amp)) sawEmulated |= op.emulated;
  EXPECT_TRUE(sawEmulated);
}

// The real timing and comparison, only when asked (AMPSCOPE_TEST_PATH_TIMING=1): both numbers come out
// positive, the paths were compared, and the result is cached. Its cost is printed, not checked.
TEST_F(PathTimingTest, TheRealTimingWhenAsked) {
  if (std::getenv("AMPSCOPE_TEST_PATH_TIMING") == nullptr) GTEST_SKIP() << "set AMPSCOPE_TEST_PATH_TIMING=1";
  enablePathTiming({file_.string(), nullptr});
  const auto started = std::chrono::steady_clock::now();
  const auto caps = probeCapabilities({PrecisionMode::BF16Amp, PrecisionMode::BF16Pure}, PrecisionPath::Auto, 1);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  for (const auto& c : caps) {
    EXPECT_GT(c.nativeStepUs, 0);
    EXPECT_GT(c.emulatedStepUs, 0);
    EXPECT_EQ(c.comparedSteps, 7);
    std::printf("%s: native %.0f us, emulated %.0f us -> %s\n", modeName(c.mode).c_str(), c.nativeStepUs,
                c.emulatedStepUs, c.pathNote.c_str());
  }
  std::printf("timing both modes took %.3f s\n", seconds);
  EXPECT_TRUE(fs::exists(file_));
}

// Both paths of a BF16 mode train the same TinyMLP step from the same weights and batch.
struct TwoPaths {
  ModeStep native;
  ModeStep emulated;
  std::vector<std::pair<std::string, torch::Tensor>> nativeParams;
  std::vector<std::pair<std::string, torch::Tensor>> emulatedParams;
};
TwoPaths stepBothPaths(PrecisionMode mode) {
  const RunConfig config = presetFor(ModelKind::TinyMLP);
  torch::manual_seed(0);
  auto reference = makeModel(ModelKind::TinyMLP);
  ModeCapability native;
  native.mode = mode;
  ModeCapability emulated = native;
  emulated.native = false;
  ModeTrainer a(config, native, *reference);
  ModeTrainer b(config, emulated, *reference);
  EXPECT_FALSE(a.context().emulated());
  EXPECT_TRUE(b.context().emulated());
  const Batch batch = SyntheticData(ModelKind::TinyMLP, 0, config.batchSize).batch(1);
  TwoPaths out{a.step(1, batch, false, false), b.step(1, batch, false, false), {}, {}};
  for (const auto& [name, p] : a.namedParameters()) out.nativeParams.emplace_back(name, p.detach().to(torch::kFloat));
  for (const auto& [name, p] : b.namedParameters()) out.emulatedParams.emplace_back(name, p.detach().clone());
  // Gradients as float32, after the parameters (stored under "<name>.grad").
  for (const auto& [name, p] : a.namedParameters()) out.nativeParams.emplace_back(name + ".grad", p.grad().to(torch::kFloat));
  for (const auto& [name, p] : b.namedParameters()) out.emulatedParams.emplace_back(name + ".grad", p.grad().clone());
  return out;
}

double bf16(double x) { return static_cast<double>(static_cast<float>(c10::BFloat16(static_cast<float>(x)))); }

// bf16-amp. Both paths round the same tensors at the same places (linear's input, weight, bias and
// output to BF16; softmax/loss in FP32), and a native BF16 GEMM on CPU accumulates in FP32 and rounds
// its output once, as the emulation's FP32 GEMM followed by one RNE rounding does. What differs is the
// kernels' summation order: an FP32 sum that lands on the other side of a BF16 rounding boundary moves
// that one output by one BF16 ulp (2^-8 relative). That happens to few elements (about 1 in 10^4 here),
// so the loss agrees to far better than BF16's 2^-9 half-ulp and the gradients to better than 2^-10.
// Not rounding at all (plain FP32) would miss the loss bound: FP32 gives 2.31522 on this step, BF16
// AMP 2.31509, 2^-14 apart.
TEST(PathAgreement, Bf16AmpNativeAndEmulatedAgreeWithinBf16Rounding) {
  if (!probeCapabilities({PrecisionMode::BF16Amp}, PrecisionPath::Native).front().native) GTEST_SKIP();
  const TwoPaths t = stepBothPaths(PrecisionMode::BF16Amp);
  EXPECT_LE(std::abs(t.native.loss - t.emulated.loss), std::ldexp(std::abs(t.native.loss), -16))
      << t.native.loss << " vs " << t.emulated.loss;
  for (size_t i = 0; i < t.nativeParams.size(); ++i) {
    const torch::Tensor& a = t.nativeParams[i].second;
    const torch::Tensor& b = t.emulatedParams[i].second;
    const double scale = std::max(a.norm().item<double>(), 1e-30);
    EXPECT_LE((a - b).norm().item<double>() / scale, std::ldexp(1.0, -10)) << t.nativeParams[i].first;
  }
}

// bf16-pure. The emulation computes each op exactly in FP32 and rounds its output once; some of
// LibTorch 1.13's native BF16 CPU kernels round in between as well: log_softmax keeps the
// log-sum-exp in a BF16 value before subtracting it, and nll_loss's mean adds BF16 partial sums. So
// the native loss may sit on the neighbouring BF16 value (one ulp: 2^-6 at a loss near 2.3), and every
// gradient inherits a difference of about one more rounding per op: measured 0.2-0.5 % relative L2,
// bounded here by 2^-6 (1.6 %, four ops of one extra half-ulp 2^-9 each, with room). The update: on
// its first step AdamW moves each weight by about lr whatever the gradient's size, so the two paths'
// weights differ only where a gradient's rounding changed the update's own rounding (measured under
// 10 % of the elements); the emulated weights must be BF16 values (RoundedAdamW rounds each in-place
// op to BF16, as model.to(bfloat16)'s AdamW stores BF16).
TEST(PathAgreement, Bf16PureNativeAndEmulatedAgreeWithinBf16Rounding) {
  if (!probeCapabilities({PrecisionMode::BF16Pure}, PrecisionPath::Native).front().native) GTEST_SKIP();
  const TwoPaths t = stepBothPaths(PrecisionMode::BF16Pure);
  EXPECT_EQ(t.emulated.loss, bf16(t.emulated.loss)) << "the emulated loss is a BF16 value";
  EXPECT_EQ(t.native.loss, bf16(t.native.loss));
  const double ulp = std::ldexp(1.0, static_cast<int>(std::floor(std::log2(std::abs(t.native.loss)))) - 7);
  EXPECT_LE(std::abs(t.native.loss - t.emulated.loss), ulp) << t.native.loss << " vs " << t.emulated.loss;
  int64_t differing = 0;
  int64_t weights = 0;
  for (size_t i = 0; i < t.nativeParams.size(); ++i) {
    const std::string& name = t.nativeParams[i].first;
    const torch::Tensor& a = t.nativeParams[i].second;
    const torch::Tensor& b = t.emulatedParams[i].second;
    if (name.size() > 5 && name.compare(name.size() - 5, 5, ".grad") == 0) {
      EXPECT_LE(((a - b).norm() / a.norm()).item<double>(), std::ldexp(1.0, -6)) << name;
      EXPECT_TRUE(torch::equal(b, b.to(torch::kBFloat16).to(torch::kFloat))) << name << " is rounded to BF16";
    } else {
      EXPECT_TRUE(torch::equal(b, b.to(torch::kBFloat16).to(torch::kFloat))) << name << " holds BF16 values";
      differing += (a != b).sum().item<int64_t>();
      weights += a.numel();
    }
  }
  EXPECT_LT(static_cast<double>(differing), 0.10 * static_cast<double>(weights)) << differing << " of " << weights;
}

}  // namespace
}  // namespace ampscope::detail

