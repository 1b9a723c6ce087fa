// The native-kernel self-check (ampscope/engine/kernel_check.h). References are computed here in plain
// long double loops, not with torch: the point is not to trust LibTorch's kernels, float64 ones included.
#include <torch/torch.h>
#include <torch/version.h>

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <mutex>
#include <optional>
#include <set>

#include "ampscope/engine/number_format.h"
#include "ampscope/engine/path_timing.h"
#include "ampscope/engine/version.h"
#include "global_generator_guard.h"
#include "kernel_check_cases.h"
#include "models/model.h"
#include "torch_compat.h"

namespace ampscope {
namespace detail {
namespace {

// FP32 accumulation of K products: each partial sum rounds once (u = 2^-24), so a correct kernel of
// any summation order is within K*u*sum|x*w| of the exact result (Higham, Accuracy and Stability of
// Numerical Algorithms, 2nd ed., eq. 3.5). Twice that leaves room for blocked and fused kernels.
constexpr double kUnitRoundoff32 = 1.0 / 16777216.0;

// The first sentence of LibTorch's message (its dispatcher errors go on for a page).
std::string firstLine(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  const auto sentence = line.find(". ");
  if (sentence != std::string::npos) line = line.substr(0, sentence + 1);
  return line;
}

DType dtypeOf(torch::ScalarType type) {
  switch (type) {
    case torch::kHalf: return DType::FP16;
    case torch::kBFloat16: return DType::BF16;
    default: return DType::FP32;
  }
}

// Adjacent representable values of a sign-magnitude format differ by one here (+0 and -0 both 0).
int64_t ordered(DType dtype, uint64_t bits) {
  const uint64_t sign = uint64_t{1} << (formatSpec(dtype).totalBits - 1);
  return (bits & sign) ? -static_cast<int64_t>(bits & ~sign) : static_cast<int64_t>(bits);
}

double ulpsBetween(DType dtype, double a, double b) {
  if (!std::isfinite(a) || !std::isfinite(b)) return std::numeric_limits<double>::infinity();
  return static_cast<double>(std::llabs(ordered(dtype, encode(dtype, a)) - ordered(dtype, encode(dtype, b))));
}

// Output-by-output comparison with the exact result.
struct Tally {
  int64_t outputs = 0;
  int64_t differing = 0;
  double maxUlps = 0;
  double worstBoundRatio = 0;
  int64_t emulationDiffering = 0;
  double emulationMaxUlps = 0;

  void add(DType dtype, double got, double exact, double bound) {
    ++outputs;
    const double ulps = ulpsBetween(dtype, got, roundTo(dtype, exact));
    if (ulps != 0) ++differing;
    maxUlps = std::max(maxUlps, ulps);
    const double ratio = std::isfinite(got) ? std::fabs(got - exact) / bound : std::numeric_limits<double>::infinity();
    worstBoundRatio = std::max(worstBoundRatio, ratio);
  }
  void addEmulation(DType dtype, double got, double emulated) {
    const double ulps = ulpsBetween(dtype, got, emulated);
    if (ulps != 0) ++emulationDiffering;
    emulationMaxUlps = std::max(emulationMaxUlps, ulps);
  }
  void into(KernelCheck& check, bool withEmulation) const {
    check.outputs = outputs;
    check.differingShare = outputs ? static_cast<double>(differing) / static_cast<double>(outputs) : 0;
    check.maxUlps = maxUlps;
    check.worstBoundRatio = worstBoundRatio;
    check.correct = outputs > 0 && worstBoundRatio <= 1.0;
    check.comparedWithEmulation = withEmulation;
    if (withEmulation) {
      check.emulationDifferingShare = outputs ? static_cast<double>(emulationDiffering) / static_cast<double>(outputs) : 0;
      check.emulationMaxUlps = emulationMaxUlps;
    }
  }
};

std::string boundNote(const KernelCheck& check) {
  char text[200];
  std::snprintf(text, sizeof text,
                "error up to %.3g times what FP32 accumulation and one rounding allow (%.3g %% of %lld outputs "
                "off the exact rounding)",
                check.worstBoundRatio, check.differingShare * 100.0, static_cast<long long>(check.outputs));
  return text;
}

std::vector<float> toFloats(const torch::Tensor& t) {
  const torch::Tensor f = t.to(torch::kFloat).contiguous();
  return std::vector<float>(f.data_ptr<float>(), f.data_ptr<float>() + f.numel());
}

// Uniform(-limit, limit) values rounded to `dtype` (the kernel's inputs are already in its dtype, as
// autocast casts them before the GEMM).
torch::Tensor drawn(std::vector<int64_t> shape, double limit, torch::ScalarType dtype, at::Generator& generator) {
  torch::Tensor t = torch::rand(shape, generator, torch::dtype(torch::kFloat)).mul_(2 * limit).sub_(limit);
  return t.to(dtype);
}

}  // namespace

torch::Tensor nativeLinear(const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b) {
  return torch::linear(x, w, b);
}

torch::Tensor nativeConv1d(const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b) {
  return torch::conv1d(x, w, b, /*stride=*/1, /*padding=*/1);
}

std::vector<GemmShape> modelGemmShapes() {
  GlobalGeneratorGuard keep;  // the models are built only for their shapes
  std::set<std::pair<int64_t, int64_t>> seen;
  std::vector<GemmShape> shapes;
  for (ModelKind kind : {ModelKind::TinyMLP, ModelKind::DeepMLP, ModelKind::TinyTransformer}) {
    const auto model = makeModel(kind);
    for (const auto& module : model->modules(/*include_self=*/false)) {
      const auto* linear = module->as<torch::nn::Linear>();
      if (!linear) continue;
      const int64_t in = linear->options.in_features();
      const int64_t out = linear->options.out_features();
      if (seen.insert({in, out}).second) shapes.push_back({16, in, out});
    }
  }
  return shapes;
}

KernelCheck checkLinear(const std::string& name, torch::ScalarType dtype, const std::vector<GemmShape>& shapes,
                        const LinearKernel& kernel, uint64_t seed) {
  KernelCheck check;
  check.kernel = name;
  const DType format = dtypeOf(dtype);
  const bool lowPrecision = format != DType::FP32;
  at::Generator generator = at::detail::createCPUGenerator(seed);
  Tally tally;
  try {
    for (const GemmShape& shape : shapes) {
      const double limit = 1.0 / std::sqrt(static_cast<double>(shape.in));  // torch.nn.Linear's init range
      const torch::Tensor x = drawn({shape.batch, shape.in}, 2.0, dtype, generator);
      const torch::Tensor w = drawn({shape.out, shape.in}, limit, dtype, generator);
      const torch::Tensor b = drawn({shape.out}, limit, dtype, generator);
      const torch::Tensor y = kernel(x, w, b);
      if (y.scalar_type() != dtype || y.sizes() != torch::IntArrayRef({shape.batch, shape.out})) {
        check.note = "returned " + std::string(c10::toString(y.scalar_type())) + " of the wrong shape or dtype";
        return check;
      }
      const std::vector<float> xs = toFloats(x), ws = toFloats(w), bs = toFloats(b), ys = toFloats(y);
      std::vector<float> emulated;
      if (lowPrecision) emulated = toFloats(torch::linear(x.to(torch::kFloat), w.to(torch::kFloat), b.to(torch::kFloat)));
      for (int64_t i = 0; i < shape.batch; ++i) {
        for (int64_t o = 0; o < shape.out; ++o) {
          long double exact = bs[o];
          double magnitude = std::fabs(static_cast<double>(bs[o]));
          for (int64_t k = 0; k < shape.in; ++k) {
            const long double product = static_cast<long double>(xs[i * shape.in + k]) * ws[o * shape.in + k];
            exact += product;
            magnitude += static_cast<double>(std::fabs(product));
          }
          const double exactDouble = static_cast<double>(exact);
          const double bound =
              ulp(format, exactDouble) + 2.0 * static_cast<double>(shape.in + 1) * kUnitRoundoff32 * magnitude;
          const int64_t at = i * shape.out + o;
          tally.add(format, ys[at], exactDouble, bound);
          if (lowPrecision) tally.addEmulation(format, ys[at], roundTo(format, emulated[at]));
        }
      }
    }
  } catch (const std::exception& error) {
    check.note = firstLine(error.what());
    return check;
  }
  check.available = true;
  tally.into(check, lowPrecision);
  if (!check.correct) check.note = boundNote(check);
  return check;
}

KernelCheck checkConv1d(const Conv1dKernel& kernel, uint64_t seed) {
  constexpr int64_t kBatch = 16, kChannels = 24, kLength = 12, kFilters = 32, kWidth = 3;
  KernelCheck check;
  check.kernel = "fp32-conv1d";
  at::Generator generator = at::detail::createCPUGenerator(seed);
  Tally tally;
  try {
    const torch::Tensor x = drawn({kBatch, kChannels, kLength}, 2.0, torch::kFloat, generator);
    const double limit = 1.0 / std::sqrt(static_cast<double>(kChannels * kWidth));
    const torch::Tensor w = drawn({kFilters, kChannels, kWidth}, limit, torch::kFloat, generator);
    const torch::Tensor b = drawn({kFilters}, limit, torch::kFloat, generator);
    const torch::Tensor y = kernel(x, w, b);
    if (y.scalar_type() != torch::kFloat || y.sizes() != torch::IntArrayRef({kBatch, kFilters, kLength})) {
      check.note = "returned the wrong shape or dtype";
      return check;
    }
    const std::vector<float> xs = toFloats(x), ws = toFloats(w), bs = toFloats(b), ys = toFloats(y);
    for (int64_t n = 0; n < kBatch; ++n) {
      for (int64_t f = 0; f < kFilters; ++f) {
        for (int64_t t = 0; t < kLength; ++t) {
          long double exact = bs[f];
          double magnitude = std::fabs(static_cast<double>(bs[f]));
          for (int64_t c = 0; c < kChannels; ++c) {
            for (int64_t k = 0; k < kWidth; ++k) {
              const int64_t position = t + k - 1;  // padding 1
              if (position < 0 || position >= kLength) continue;
              const double product = static_cast<double>(xs[(n * kChannels + c) * kLength + position]) *
                                     ws[(f * kChannels + c) * kWidth + k];
              exact += product;
              magnitude += static_cast<double>(std::fabs(product));
            }
          }
          const double exactDouble = static_cast<double>(exact);
          const double bound =
              ulp(DType::FP32, exactDouble) + 2.0 * (kChannels * kWidth + 1) * kUnitRoundoff32 * magnitude;
          tally.add(DType::FP32, ys[(n * kFilters + f) * kLength + t], exactDouble, bound);
        }
      }
    }
  } catch (const std::exception& error) {
    check.note = firstLine(error.what());
    return check;
  }
  check.available = true;
  tally.into(check, false);
  if (!check.correct) check.note = boundNote(check);
  return check;
}

// torch.amp.GradScaler's unscale: every gradient multiplied by inv_scale in float32 (one rounding), and
// found_inf set to 1 when any gradient holds inf or NaN.
KernelCheck checkAmpUnscale() {
  KernelCheck check;
  check.kernel = "amp-unscale";
  try {
    const float invScale = 1.0f / 65536.0f * 3.0f;  // not a power of two: the products round
    std::vector<float> a(97), b(33);
    for (size_t i = 0; i < a.size(); ++i) a[i] = std::ldexp(static_cast<float>(i) * 0.731f + 0.1f, static_cast<int>(i % 40) - 20);
    for (size_t i = 0; i < b.size(); ++i) b[i] = -std::ldexp(static_cast<float>(i) * 1.37f + 0.3f, static_cast<int>(i % 30));
    const auto run = [&](bool withInf, int64_t* foundInf, int64_t* wrong) {
      std::vector<float> bCase = b;
      if (withInf) bCase[7] = std::numeric_limits<float>::infinity();
      std::vector<at::Tensor> grads = {torch::tensor(a), torch::tensor(bCase)};
      at::Tensor found = torch::zeros({1});
      const at::Tensor inv = torch::full({1}, invScale);
      at::_amp_foreach_non_finite_check_and_unscale_(grads, found, inv);
      *foundInf = static_cast<int64_t>(found.item<float>());
      const std::vector<float>* originals[] = {&a, &bCase};
      for (size_t g = 0; g < 2; ++g) {
        const std::vector<float> got = toFloats(grads[g]);
        for (size_t i = 0; i < got.size(); ++i) {
          const float want = (*originals[g])[i] * invScale;
          const bool same = std::isinf(want) ? got[i] == want : got[i] == want;
          if (!same) ++*wrong;
          ++check.outputs;
        }
      }
    };
    int64_t foundClean = -1, foundInf = -1, wrong = 0;
    run(false, &foundClean, &wrong);
    run(true, &foundInf, &wrong);
    check.available = true;
    check.differingShare = check.outputs ? static_cast<double>(wrong) / static_cast<double>(check.outputs) : 0;
    check.correct = wrong == 0 && foundClean == 0 && foundInf == 1;
    if (!check.correct) {
      check.note = "found_inf " + std::to_string(foundClean) + " without inf and " + std::to_string(foundInf) +
                   " with one (expected 0 and 1), " + std::to_string(wrong) + " products not rounded once";
    }
  } catch (const std::exception& error) {
    check.note = firstLine(error.what());
  }
  return check;
}

// torch.amp.GradScaler.update(): after an overflow the scale is multiplied by backoff_factor and the
// growth tracker resets; after growth_interval clean steps in a row the scale is multiplied by
// growth_factor and the tracker resets; otherwise the tracker counts up.
KernelCheck checkAmpUpdateScale() {
  KernelCheck check;
  check.kernel = "amp-update-scale";
  try {
    at::Tensor scale = torch::full({1}, 65536.0f);
    at::Tensor tracker = torch::zeros({1}, torch::kInt);
    const int64_t interval = 3;
    // found_inf per step, and the expected (scale, tracker) after it.
    const struct { float found; float scale; int tracker; } steps[] = {
        {0, 65536, 1}, {0, 65536, 2}, {0, 131072, 0}, {1, 65536, 0}, {0, 65536, 1}, {1, 32768, 0},
        {0, 32768, 1}, {0, 32768, 2}, {0, 65536, 0}};
    int64_t wrong = 0;
    for (const auto& s : steps) {
      at::_amp_update_scale_(scale, tracker, torch::full({1}, s.found), 2.0, 0.5, interval);
      if (scale.item<float>() != s.scale || tracker.item<int>() != s.tracker) ++wrong;
      ++check.outputs;
    }
    check.available = true;
    check.correct = wrong == 0;
    check.differingShare = static_cast<double>(wrong) / static_cast<double>(check.outputs);
    if (!check.correct) check.note = std::to_string(wrong) + " of 9 updates differ from GradScaler's documented rule";
  } catch (const std::exception& error) {
    check.note = firstLine(error.what());
  }
  return check;
}

std::vector<KernelCheck> checkFloat8Casts() {
  std::vector<KernelCheck> checks;
  const std::pair<const char*, DType> formats[] = {{"float8-e4m3fn-cast", DType::FP8E4M3FN},
                                                   {"float8-e5m2-cast", DType::FP8E5M2}};
  for (const auto& [name, format] : formats) {
    KernelCheck check;
    check.kernel = name;
#if AMPSCOPE_TORCH_AT_LEAST(2, 1)
    try {
      const torch::ScalarType type = format == DType::FP8E4M3FN ? at::kFloat8_e4m3fn : at::kFloat8_e5m2;
      int64_t wrong = 0;
      // Every bit pattern decoded.
      torch::Tensor patterns = torch::arange(256, torch::kInt).to(torch::kByte);
      const std::vector<float> decoded = toFloats(patterns.view(type));
      for (uint64_t bits = 0; bits < 256; ++bits) {
        const double want = decode(format, bits);
        const double got = decoded[bits];
        const bool same = std::isnan(want) ? std::isnan(got) : (got == want && std::signbit(got) == std::signbit(want));
        if (!same) ++wrong;
      }
      // float32 values rounded: every representable value, the midpoints between neighbours (ties), a
      // quarter step on either side of them, and values beyond the largest finite one.
      std::vector<float> values;
      for (uint64_t bits = 0; bits < 256; ++bits) {
        const double v = decode(format, bits);
        if (!std::isfinite(v)) continue;
        const double next = decode(format, nextUp(format, bits));
        values.push_back(static_cast<float>(v));
        if (std::isfinite(next) && next > v) {
          const double gap = next - v;
          for (double f : {0.25, 0.5, 0.75}) values.push_back(static_cast<float>(v + f * gap));
        }
      }
      const double max = finfo(format).max;
      for (double f : {1.01, 1.1, 2.0, 1e3}) {
        values.push_back(static_cast<float>(max * f));
        values.push_back(static_cast<float>(-max * f));
      }
      const torch::Tensor rounded = torch::tensor(values).to(type).view(torch::kByte).to(torch::kInt);
      const int* bits = rounded.data_ptr<int>();
      for (size_t i = 0; i < values.size(); ++i) {
        const PyTorchConversion want = pytorchConversion(format, values[i]);
        const double got = decode(format, static_cast<uint64_t>(bits[i]));
        const bool same = std::isnan(want.stored) ? std::isnan(got)
                                                  : (got == want.stored && std::signbit(got) == std::signbit(want.stored));
        if (!same) ++wrong;
      }
      check.outputs = 256 + static_cast<int64_t>(values.size());
      check.available = true;
      check.correct = wrong == 0;
      check.differingShare = static_cast<double>(wrong) / static_cast<double>(check.outputs);
      if (!check.correct) check.note = std::to_string(wrong) + " casts differ from IEEE-style RNE (OCP FP8 spec)";
    } catch (const std::exception& error) {
      check.note = firstLine(error.what());
    }
#else
    check.note = "no float8 dtypes before LibTorch 2.1 (this is " + std::to_string(TORCH_VERSION_MAJOR) + "." +
                 std::to_string(TORCH_VERSION_MINOR) + ")";
#endif
    checks.push_back(check);
  }
  return checks;
}

}  // namespace detail

namespace {

struct CheckState {
  std::mutex mutex;
  bool done = false;
  int generation = 0;
  std::vector<KernelCheck> checks;
  std::string cacheFile;
  bool rerun = false;
  std::string source;   // the cache file the checks came from; empty: run in this process
  std::string problem;  // the cache file's read or write problem
};
CheckState& checkState() {
  static CheckState state;
  return state;
}

std::vector<KernelCheck> runNativeKernelChecks() {
  const auto shapes = detail::modelGemmShapes();
  KernelCheck bf16 = detail::checkLinear("bf16-linear", torch::kBFloat16, shapes, detail::nativeLinear, 1);
  bf16.usedBy = "bf16-amp, bf16-pure";
  KernelCheck fp16 = detail::checkLinear("fp16-linear", torch::kHalf, shapes, detail::nativeLinear, 2);
  fp16.usedBy = "fp16-amp, fp16-amp-scaled, fp16-pure";
  KernelCheck fp32 = detail::checkLinear("fp32-linear", torch::kFloat, shapes, detail::nativeLinear, 3);
  fp32.usedBy = "every mode";
  std::vector<KernelCheck> checks = {bf16, fp16, fp32, detail::checkConv1d(detail::nativeConv1d, 4),
                                     detail::checkAmpUnscale(), detail::checkAmpUpdateScale()};
  for (KernelCheck& check : detail::checkFloat8Casts()) checks.push_back(std::move(check));
  return checks;
}

}  // namespace

const std::vector<KernelCheck>& nativeKernelChecks() {
  CheckState& state = checkState();
  std::lock_guard<std::mutex> lock(state.mutex);
  if (state.done) return state.checks;
  // The intra-op thread count is in the key: a GEMM's blocking, and so its accumulation order, can
  // depend on it.
  static const std::pair<std::string, std::string> cpu = cpuIdentity();
  const std::string key = machineKey(cpu.first, cpu.second, libtorchVersion(), at::get_num_threads(), "kernel-checks",
                                     kKernelCheckRevision);
  KernelCheckCache cache(state.cacheFile);
  std::optional<std::vector<KernelCheck>> cached;
  if (!state.rerun) cached = cache.find(key);
  if (cached) {
    state.checks = std::move(*cached);
    state.source = state.cacheFile;
  } else {
    state.checks = runNativeKernelChecks();
    state.source.clear();
    if (!state.cacheFile.empty()) cache.store(key, state.checks);
    state.rerun = false;
  }
  state.problem = !cache.writeProblem().empty() ? cache.writeProblem() : cache.readProblem();
  if (!state.problem.empty()) state.problem = state.cacheFile + ": " + state.problem;
  state.done = true;
  return state.checks;
}

void useKernelCheckCache(std::string file, bool rerun) {
  CheckState& state = checkState();
  std::lock_guard<std::mutex> lock(state.mutex);
  if (state.cacheFile == file && !rerun) return;
  state.cacheFile = std::move(file);
  state.rerun = rerun;
  state.done = false;
  ++state.generation;
}

std::string nativeKernelChecksSource() {
  CheckState& state = checkState();
  std::lock_guard<std::mutex> lock(state.mutex);
  return state.source;
}

std::string kernelCheckCacheProblem() {
  CheckState& state = checkState();
  std::lock_guard<std::mutex> lock(state.mutex);
  return state.problem;
}

namespace detail {

void replaceNativeKernelChecksForTest(std::optional<std::vector<KernelCheck>> checks) {
  CheckState& state = checkState();
  std::lock_guard<std::mutex> lock(state.mutex);
  state.done = checks.has_value();
  state.checks = checks ? std::move(*checks) : std::vector<KernelCheck>{};
  state.source.clear();
  ++state.generation;
}

int nativeKernelChecksGeneration() {
  CheckState& state = checkState();
  std::lock_guard<std::mutex> lock(state.mutex);
  return state.generation;
}

}  // namespace detail

const KernelCheck* findKernelCheck(const std::vector<KernelCheck>& checks, const std::string& kernel) {
  for (const KernelCheck& check : checks)
    if (check.kernel == kernel) return &check;
  return nullptr;
}

std::string kernelCheckLine(const KernelCheck& check) {
  std::string line = check.kernel + ": ";
  if (!check.available) return line + "not in this LibTorch (" + check.note + ")";
  char text[256];
  if (!check.correct) {
    line += "WRONG, not used: " + check.note;
  } else if (check.comparedWithEmulation) {
    std::snprintf(text, sizeof text, "correct; %.3g %% of %lld outputs off the exact rounding, by at most %.0f ulp",
                  check.differingShare * 100.0, static_cast<long long>(check.outputs), check.maxUlps);
    line += text;
  } else if (check.worstBoundRatio > 0) {
    // FP32 sums: ulps mean little where a sum cancels; the error against its bound says it all.
    std::snprintf(text, sizeof text,
                  "correct; %lld outputs, error at most %.2g of what FP32 accumulation and one rounding allow",
                  static_cast<long long>(check.outputs), check.worstBoundRatio);
    line += text;
  } else {
    std::snprintf(text, sizeof text, "correct; %lld results as documented", static_cast<long long>(check.outputs));
    line += text;
  }
  if (check.comparedWithEmulation) {
    std::snprintf(text, sizeof text, "; against the emulation: %.3g %% differ, by at most %.0f ulp",
                  check.emulationDifferingShare * 100.0, check.emulationMaxUlps);
    line += text;
  }
  line += check.usedBy.empty() ? "; not used by AmpScope's models" : "; used by " + check.usedBy;
  return line;
}

}  // namespace ampscope
