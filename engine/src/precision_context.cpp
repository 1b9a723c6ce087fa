#include "precision_context.h"

#include <cmath>
#include <cstring>
#include <initializer_list>
#include <string_view>

#include "counting_allocator.h"
#include "exponent_histogram_builder.h"
#include "fp8/quantized_linear.h"

namespace ampscope::detail {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

template <typename T>
int64_t pointerToInt(T* pointer) {
  return static_cast<int64_t>(reinterpret_cast<intptr_t>(pointer));
}
template <typename T>
T* intToPointer(int64_t value) {
  return reinterpret_cast<T*>(static_cast<intptr_t>(value));
}

// The forward rounds x, the backward the gradient (both exact RNE to `format`).
class RoundToFormatFunction : public torch::autograd::Function<RoundToFormatFunction> {
 public:
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& x, int64_t format,
                               int64_t forwardCounts, int64_t backwardCounts, int64_t tap,
                               double invScale) {
    ctx->saved_data["format"] = format;
    ctx->saved_data["backward"] = backwardCounts;
    ctx->saved_data["tap"] = tap;
    ctx->saved_data["invScale"] = invScale;
    return roundedCopy(x, static_cast<LowFormat>(format),
                           intToPointer<RoundingCounts>(forwardCounts));
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto format = static_cast<LowFormat>(ctx->saved_data["format"].toInt());
    auto* counts = intToPointer<RoundingCounts>(ctx->saved_data["backward"].toInt());
    auto* tap = intToPointer<TensorStats>(ctx->saved_data["tap"].toInt());
    torch::Tensor grad = roundedCopy(grads[0], format, counts);
    if (tap != nullptr) {
      const auto invScale = static_cast<float>(ctx->saved_data["invScale"].toDouble());
      accumulateHistogramPair(grad.data_ptr<float>(), grad.numel(), invScale, format, tap->scaled,
                              tap->unscaled);
      tap->numel += grad.numel();
    }
    return {grad, torch::Tensor(), torch::Tensor(), torch::Tensor(), torch::Tensor(), torch::Tensor()};
  }
};

}  // namespace

torch::ScalarType dtypeOf(LowFormat format) {
  return format == LowFormat::FP16 ? torch::kHalf : torch::kBFloat16;
}

void classifyLowTensor(const torch::Tensor& t, LowFormat format, RoundingCounts* counts) {
  const torch::Tensor data = t.contiguous();
  classifyStored(reinterpret_cast<const uint16_t*>(data.data_ptr()), data.numel(), format, counts);
}

std::string dtypeName(torch::ScalarType type) {
  switch (type) {
    case torch::kFloat: return "float32";
    case torch::kHalf: return "float16";
    case torch::kBFloat16: return "bfloat16";
    case torch::kDouble: return "float64";
    case torch::kLong: return "int64";
    case torch::kInt: return "int32";
    case torch::kBool: return "bool";
    default: return c10::toString(type);
  }
}

torch::Tensor roundToFormat(const torch::Tensor& x, LowFormat format, RoundingCounts* forwardCounts,
                            RoundingCounts* backwardCounts, TensorStats* gradientTap,
                            float invScale) {
  return RoundToFormatFunction::apply(x, static_cast<int64_t>(format), pointerToInt(forwardCounts),
                                      pointerToInt(backwardCounts), pointerToInt(gradientTap),
                                      static_cast<double>(invScale));
}

torch::Tensor roundedCopy(const torch::Tensor& x, LowFormat format, RoundingCounts* counts) {
  const torch::Tensor input = x.contiguous();
  torch::Tensor out = torch::empty_like(input, torch::MemoryFormat::Contiguous);
  roundToFormat(input.data_ptr<float>(), out.data_ptr<float>(), input.numel(), format, counts);
  return out;
}

void roundInPlace(torch::Tensor& x, LowFormat format, RoundingCounts* counts) {
  TORCH_CHECK(x.is_contiguous() && x.scalar_type() == torch::kFloat,
              "roundInPlace needs a contiguous float32 tensor");
  roundToFormat(x.data_ptr<float>(), x.data_ptr<float>(), x.numel(), format, counts);
}

PrecisionContext::PrecisionContext(PrecisionMode mode, bool native, const Fp8Config& fp8, const PlanConfig* plan)
    : mode_(mode), fp8_(fp8) {
  if (mode == PrecisionMode::Plan) {
    TORCH_CHECK(plan != nullptr, "the plan mode needs a plan");
    default_ = regimeFor(plan->defaultMode, false);
    for (const auto& [layer, layerMode] : plan->layers) regimes_[layer] = regimeFor(layerMode, false);
    planLane_ = true;
  } else {
    default_ = regimeFor(mode, native);
  }
  kind_ = default_.kind;
  format_ = default_.format;
  quantizer_ = default_.quantizer;
}

PrecisionContext::Regime PrecisionContext::regimeFor(PrecisionMode mode, bool native) {
  Regime regime;
  regime.mode = mode;
  const bool amp = mode == PrecisionMode::FP16Amp || mode == PrecisionMode::FP16AmpScaled ||
                   mode == PrecisionMode::BF16Amp;
  regime.format = (mode == PrecisionMode::BF16Amp || mode == PrecisionMode::BF16Pure) ? LowFormat::BF16
                                                                                      : LowFormat::FP16;
  if (mode == PrecisionMode::FP32) {
    regime.kind = ExecKind::FP32;
  } else if (isQuantizedMode(mode)) {
    regime.kind = ExecKind::Quantized;
    const fp8::Recipe recipe = mode == PrecisionMode::Fp8Delayed   ? fp8::Recipe::Delayed
                               : mode == PrecisionMode::Fp8Current ? fp8::Recipe::Current
                               : mode == PrecisionMode::MXFP8      ? fp8::Recipe::MxBlock
                                                                   : fp8::Recipe::Nvfp4Block;
    // One quantiser per recipe: a plan's layers of one quantised mode share it, as one recipe would.
    for (const auto& existing : quantizers_) {
      if (existing->recipe() == recipe) regime.quantizer = existing.get();
    }
    if (regime.quantizer == nullptr) {
      quantizers_.push_back(std::make_unique<fp8::RecipeQuantizer>(recipe, fp8_));
      regime.quantizer = quantizers_.back().get();
    }
  } else if (amp) {
    regime.kind = native ? ExecKind::AmpNative : ExecKind::AmpEmulated;
  } else {
    regime.kind = native ? ExecKind::PureNative : ExecKind::PureEmulated;
  }
  return regime;
}

template <typename Op>
Act PrecisionContext::inLayerRegime(const std::string& layer, Op op) {
  if (!planLane_) return op();
  const auto it = regimes_.find(layer);
  const Regime& regime = it == regimes_.end() ? default_ : it->second;
  mode_ = regime.mode;
  kind_ = regime.kind;
  format_ = regime.format;
  quantizer_ = regime.quantizer;
  struct Restore {
    PrecisionContext& c;
    ~Restore() {
      c.mode_ = PrecisionMode::Plan;
      c.kind_ = c.default_.kind;
      c.format_ = c.default_.format;
      c.quantizer_ = c.default_.quantizer;
    }
  } restore{*this};
  Act out = op();
  // Outside autocast the layer hands back FP32 (`.float()`: exact); inside the default's autocast its
  // output stays as that layer made it, and the ops after it follow autocast's rules.
  if (out.low && default_.kind != ExecKind::AmpEmulated) out.low = false;
  return out;
}

torch::ScalarType PrecisionContext::lowDtype() const {
  return dtypeOf(format_);
}

void PrecisionContext::beginPass(bool instrument, bool recordOps, float invScale) {
  instrument_ = instrument;
  recordOps_ = recordOps;
  invScale_ = invScale;
  inputFactor_ = fp8_.spikeStep == stepsEnded_ + 1 ? fp8_.spikeFactor : 1.0;
  firstLinear_ = true;
  nextPoint_ = nextTap_ = 0;
  for (auto& quantizer : quantizers_) quantizer->beginPass(instrument);
  if (instrument) {
    for (auto& p : points_) p.counts = RoundingCounts{};
    for (auto& t : taps_) {
      t.numel = 0;
      t.scaled = ExponentHistogram{};
      t.unscaled = ExponentHistogram{};
    }
  }
  opRecord_.clear();
  tapCosts_.clear();
  parameterGradients_.clear();
  producers_.clear();
  clearNativeWatches();
}

RoundingCounts* PrecisionContext::parameterGradientCounts(const torch::Tensor& p) const {
  for (const auto& entry : parameterGradients_) {
    if (entry.first == p.unsafeGetTensorImpl()) return entry.second;
  }
  return nullptr;
}

std::vector<RoundingPointStats> PrecisionContext::roundingPoints() const {
  return {points_.begin(), points_.end()};
}

std::vector<TensorStats> PrecisionContext::activationTaps() const {
  std::vector<TensorStats> taps(taps_.begin(), taps_.end());
  for (size_t i = 0; i < taps.size(); ++i) {
    auto it = tapCosts_.find(&taps_[i]);
    if (it != tapCosts_.end()) taps[i].roundingCost = formatCostStats(it->second);
  }
  return taps;
}

std::vector<OpDtypeEntry> PrecisionContext::takeOpRecord() { return std::move(opRecord_); }

std::vector<QuantTensorStats> PrecisionContext::endStep() {
  ++stepsEnded_;
  std::vector<QuantTensorStats> stats;
  for (auto& quantizer : quantizers_) {
    std::vector<QuantTensorStats> more = quantizer->endStep();
    stats.insert(stats.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
  }
  return stats;
}

namespace {

// Whether name is the concatenation of parts, compared in place (no string is built).
bool namedAs(const std::string& name, std::initializer_list<std::string_view> parts) {
  std::size_t at = 0;
  for (const std::string_view part : parts) {
    if (name.compare(at, part.size(), part) != 0) return false;
    at += part.size();
  }
  return at == name.size();
}

// The entry named by the concatenation of parts, made by make(name) on first use. Every pass asks for
// the same points and taps in the same order: the entry after the last one found (`next`) is compared
// with the name first, which spares a pass building and hashing a name per entry (perf of TinyMLP's
// fp16-amp step, instrumented: 0.5 % of the step in hashing and compares before, 0.2 % after).
template <typename Stats, typename Make>
Stats& namedEntry(std::deque<Stats>& entries, std::unordered_map<std::string, size_t>& index, size_t& next,
                  std::initializer_list<std::string_view> parts, Make make) {
  if (next < entries.size() && namedAs(entries[next].name, parts)) return entries[next++];
  std::string name;
  for (const std::string_view part : parts) name += part;
  auto it = index.find(name);
  if (it == index.end()) {
    entries.push_back(make(name));
    it = index.emplace(std::move(name), entries.size() - 1).first;
  }
  next = it->second + 1;
  return entries[it->second];
}

}  // namespace

RoundingCounts* PrecisionContext::point(const std::string& layer, const char* role, bool backward,
                                        const char* prefix) {
  if (!instrument_) return nullptr;
  return &namedEntry(points_, pointIndex_, nextPoint_, {layer, ".", prefix, role},
                     [&](const std::string& name) {
                       RoundingPointStats stats;
                       stats.name = name;
                       stats.layer = layer;
                       stats.backward = backward;
                       return stats;
                     })
              .counts;
}

TensorStats* PrecisionContext::tap(const std::string& layer) {
  if (!instrument_) return nullptr;
  return &namedEntry(taps_, tapIndex_, nextTap_, {"act:", layer, ".out"}, [](const std::string& name) {
    TensorStats stats;
    stats.name = name;
    stats.isParameter = false;
    return stats;
  });
}

void PrecisionContext::record(const char* op, const std::string& where, const torch::Tensor& in,
                              bool inLow, const torch::Tensor& out, bool outLow) {
  if (!recordOps_) return;
  OpDtypeEntry entry;
  entry.op = op;
  entry.where = where;
  const std::string low = lowFormatDtypeName(format_);
  entry.inputDtype = (emulated() && inLow) ? low : dtypeName(in.scalar_type());
  entry.outputDtype = (emulated() && outLow) ? low : dtypeName(out.scalar_type());
  entry.emulated = emulated() && (inLow || outLow);
  opRecord_.push_back(std::move(entry));
}

void PrecisionContext::observeNativeCast(const std::string& layer, const char* role,
                                         const torch::Tensor& fp32) {
  if (!instrument_ || fp32.scalar_type() != torch::kFloat) return;
  at::NoGradGuard noGrad;
  const torch::Tensor data = fp32.contiguous();
  countRounding(data.data_ptr<float>(), data.numel(), format_, point(layer, role, false));
}

void PrecisionContext::tapGradient(const std::string& layer, const torch::Tensor& y) {
  if (!instrument_ || !y.requires_grad()) return;
  TensorStats* stats = tap(layer);
  // The context outlives the pass's graph (its taps are what the hooks write into). A low-precision
  // output's gradient is counted by the ops that made it (run()), not here.
  y.register_hook([this, stats](const torch::Tensor& grad) {
    at::NoGradGuard noGrad;
    accumulateGradientTap(stats, grad);
  });
}

void PrecisionContext::accumulateGradientTap(TensorStats* stats, const torch::Tensor& grad) const {
  if (stats == nullptr) return;
  // One float32 copy (exact for FP16/BF16) serves both histograms.
  torch::Tensor data = grad.scalar_type() == torch::kFloat ? grad : grad.to(torch::kFloat);
  data = data.contiguous();
  accumulateHistogramPair(data.data_ptr<float>(), data.numel(), invScale_, format_, stats->scaled,
                          stats->unscaled);
  stats->numel += grad.numel();
  if (roundingCost_) {
    const TensorRoundingCost cost = roundingCosts(data.data_ptr<float>(), data.numel());
    auto it = tapCosts_.find(stats);
    if (it == tapCosts_.end()) {
      tapCosts_.emplace(stats, cost);
    } else {
      addRoundingCost(it->second, cost);
    }
  }
}

PrecisionContext::Site PrecisionContext::inputSite(const std::string& layer, const char* role,
                                                  bool inputLow) {
  Site site;
  if (kind_ != ExecKind::AmpEmulated || inputLow) return site;
  site.round = true;
  site.backward = point(layer, role, true, "grad_");
  site.forward = point(layer, role, false);
  return site;
}

PrecisionContext::Site PrecisionContext::parameterSite(const std::string& layer, const char* role,
                                                      const torch::Tensor& p) {
  Site site;
  if (kind_ == ExecKind::AmpEmulated) {
    site.round = true;
    site.backward = point(layer, role, true, "grad_");
    site.forward = point(layer, role, false);
  } else if (kind_ == ExecKind::PureEmulated) {
    // The stored values are already FP16 (rounding them again would copy every weight each step).
    // The gradient (an FP16 tensor natively) is rounded when the trainer gathers it after backward:
    // the same value as rounding it here in backward, because each parameter is consumed once per
    // pass, so its .grad is the one gradient that arrives (no sum of several).
    for (const auto& entry : parameterGradients_) {
      TORCH_CHECK(entry.first != p.unsafeGetTensorImpl(), "parameter of ", layer, ".", role,
                  " consumed twice in one pass: its gradient would be a sum of float32 gradients");
    }
    parameterGradients_.emplace_back(p.unsafeGetTensorImpl(),
                                     point(layer, role, true, "grad_"));
  }
  return site;
}

PrecisionContext::Site PrecisionContext::linearOutputSite(const std::string& layer) {
  Site site;
  site.tap = tap(layer);
  if (!emulated()) return site;
  site.round = true;
  site.backward = point(layer, "grad_output", true);
  site.forward = point(layer, "output", false);
  return site;
}

PrecisionContext::Site PrecisionContext::passThroughSite(const std::string& layer, bool inputsLow) {
  Site site;
  if (!emulated() || !inputsLow) return site;
  site.round = true;
  site.backward = point(layer, "grad_output", true);
  site.forward = point(layer, "output", false);
  return site;
}

torch::Tensor PrecisionContext::consumeParam(const std::string& layer, const char* role,
                                             const torch::Tensor& p) {
  if (kind_ == ExecKind::AmpNative) {
    observeNativeCast(layer, role, p);
    return p;
  }
  const Site site = parameterSite(layer, role, p);
  return site.round ? roundToFormat(p, format_, site.forward, site.backward) : p;
}

torch::Tensor PrecisionContext::consumeLow(const std::string& layer, const char* role, const Act& x) {
  if (kind_ == ExecKind::AmpNative) {
    observeNativeCast(layer, role, x.t);
    return x.t;
  }
  const Site site = inputSite(layer, role, lowIn(x));
  return site.round ? roundToFormat(x.t, format_, site.forward, site.backward) : x.t;
}

Act PrecisionContext::lowOutput(const std::string& layer, const torch::Tensor& y, bool withTap) {
  if (emulated()) {
    Site site;
    if (withTap) {
      site = linearOutputSite(layer);
    } else {
      site.backward = point(layer, "grad_output", true);
      site.forward = point(layer, "output", false);
    }
    return {roundToFormat(y, format_, site.forward, site.backward, site.tap, invScale_), true, format_};
  }
  const bool lowDtype = y.scalar_type() == torch::kHalf || y.scalar_type() == torch::kBFloat16;
  if (instrument_ && lowDtype) {
    at::NoGradGuard noGrad;
    classifyLowTensor(y, format_, point(layer, "output", false));
  }
  if (withTap) tapGradient(layer, y);
  return {y, lowDtype, format_};
}

Act PrecisionContext::passThrough(const std::string& layer, const torch::Tensor& y, bool inputsLow,
                                  LowFormat inputFormat) {
  const Site site = passThroughSite(layer, inputsLow);
  if (site.round) return {roundToFormat(y, inputFormat, site.forward, site.backward), true, inputFormat};
  const bool low = y.scalar_type() == torch::kHalf || y.scalar_type() == torch::kBFloat16;
  if (low && countingNativeBackward()) {
    // What the native kernel stored, as lowOutput classifies a linear's (the emulation's "output").
    at::NoGradGuard noGrad;
    UncountedAllocations scratch;
    classifyLowTensor(y, format_, point(layer, "output", false));
  }
  return {y, low, format_};
}

Act PrecisionContext::input(const torch::Tensor& given) {
  const torch::Tensor x = inputFactor_ != 1.0 ? given * inputFactor_ : given;
  if (kind_ == ExecKind::PureNative) return {x.to(lowDtype()), true, format_};
  if (kind_ == ExecKind::PureEmulated) {
    // model.half() callers pass x.half(): the input is rounded once; it needs no gradient.
    at::NoGradGuard noGrad;
    return {roundedCopy(x, format_, point("input", "cast", false)), true, format_};
  }
  return {x, false};
}

Act PrecisionContext::linear(const std::string& layer, const Act& x, const torch::Tensor& weight,
                             const torch::Tensor& bias) {
  const bool first = firstLinear_;
  firstLinear_ = false;
  if (!first || fp8_.outlierFactor == 1.0 || x.t.dim() == 0 || x.t.size(-1) == 0) {
    return inLayerRegime(layer, [&] { return linearOp(layer, x, weight, bias); });
  }
  // (F, 1, 1, ...): the factor rounded to float32 once, then cast to each operand's dtype. x * D and
  // W / D give the same x W^T up to rounding; the gradients flow back through the product and quotient.
  torch::Tensor factors = torch::ones({x.t.size(-1)}, torch::kFloat);
  factors.data_ptr<float>()[0] = static_cast<float>(fp8_.outlierFactor);
  const std::string outlier = layer + ".outlier";
  const torch::Tensor product =
      run(outlier, {{"input", x.t}, {"factor", factors.to(x.t.scalar_type())}}, false,
          [](const std::vector<torch::Tensor>& v) { return v[0] * v[1]; });
  const Act shifted = passThrough(outlier, product, x.low, x.format);
  record("mul", outlier, x.t, x.low, shifted.t, shifted.low);
  const torch::Tensor shiftedWeight = weight / factors.to(weight.scalar_type());
  return inLayerRegime(layer, [&] { return linearOp(layer, shifted, shiftedWeight, bias); });
}

Act PrecisionContext::linearOp(const std::string& layer, const Act& x, const torch::Tensor& weight,
                               const torch::Tensor& bias) {
  if (kind_ == ExecKind::Quantized) {
    const torch::Tensor y = fp8::quantizedLinear(*quantizer_, layer, x.t, weight, bias);
    tapGradient(layer, y);
    record("linear", layer, x.t, false, y, false);
    if (recordOps_) {
      opRecord_.back().inputDtype = quantFormatKey(quantizer_->forwardFormat());
      opRecord_.back().emulated = true;
    }
    return {y, false};
  }
  const torch::Tensor in = consumeLow(layer, "input", x);
  const torch::Tensor w = consumeParam(layer, "weight", weight);
  const torch::Tensor b = bias.defined() ? consumeParam(layer, "bias", bias) : bias;
  const torch::Tensor y =
      run(layer, {{"input", in}, {"weight", w}, {"bias", b}}, true,
          [](const std::vector<torch::Tensor>& v) { return torch::linear(v[0], v[1], v[2]); });
  Act out = kind_ == ExecKind::FP32 ? Act{y, false} : lowOutput(layer, y, true);
  if (kind_ == ExecKind::FP32) tapGradient(layer, y);
  record("linear", layer, x.t, x.low, out.t, out.low);
  return out;
}

Act PrecisionContext::matmul(const std::string& layer, const Act& a, const Act& b) {
  return inLayerRegime(layer, [&] { return matmulOp(layer, a, b); });
}

Act PrecisionContext::matmulOp(const std::string& layer, const Act& a, const Act& b) {
  const torch::Tensor left = consumeLow(layer, "input", a);
  const torch::Tensor right = consumeLow(layer, "other", b);
  const torch::Tensor y =
      run(layer, {{"input", left}, {"other", right}}, true,
          [](const std::vector<torch::Tensor>& v) { return torch::matmul(v[0], v[1]); });
  Act out = kind_ == ExecKind::FP32 ? Act{y, false} : lowOutput(layer, y, false);
  record("matmul", layer, a.t, a.low, out.t, out.low);
  return out;
}

Act PrecisionContext::gelu(const std::string& layer, const Act& x) {
  const torch::Tensor y = run(layer, {{"input", x.t}}, false,
                              [](const std::vector<torch::Tensor>& v) { return torch::gelu(v[0]); });
  Act out = passThrough(layer, y, x.low, x.format);
  record("gelu", layer, x.t, x.low, out.t, out.low);
  return out;
}

Act PrecisionContext::softmax(const std::string& layer, const Act& x, int64_t dim) {
  Act out;
  if (kind_ == ExecKind::PureEmulated) {
    out = passThrough(layer, torch::softmax(x.t, dim), true, format_);
  } else {
    const torch::Tensor y = run(layer, {{"input", x.t}}, false, [dim](const std::vector<torch::Tensor>& v) {
      return torch::softmax(v[0], dim);
    });
    out = {y, y.scalar_type() == torch::kHalf || y.scalar_type() == torch::kBFloat16, format_};
  }
  record("softmax", layer, x.t, x.low, out.t, out.low);
  return out;
}

Act PrecisionContext::layerNorm(const std::string& layer, const Act& x, const torch::Tensor& weight,
                                const torch::Tensor& bias) {
  const int64_t features = x.t.size(-1);
  Act out;
  if (kind_ == ExecKind::PureEmulated) {
    const torch::Tensor w = consumeParam(layer, "weight", weight);
    const torch::Tensor b = consumeParam(layer, "bias", bias);
    out = passThrough(layer, torch::layer_norm(x.t, {features}, w, b, 1e-5), true, format_);
  } else {
    const torch::Tensor y = run(layer, {{"input", x.t}, {"weight", weight}, {"bias", bias}}, false,
                                [features](const std::vector<torch::Tensor>& v) {
                                  return torch::layer_norm(v[0], {features}, v[1], v[2], 1e-5);
                                });
    out = {y, y.scalar_type() == torch::kHalf || y.scalar_type() == torch::kBFloat16, format_};
  }
  record("layer_norm", layer, x.t, x.low, out.t, out.low);
  return out;
}

Act PrecisionContext::add(const std::string& layer, const Act& a, const Act& b) {
  const torch::Tensor y = run(layer, {{"input", a.t}, {"other", b.t}}, false,
                              [](const std::vector<torch::Tensor>& v) { return v[0] + v[1]; });
  // FP16 + BF16 promotes to FP32, as torch's type promotion does.
  Act out = passThrough(layer, y, a.low && b.low && a.format == b.format, a.format);
  record("add", layer, a.t, a.low, out.t, out.low);
  return out;
}

Act PrecisionContext::mulScalar(const std::string& layer, const Act& x, double factor) {
  const torch::Tensor y = run(layer, {{"input", x.t}}, false,
                              [factor](const std::vector<torch::Tensor>& v) { return v[0] * factor; });
  Act out = passThrough(layer, y, x.low, x.format);
  record("mul", layer, x.t, x.low, out.t, out.low);
  return out;
}

Act PrecisionContext::maskedFill(const Act& x, const torch::Tensor& mask, double value) {
  // -inf is exactly representable in every format: no rounding needed. Its output's gradient is
  // counted as its input's producer's (masked_fill's backward only zeroes values).
  torch::Tensor y = x.t.masked_fill(mask, value);
  if (countingNativeBackward()) {
    auto it = producers_.find(x.t.unsafeGetTensorImpl());
    if (it != producers_.end()) noteProducer(y, std::string(it->second.layer));
  }
  return {y, x.low, x.format};
}

Act PrecisionContext::embedding(const std::string& layer, const torch::Tensor& weight,
                                const torch::Tensor& ids) {
  const torch::Tensor w =
      kind_ == ExecKind::PureEmulated ? consumeParam(layer, "weight", weight) : weight;
  torch::Tensor y = run(layer, {{"weight", w}, {"indices", ids}}, false,
                        [](const std::vector<torch::Tensor>& v) { return torch::embedding(v[0], v[1]); });
  if (inputFactor_ != 1.0) y = y * inputFactor_;
  const bool low = kind_ == ExecKind::PureEmulated || kind_ == ExecKind::PureNative;
  record("embedding", layer, ids, false, y, low);
  return {y, low, format_};
}

torch::Tensor PrecisionContext::crossEntropy(const std::string& layer, const Act& logits,
                                             const torch::Tensor& targets) {
  torch::Tensor loss;
  if (kind_ == ExecKind::PureEmulated) {
    Act logProbs = passThrough(layer + ".log_softmax", torch::log_softmax(logits.t, 1), true, format_);
    loss = passThrough(layer, torch::nll_loss(logProbs.t, targets), true, format_).t;
  } else {
    loss = run(layer, {{"input", logits.t}, {"target", targets}}, false,
               [](const std::vector<torch::Tensor>& v) { return torch::cross_entropy_loss(v[0], v[1]); });
  }
  record("cross_entropy", layer, logits.t, logits.low, loss,
         kind_ == ExecKind::PureEmulated || loss.scalar_type() != torch::kFloat);
  return loss;
}

torch::Tensor PrecisionContext::weightLoss(const torch::Tensor& loss, double weight) {
  if (weight == 1.0) return loss;
  if (kind_ == ExecKind::PureEmulated) {
    return roundToFormat(loss * weight, format_, nullptr, nullptr);
  }
  return loss * weight;
}

}  // namespace ampscope::detail
