#include "ampscope/engine/precision_advice.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>

#include "ampscope/engine/number_text.h"

namespace ampscope {

namespace {

// The judged what-if columns, in table order; the as-run columns (mode names) follow them.
const std::vector<std::string>& whatIfColumns() {
  static const std::vector<std::string> columns = {"fp16", "fp16+scaler", "bf16", "fp8-e4m3",
                                                   "fp8-e5m2", "mxfp8", "nvfp4"};
  return columns;
}

// MXFP8 and NVFP4 scale every block of 32 or 16 values by its own amax: the OCP MX scale 2^(floor(log2
// amax) - 8) puts a block's amax in [256, 512) elements, so values above 464 clamp to E4M3's 448 by design,
// and E2M1 holds 0.5 .. 6, so a block's values under amax / 24 flush. Their shares are reported; the
// verdict is the SQNR's.
bool blockScaled(const std::string& column) {
  return column == "mxfp8" || column == "nvfp4" || column == "run:mxfp8" || column == "run:nvfp4";
}

// Whether a scaled value of magnitude `top` rounds to the element format's largest finite value rather
// than beyond it (docs/record-format.md's overflow thresholds, OCP 8-bit FP v1.0 and MX v1.0: E4M3's max
// 448 takes everything up to 464, E5M2's 57344 everything below 61440, E2M1's 6 everything below 7).
bool roundsWithinMax(QuantFormat format, double top) {
  switch (format) {
    case QuantFormat::E4M3: return top <= 464;
    case QuantFormat::E5M2: return top < 61440;
    case QuantFormat::E2M1: return top < 7;
  }
  return false;
}

bool isBackwardRole(const std::string& role) { return role == "gradient" || role == "activation-gradient"; }

// torch.cuda.amp.GradScaler's default init_scale, 65536 = 2^16 (PyTorch documentation).
constexpr int kDefaultScaleLog2 = 16;
// FP16 (IEEE 754-2019 binary16): the smallest subnormal is 2^-24; a value below 2^-25 after scaling
// rounds to zero; [2^-25, 2^-14) rounds to a subnormal or up to the smallest normal 2^-14.
constexpr int kFp16MinSubnormalLog2 = -24;
constexpr int kFp16MaxExponent = 15;  // 65504 = 1.1111111111b x 2^15

// log2 of a power-of-two scale; for any other scale the floor (the scale lifts values at least that much).
int scaleLog2(double scale) {
  if (!(scale > 0) || !std::isfinite(scale)) return 0;
  int exponent = 0;
  const double mantissa = std::frexp(scale, &exponent);  // scale = mantissa * 2^exponent, mantissa in [0.5, 1)
  (void)mantissa;
  return exponent - 1;
}

std::string percentText(double share) {
  char buffer[32];
  const double percent = share * 100;
  if (percent == 0) return "0%";
  std::snprintf(buffer, sizeof buffer, "%.3g%%", percent);
  return buffer;
}

std::string dbText(double db) {
  if (!std::isfinite(db)) return numberText(db) + " dB";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f dB", db);
  return buffer;
}

const FormatCostStats* costOf(const TensorStats& tensor, const std::string& format) {
  for (const auto& cost : tensor.roundingCost)
    if (cost.format == format) return &cost;
  return nullptr;
}

}  // namespace

const char* verdictKey(Verdict verdict) {
  switch (verdict) {
    case Verdict::Ok: return "ok";
    case Verdict::Caution: return "caution";
    case Verdict::Unsafe: return "unsafe";
    case Verdict::TooFewSteps: return "too-few-steps";
  }
  return "?";
}

int formatSignificandBits(const std::string& column) {
  // IEEE 754-2019 binary16: 11; bfloat16: 8; OCP 8-bit FP v1.0 E4M3: 4, E5M2: 3 (MXFP8's elements are
  // E4M3); OCP MX v1.0 E2M1 (NVFP4's elements): 2.
  if (column == "fp16" || column == "fp16+scaler") return 11;
  if (column == "bf16") return 8;
  if (column == "fp8-e4m3" || column == "mxfp8") return 4;
  if (column == "fp8-e5m2") return 3;
  if (column == "nvfp4") return 2;
  return 0;
}

std::optional<double> formatSqnrDb(const std::string& column) {
  const int p = formatSignificandBits(column);
  if (p == 0) return std::nullopt;
  // Error uniform in [-ulp/2, ulp/2] (mean square ulp^2 / 12) over values uniform in a binade
  // [2^e, 2^(e+1)) (mean square 7/3 4^e), ulp = 2^(e + 1 - p): 7 * 4^p.
  return 10 * std::log10(7.0) + 20 * p * std::log10(2.0);
}

std::string adviceLayer(const TensorStats& tensor) {
  const TensorRole role = tensorRole(tensor);
  std::string name = tensor.name;
  if (role == TensorRole::Gradient || role == TensorRole::Weight) {
    const auto dot = name.rfind('.');
    return dot == std::string::npos || dot == 0 ? name : name.substr(0, dot);
  }
  if (name.rfind("act:", 0) == 0) {  // the engine's tapped activation gradient "act:fc1.out"
    name = name.substr(4);
    const std::string suffix = ".out";
    if (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
      name.resize(name.size() - suffix.size());
  }
  return name;
}

std::string engineLayerName(ModelKind model, const std::string& layer) {
  const auto digitsAt = [&](size_t at, size_t* end) {
    size_t i = at;
    while (i < layer.size() && layer[i] >= '0' && layer[i] <= '9') ++i;
    *end = i;
    return i > at && i - at < 9 ? std::stoi(layer.substr(at, i - at)) : -1;
  };
  size_t end = 0;
  if (model == ModelKind::TinyMLP || model == ModelKind::DeepMLP) {
    // mlp.cpp: Linear, GELU, Linear, ... in one Sequential "net": the k-th Linear (from 0) is net.<2k>.
    if (layer.rfind("net.", 0) != 0) return layer;
    const int index = digitsAt(4, &end);
    if (index < 0 || end != layer.size() || index % 2 != 0) return layer;
    return "fc" + std::to_string(index / 2 + 1);
  }
  // tiny_transformer.cpp: the ModuleList "blocks" holds block i, whose ops are named "block<i>.".
  if (layer.rfind("blocks.", 0) != 0) return layer;
  const int index = digitsAt(7, &end);
  if (index < 0 || (end != layer.size() && layer[end] != '.')) return layer;
  return "block" + std::to_string(index) + layer.substr(end);
}

std::string adviceRole(const TensorStats& tensor) { return tensorRoleKey(tensorRole(tensor)); }

const std::vector<PrecisionMode>& adviceModeOrder() {
  static const std::vector<PrecisionMode> order = {
      PrecisionMode::NVFP4,         PrecisionMode::MXFP8,    PrecisionMode::Fp8Current,
      PrecisionMode::Fp8Delayed,    PrecisionMode::FP16Amp,  PrecisionMode::FP16AmpScaled,
      PrecisionMode::BF16Amp,       PrecisionMode::FP32};
  return order;
}

std::vector<PrecisionMode> adviceChain(const std::string& target) {
  if (target == "auto") return adviceModeOrder();
  const auto mode = parseMode(target);
  if (!mode) throw std::invalid_argument("target: unknown mode '" + target + "'");
  std::vector<PrecisionMode> chain = {*mode};
  if (*mode == PrecisionMode::FP16Amp) chain.push_back(PrecisionMode::FP16AmpScaled);
  for (PrecisionMode higher : {PrecisionMode::BF16Amp, PrecisionMode::FP32})
    if (std::find(chain.begin(), chain.end(), higher) == chain.end()) chain.push_back(higher);
  return chain;
}

void judgeEvidence(FormatEvidence& e, const AdviceThresholds& t) {
  if (e.steps < t.minSteps) {
    e.verdict = Verdict::TooFewSteps;
    e.reason = "seen at " + std::to_string(e.steps) + " instrumented steps, fewer than " +
               std::to_string(t.minSteps);
    return;
  }
  const std::string span = std::to_string(e.steps) + " steps (" + std::to_string(e.firstStep) + "-" +
                           std::to_string(e.lastStep) + ")";
  std::vector<std::string> unsafe, caution;
  const bool block = blockScaled(e.column);
  const auto atSteps = [&](const std::string& what) {
    return what + " (over a threshold at " + std::to_string(e.unsafeSteps) + " of " + std::to_string(e.steps) +
           " steps, from step " + std::to_string(e.firstUnsafeStep) + ")";
  };
  if (block) {
    // Reported, not judged: the block's own scale puts its largest values at the top of the element
    // format, so what flushes or clamps is the format's precision, which the SQNR judges.
  } else if (e.worstFlushShare > t.unsafeFlushShare) {
    unsafe.push_back(atSteps("flushed " + percentText(e.worstFlushShare) + " at step " +
                             std::to_string(e.worstFlushStep)));
  } else if (e.worstFlushShare > t.cautionFlushShare) {
    caution.push_back("flushed " + percentText(e.worstFlushShare) + " at step " + std::to_string(e.worstFlushStep));
  }
  if (!block && e.worstOverflowShare > t.unsafeOverflowShare) {
    unsafe.push_back(atSteps("overflowed " + percentText(e.worstOverflowShare) + " at step " +
                             std::to_string(e.worstOverflowStep)));
  }
  if (e.hasSqnr) {
    const auto ideal = formatSqnrDb(e.column);
    if (ideal && e.minSqnrDb < *ideal - t.sqnrMarginDb) {
      unsafe.push_back(atSteps("SQNR " + dbText(e.minSqnrDb) + " at step " + std::to_string(e.minSqnrStep) +
                               ", floor " + dbText(*ideal - t.sqnrMarginDb)));
    }
  }
  if (!block && e.worstSubnormalShare > t.cautionSubnormalShare) {
    caution.push_back("subnormal " + percentText(e.worstSubnormalShare) + " at step " +
                      std::to_string(e.worstSubnormalStep));
  }
  std::string text;
  const auto join = [&](const std::vector<std::string>& parts) {
    for (const auto& part : parts) text += (text.empty() ? "" : "; ") + part;
  };
  if (!unsafe.empty()) {
    e.verdict = Verdict::Unsafe;
    join(unsafe);
    join(caution);
  } else if (!caution.empty()) {
    e.verdict = Verdict::Caution;
    join(caution);
  } else {
    e.verdict = Verdict::Ok;
    text = std::string(block ? "judged by SQNR; " : "") + "worst flush " + percentText(e.worstFlushShare) + ", overflow " + percentText(e.worstOverflowShare);
    if (e.hasSqnr) text += ", lowest SQNR " + dbText(e.minSqnrDb);
  }
  e.reason = text + "; " + span;
}

AdviceBuilder::AdviceBuilder(PrecisionMode judgedMode, AdviceThresholds thresholds)
    : judged_(judgedMode), thresholds_(thresholds) {
  defaultCover_.label = "2^16 (torch's default initial scale, halved where it would overflow)";
  recordedCover_.label = "the recorded loss scale";
}

void AdviceBuilder::fold(const Key& key, const StepCounts& c, int64_t step) {
  if (c.elements <= 0) return;
  FormatEvidence& e = evidence_[key];
  if (e.steps == 0) {
    e.layer = layers_[static_cast<size_t>(std::get<0>(key))];
    e.role = std::get<1>(key);
    e.column = std::get<2>(key);
    e.firstStep = step;
  }
  ++e.steps;
  e.lastStep = step;
  const double n = static_cast<double>(c.elements);
  const double flush = static_cast<double>(c.flushed) / n;
  const double overflow = static_cast<double>(c.overflowed) / n;
  const double subnormal = static_cast<double>(c.subnormal) / n;
  if (flush > e.worstFlushShare) e.worstFlushShare = flush, e.worstFlushStep = step;
  if (overflow > e.worstOverflowShare) e.worstOverflowShare = overflow, e.worstOverflowStep = step;
  if (subnormal > e.worstSubnormalShare) e.worstSubnormalShare = subnormal, e.worstSubnormalStep = step;
  if (c.hasSqnr && (!e.hasSqnr || c.minSqnrDb < e.minSqnrDb)) {
    e.hasSqnr = true;
    e.minSqnrDb = c.minSqnrDb;
    e.minSqnrStep = step;
  }
  const auto ideal = formatSqnrDb(e.column);
  const bool block = blockScaled(e.column);
  const bool unsafe = (!block && flush > thresholds_.unsafeFlushShare) ||
                      (!block && overflow > thresholds_.unsafeOverflowShare) ||
                      (c.hasSqnr && ideal && c.minSqnrDb < *ideal - thresholds_.sqnrMarginDb);
  if (unsafe) {
    if (e.unsafeSteps == 0) e.firstUnsafeStep = step;
    ++e.unsafeSteps;
  }
}

int64_t AdviceBuilder::layerOf(const std::string& layer) {
  auto [it, inserted] = layerIndex_.emplace(layer, static_cast<int64_t>(layers_.size()));
  if (inserted) layers_.push_back(layer);
  return it->second;
}

void AdviceBuilder::addCounts(StepCounts& to, int64_t elements, int64_t flushed, int64_t subnormal,
                              int64_t overflowed, const FormatCostStats* cost) {
  to.elements += elements;
  to.flushed += flushed;
  to.subnormal += subnormal;
  to.overflowed += overflowed;
  if (cost && (!to.hasSqnr || cost->sqnrDb < to.minSqnrDb)) {
    to.hasSqnr = true;
    to.minSqnrDb = cost->sqnrDb;
  }
}

void AdviceBuilder::add(const ModeStep& step) {
  // The judged mode's step waits until the step's other modes have come (they follow it in a stream):
  // a GradScaler mode beside it gives the scale the GradScaler really used at that step.
  if (pending_ && step.step != pending_->step) flushPending();
  if (step.mode != judged_ && step.mode == PrecisionMode::FP16AmpScaled && pending_ && step.step == pending_->step) {
    pendingScale_ = step.lossScale;
    scalerModeName_ = modeName(step.mode);
  }
  addQuantised(step);
  if (step.mode == judged_ && step.instrumented && !step.tensors.empty()) {
    if (pending_) flushPending();
    pending_ = step;
    pendingScale_ = 0;
  }
}

void AdviceBuilder::flushPending() {
  if (!pending_) return;
  const ModeStep step = std::move(*pending_);
  pending_.reset();
  addJudged(step, pendingScale_);
}

void AdviceBuilder::addQuantised(const ModeStep& step) {
  std::map<Key, StepCounts> counts;

  // As run: a quantised mode's GEMM operands (any mode, on its measured steps).
  for (const auto& q : step.quantized) {
    if (!q.measured) continue;
    std::string role = "gemm-input";
    const auto endsWith = [&](const std::string& suffix) {
      return q.name.size() >= suffix.size() && q.name.compare(q.name.size() - suffix.size(), suffix.size(), suffix) == 0;
    };
    if (endsWith(".weight")) role = "weight";
    if (endsWith(".grad_output")) role = "activation-gradient";
    const int64_t values = q.histogram ? q.histogram->counts.sum() : q.numel;
    // The engine counts as saturated every value whose scaled magnitude exceeds the format's max. With a
    // per-tensor scale, when even the amax scaled (a float32 product, as the quantiser's) rounds to the max,
    // those values lost nothing beyond rounding: current scaling puts the amax at the max, and the float32
    // rounding of max / amax can put it an ulp above. They are not overflow here.
    int64_t saturated = q.saturated;
    const bool perTensor = q.scaling != ScalingKind::MxBlock && q.scaling != ScalingKind::Nvfp4Block;
    if (perTensor && roundsWithinMax(q.format, static_cast<double>(static_cast<float>(q.amax) * static_cast<float>(q.scale))))
      saturated = 0;
    addCounts(counts[{layerOf(q.layer), role, "run:" + modeName(step.mode)}], values, q.flushed, 0, saturated,
              nullptr);
  }

  for (const auto& [key, c] : counts) fold(key, c, step.step);
}

void AdviceBuilder::addJudged(const ModeStep& step, double otherScale) {
  std::map<Key, StepCounts> counts;

  {
    ++instrumentedSteps_;
    if (firstStep_ == 0) firstStep_ = step.step;
    lastStep_ = step.step;
    // The scale "fp16+scaler" judges at: the judged mode's own (its scaled histograms are exact), a
    // GradScaler mode's beside it, or 2^16 backed off below this step's ceiling.
    const bool recorded = step.lossScale != 1;
    const double scale = recorded ? step.lossScale : otherScale;
    if (scale > 0) haveRecordedScale_ = true;
    const std::optional<int> ceiling = addScaler(step, scale);
    const int hypothetical = scale > 0 ? scaleLog2(scale) : std::min(kDefaultScaleLog2, ceiling.value_or(kDefaultScaleLog2));
    for (const auto& t : step.tensors) {
      const std::string role = adviceRole(t);
      const std::string layerName = adviceLayer(t);
      const int64_t layer = layerOf(engineModel_ ? engineLayerName(*engineModel_, layerName) : layerName);
      const ExponentHistogram& unscaled = t.unscaled;
      const int64_t values = unscaled.counts.sum();
      if (unscaled.formatsMeasured) {
        for (RangeFormat f : {RangeFormat::FP16, RangeFormat::BF16}) {
          const FormatRangeCounts& r = unscaled.formats[static_cast<size_t>(f)];
          const std::string column = rangeFormatKey(f);
          // The rounding cost is of the tensor as seen (scaled): FP16's SQNR only where nothing scaled it.
          const FormatCostStats* cost = costOf(t, column);
          if (f == RangeFormat::FP16 && isBackwardRole(role) && step.lossScale != 1) cost = nullptr;
          addCounts(counts[{layer, role, column}], values, r.flushed, r.subnormal, r.overflowed, cost);
        }
      }
      if (isBackwardRole(role)) {
        StepCounts& to = counts[{layer, role, "fp16+scaler"}];
        if (recorded) {
          if (t.scaled.formatsMeasured) {
            const FormatRangeCounts& r = t.scaled.formats[static_cast<size_t>(RangeFormat::FP16)];
            addCounts(to, t.scaled.counts.sum(), r.flushed, r.subnormal, 0, nullptr);
          }
        } else {
          // Values below 2^-25 after scaling by 2^s flush; those in [2^-25, 2^-14) become subnormal (or
          // round up to 2^-14). A value of exactly 2^-25 also flushes (the tie goes to the even zero) but
          // shares its bin with values that do not: the histogram cannot tell it apart.
          int64_t flushed = 0, subnormal = 0;
          const int s = hypothetical;
          for (int e = unscaled.counts.lowest(); e <= unscaled.counts.highest(); ++e) {
            if (e + s < kFp16MinSubnormalLog2 - 1) flushed += unscaled.countAt(e);
            else if (e + s < -14) subnormal += unscaled.countAt(e);
          }
          addCounts(to, values, flushed, subnormal, 0, nullptr);
        }
      }
      // Scaled formats: the rounding cost of the tensor as seen; the shares are of its non-zero values.
      for (const char* column : {"fp8-e4m3", "fp8-e5m2", "mxfp8", "nvfp4"}) {
        if (const FormatCostStats* cost = costOf(t, column)) {
          addCounts(counts[{layer, role, column}], t.scaled.counts.sum(), cost->flushed, cost->subnormal,
                    cost->overflowed, cost);
        }
      }
    }
  }
  for (const auto& [key, c] : counts) fold(key, c, step.step);
}

std::optional<int> AdviceBuilder::addScaler(const ModeStep& step, double scale) {
  // Every backward value's exponent, all tensors together.
  ExponentBins bins;
  for (const auto& t : step.tensors)
    if (isBackwardRole(adviceRole(t))) bins.add(t.unscaled.counts);
  if (bins.empty()) return std::nullopt;
  const int lo = bins.lowest();
  const int hi = bins.highest();
  const int64_t values = bins.sum();
  // At scale 2^s the values of bin e < -25 - s are below 2^-25 and flush: flushedAt(s) counts them.
  const auto flushedAt = [&](int log2Scale) {
    int64_t n = 0;
    for (int e = lo; e <= hi && e < -25 - log2Scale; ++e) n += bins.at(e);
    return n;
  };
  const auto overShare = [&](int log2Scale) {
    return static_cast<double>(flushedAt(log2Scale)) > thresholds_.unsafeFlushShare * static_cast<double>(values);
  };
  ScalerAdvice& s = scaler_;
  const int needed = kFp16MinSubnormalLog2 - lo;
  const int ceiling = kFp16MaxExponent - 1 - hi;
  // The smallest scale keeping the flushed share within the unsafe share: below `needed` by the binades
  // whose values the share may lose.
  int neededForShare = needed;
  while (neededForShare > -300 && !overShare(neededForShare - 1)) --neededForShare;
  if (s.steps == 0 || needed > s.neededLog2) s.neededLog2 = needed, s.neededStep = step.step;
  if (s.steps == 0 || neededForShare > s.neededForShareLog2)
    s.neededForShareLog2 = neededForShare, s.neededForShareStep = step.step;
  if (s.steps == 0 || ceiling < s.ceilingLog2) s.ceilingLog2 = ceiling, s.ceilingStep = step.step;
  ++s.steps;
  if (needed > ceiling) {
    if (s.noScaleFitsSteps == 0) s.firstNoScaleFitsStep = step.step;
    ++s.noScaleFitsSteps;
  }
  const auto cover = [&](ScaleCover& c, int log2Scale) {
    ++c.steps;
    if (log2Scale >= needed) {
      if (c.coveredFromStep == 0) c.coveredFromStep = step.step;
    } else {
      c.coveredFromStep = 0;
      if (c.uncoveredSteps == 0) c.firstUncoveredStep = step.step;
      ++c.uncoveredSteps;
      c.lastUncoveredStep = step.step;
    }
    if (!overShare(log2Scale)) {
      if (c.shareCoveredFromStep == 0) c.shareCoveredFromStep = step.step;
    } else {
      c.shareCoveredFromStep = 0;
      if (c.overShareSteps == 0) c.firstOverShareStep = step.step;
      ++c.overShareSteps;
    }
  };
  cover(defaultCover_, std::min(kDefaultScaleLog2, ceiling));
  if (scale > 0) cover(recordedCover_, scaleLog2(scale));
  return ceiling;
}

namespace {

struct ModeJudgement {
  Verdict verdict = Verdict::TooFewSteps;  // TooFewSteps also stands for "not judged"
  std::string reason;
};

// The column a role is judged in for a mode (empty: the role is not required for it).
std::string whatIfColumnFor(PrecisionMode mode, const std::string& role) {
  const bool backward = isBackwardRole(role);
  switch (mode) {
    case PrecisionMode::FP16Amp: return role == "gemm-input" ? "" : "fp16";
    case PrecisionMode::FP16AmpScaled:
      return role == "gemm-input" ? "" : (backward ? "fp16+scaler" : "fp16");
    case PrecisionMode::BF16Amp: return role == "gemm-input" ? "" : "bf16";
    case PrecisionMode::Fp8Current:
      if (role == "gradient") return "";
      return role == "activation-gradient" ? "fp8-e5m2" : "fp8-e4m3";
    case PrecisionMode::MXFP8: return role == "gradient" ? "" : "mxfp8";
    case PrecisionMode::NVFP4: return role == "gradient" ? "" : "nvfp4";
    default: return "";
  }
}

bool quantisedMode(PrecisionMode mode) {
  return mode == PrecisionMode::Fp8Current || mode == PrecisionMode::Fp8Delayed || mode == PrecisionMode::MXFP8 ||
         mode == PrecisionMode::NVFP4;
}

ModeJudgement judgeMode(const std::vector<const FormatEvidence*>& layerEvidence, PrecisionMode mode) {
  ModeJudgement j;
  if (mode == PrecisionMode::FP32) {
    j.verdict = Verdict::Ok;
    j.reason = "fp32: the reference precision";
    return j;
  }
  std::vector<std::string> roles;
  for (const auto* e : layerEvidence)
    if (std::find(roles.begin(), roles.end(), e->role) == roles.end()) roles.push_back(e->role);
  const std::string name = modeName(mode);
  std::vector<std::string> missing, judgedRoles;
  const FormatEvidence* worstUnsafe = nullptr;
  const FormatEvidence* worstCaution = nullptr;
  bool fewSteps = false;
  for (const auto& role : roles) {
    const bool required = quantisedMode(mode) ? role != "gradient" : role != "gemm-input";
    if (!required) continue;
    const std::string column = whatIfColumnFor(mode, role);
    bool any = false;
    for (const auto* e : layerEvidence) {
      if (e->role != role || (e->column != column && e->column != "run:" + name)) continue;
      any = true;
      if (e->verdict == Verdict::TooFewSteps) fewSteps = true;
      if (e->verdict == Verdict::Unsafe && !worstUnsafe) worstUnsafe = e;
      if (e->verdict == Verdict::Caution && !worstCaution) worstCaution = e;
    }
    (any ? judgedRoles : missing).push_back(role);
  }
  // The evidence's first clause ("flushed 7.3% at step 221 (over a threshold at 30 of 30 steps, from step 1)").
  const auto describe = [](const FormatEvidence* e) {
    return e->role + " in " + e->column + ": " + e->reason.substr(0, e->reason.find("; "));
  };
  if (worstUnsafe) {
    j.verdict = Verdict::Unsafe;
    j.reason = name + " unsafe: " + describe(worstUnsafe);
    return j;
  }
  if (judgedRoles.empty()) {
    j.reason = name + " not judged: no evidence";
    if (!missing.empty()) {
      j.reason += " for";
      for (const auto& r : missing) j.reason += " " + r;
    }
    return j;
  }
  if (fewSteps) {
    j.reason = name + " not judged: too few instrumented steps";
    return j;
  }
  j.verdict = worstCaution ? Verdict::Caution : Verdict::Ok;
  j.reason = name + " holds";
  for (size_t i = 0; i < judgedRoles.size(); ++i) j.reason += (i ? ", " : " ") + judgedRoles[i];
  if (worstCaution) j.reason += " (caution: " + describe(worstCaution) + ")";
  if (!missing.empty()) {
    j.reason += "; not seen:";
    for (const auto& r : missing) j.reason += " " + r;
  }
  return j;
}

}  // namespace

PrecisionAdvice AdviceBuilder::finish(RunIdentity run, const std::string& target) {
  flushPending();
  if (!scalerModeName_.empty()) recordedCover_.label = "the loss scale " + scalerModeName_ + " used";
  PrecisionAdvice advice;
  advice.thresholds = thresholds_;
  advice.target = target;
  run.mode = modeName(judged_);
  run.firstStep = firstStep_;
  run.lastStep = lastStep_;
  run.instrumentedSteps = instrumentedSteps_;
  advice.run = std::move(run);

  // Layer order, then role (as first seen), then column (what-if order, then modes by name).
  std::vector<std::string> columns = whatIfColumns();
  for (const auto& [key, e] : evidence_)
    if (std::find(columns.begin(), columns.end(), std::get<2>(key)) == columns.end()) columns.push_back(std::get<2>(key));
  const auto columnRank = [&](const std::string& column) {
    return std::find(columns.begin(), columns.end(), column) - columns.begin();
  };
  const auto roleRank = [](const std::string& role) {
    static const std::vector<std::string> order = {"gemm-input", "activation", "weight", "activation-gradient",
                                                   "gradient"};
    return std::find(order.begin(), order.end(), role) - order.begin();
  };
  for (const auto& [key, e] : evidence_) {
    FormatEvidence judged = e;
    judgeEvidence(judged, thresholds_);
    advice.mostSteps = std::max(advice.mostSteps, judged.steps);
    advice.evidence.push_back(std::move(judged));
  }
  std::stable_sort(advice.evidence.begin(), advice.evidence.end(), [&](const FormatEvidence& a, const FormatEvidence& b) {
    const auto la = layerIndex_.at(a.layer), lb = layerIndex_.at(b.layer);
    if (la != lb) return la < lb;
    if (roleRank(a.role) != roleRank(b.role)) return roleRank(a.role) < roleRank(b.role);
    return columnRank(a.column) < columnRank(b.column);
  });
  advice.tooShort = advice.mostSteps < thresholds_.minSteps;

  advice.scaler = scaler_;
  advice.scaler.covers.push_back(defaultCover_);
  if (haveRecordedScale_ && recordedCover_.steps > 0) advice.scaler.covers.push_back(recordedCover_);
  for (const auto& e : advice.evidence) {
    if (e.column == "fp16" && isBackwardRole(e.role) && e.verdict == Verdict::Unsafe &&
        e.worstFlushShare > thresholds_.unsafeFlushShare)
      advice.scaler.needed = true;
  }
  if (advice.tooShort) return advice;

  const std::vector<PrecisionMode> chain = adviceChain(target);
  for (const auto& layer : layers_) {
    std::vector<const FormatEvidence*> layerEvidence;
    for (const auto& e : advice.evidence)
      if (e.layer == layer) layerEvidence.push_back(&e);
    LayerPlan plan;
    plan.layer = layer;
    std::string rejected;
    for (PrecisionMode mode : chain) {
      const ModeJudgement j = judgeMode(layerEvidence, mode);
      if (j.verdict == Verdict::Ok || j.verdict == Verdict::Caution) {
        plan.mode = modeName(mode);
        plan.reason = rejected.empty() ? j.reason : rejected + "; " + j.reason;
        break;
      }
      rejected += (rejected.empty() ? "" : "; ") + j.reason;
    }
    plan.keptHigher = target == "auto" ? plan.mode == "fp32" : plan.mode != target;
    advice.plan.push_back(std::move(plan));
  }
  return advice;
}

}  // namespace ampscope
