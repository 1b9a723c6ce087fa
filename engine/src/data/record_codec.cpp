#include "ampscope/engine/record_codec.h"

#include <array>
#include <random>
#include <charconv>
#include <cmath>
#include <utility>
#include <system_error>

#include "ampscope/engine/config_schema.h"
#include "ampscope/engine/follow_budget.h"
#include "ampscope/engine/number_text.h"
#include "ampscope/engine/version.h"
#include "data/json_reading.h"

namespace ampscope {

using data::failAt;
using data::FieldFailure;
using data::ObjectFields;
using data::Path;

std::string RecordError::text() const { return path.empty() ? message : path + ": " + message; }

namespace {

// ---- key spellings: the current (kebab-case) one and AmpScope 0.1.0's `train --jsonl` (snake_case) ----

enum StepKey : std::size_t {
  kMode, kStep, kLoss, kLossScale, kSkipped, kFoundInf, kGradNormBeforeClip, kGradNormAfterClip,
  kClipNormSeen, kLr, kStepTimeMs, kCurrentBytes, kPeakBytes, kDiverged, kInstrumented, kRounding,
  kRoundingPoints, kTensors,
  // version 3: from training-script probes (not in version 1's spelling)
  kSeq, kWallTime, kNonFinite, kFoundInfPerDevice,
  kQuantized,  // FP8 and microscaling modes
  kFolded,     // what a reader's record budget left out (sessions and journals; a probe never writes it)
  kStepKeyCount
};
enum CountsKey : std::size_t { kElements, kFlushedToZero, kSubnormal, kOverflowed, kNan, kCountsKeyCount };
enum PointKey : std::size_t { kPointName, kPointLayer, kPointBackward, kPointCounts, kPointKeyCount };
enum TensorKey : std::size_t {
  kTensorName, kTensorIsParameter, kTensorNumel, kTensorScaled, kTensorUnscaled,
  kTensorRole, kTensorRoundingCost,  // version 4 (not in version 1's spelling)
  kTensorKeyCount
};
// A tensor's "rounding-cost": the six formats of rounding_cost.h, all six with every key when present.
constexpr std::array<std::string_view, 6> kCostFormatKeys = {"fp16", "bf16", "fp8-e4m3", "fp8-e5m2", "mxfp8",
                                                             "nvfp4"};
enum CostKey : std::size_t {
  kCostElements, kCostChanged, kCostFlushed, kCostSubnormal, kCostOverflowed, kCostSqnrDb, kCostKeyCount
};
constexpr std::array<std::string_view, kCostKeyCount> kCostKeys = {"elements", "changed", "flushed",
                                                                   "subnormal", "overflowed", "sqnr-db"};
constexpr std::array<TensorRole, 4> kTensorRoles = {TensorRole::Gradient, TensorRole::Activation,
                                                    TensorRole::ActivationGradient, TensorRole::Weight};
enum HistogramKey : std::size_t {
  kBins, kZero, kPosInf, kNegInf, kHistNan, kTargetSubnormal, kTargetUnderflow,
  kFormats,  // version 3 (not in version 1's spelling)
  kHistogramKeyCount
};
enum QuantKey : std::size_t {
  kQuantName, kQuantLayer, kQuantBackward, kQuantFormat, kQuantScaling, kQuantNumel, kQuantScale, kQuantAmax,
  kQuantAmaxHistoryMax, kQuantBlockExpMin, kQuantBlockExpMax, kQuantSaturated, kQuantFlushed, kQuantHistogram,
  kQuantKeyCount
};
constexpr std::array<std::string_view, kQuantKeyCount> kQuantKeys = {
    "name", "layer", "backward", "format", "scaling", "numel", "scale", "amax", "amax-history-max",
    "block-scale-exp-min", "block-scale-exp-max", "saturated", "flushed", "histogram"};
// A record's "folded" (FoldedEntries): counts, and the folded parameter gradients' summed histograms.
enum FoldedKey : std::size_t {
  kFoldedTensors, kFoldedParameters, kFoldedParameterNumel, kFoldedScaled, kFoldedUnscaled, kFoldedRoundingPoints,
  kFoldedQuantized, kFoldedNames, kFoldedKeyCount
};
constexpr std::array<std::string_view, kFoldedKeyCount> kFoldedKeys = {
    "tensors", "parameters", "parameter-numel", "scaled", "unscaled", "rounding-points", "quantized", "nonfinite"};
enum RangeKey : std::size_t { kRangeFlushed, kRangeSubnormal, kRangeOverflowed, kRangeKeyCount };
constexpr std::array<std::string_view, kRangeKeyCount> kRangeKeys = {"flushed", "subnormal", "overflowed"};
constexpr std::array<std::string_view, kRangeFormats> kRangeFormatKeys = {"fp16", "bf16", "fp8-e4m3", "fp8-e5m2"};

struct Spelling {
  std::array<std::string_view, kStepKeyCount> step;
  std::array<std::string_view, kCountsKeyCount> counts;
  std::array<std::string_view, kPointKeyCount> point;
  std::array<std::string_view, kTensorKeyCount> tensor;
  std::array<std::string_view, kHistogramKeyCount> histogram;
  bool binsAsObject;  // version 1: "exponents": {"-24": count}; now "bins": [[-24, count]]
  std::size_t stepKeys;       // how many of `step` this spelling knows (version 1 lacks the newer ones)
  std::size_t histogramKeys;  // the same for `histogram`
  std::size_t tensorKeys;     // the same for `tensor`
};

constexpr Spelling kKebab{
    {"mode", "step", "loss", "loss-scale", "skipped", "found-inf", "grad-norm-before-clip",
     "grad-norm-after-clip", "clip-norm-seen", "lr", "step-time-ms", "current-bytes", "peak-bytes",
     "diverged", "instrumented", "rounding", "rounding-points", "tensors", "seq", "wall-time", "nonfinite",
     "found-inf-per-device", "quantized", "folded"},
    {"elements", "flushed-to-zero", "subnormal", "overflowed", "nan"},
    {"name", "layer", "backward", "counts"},
    {"name", "is-parameter", "numel", "scaled", "unscaled", "role", "rounding-cost"},
    {"bins", "zero", "pos-inf", "neg-inf", "nan", "target-subnormal", "target-underflow", "formats"},
    false,
    kStepKeyCount,
    kHistogramKeyCount,
    kTensorKeyCount};

constexpr Spelling kSnakeV1{
    {"mode", "step", "loss", "loss_scale", "skipped", "found_inf", "grad_norm_before_clip",
     "grad_norm_after_clip", "clip_norm_seen", "lr", "step_time_ms", "current_bytes", "peak_bytes",
     "diverged", "instrumented", "rounding", "rounding_points", "tensors", {}, {}, {}, {}, {}, {}},
    {"elements", "flushed_to_zero", "subnormal", "overflowed", "nan"},
    {"name", "layer", "backward", "counts"},
    {"name", "parameter", "numel", "scaled", "unscaled", {}, {}},
    {"exponents", "zero", "pos_inf", "neg_inf", "nan", "target_subnormal", "target_underflow", {}},
    true,
    kSeq,
    kFormats,
    kTensorRole};

// ---- writing ----

bool anyCounts(const RoundingCounts& c) {
  return c.elements != 0 || c.flushedToZero != 0 || c.subnormal != 0 || c.overflowed != 0 || c.nan != 0;
}

void writeCounts(JsonWriter& out, const RoundingCounts& c) {
  const auto& k = kKebab.counts;
  out.beginObject();
  out.field(k[kElements], static_cast<long long>(c.elements));
  out.field(k[kFlushedToZero], static_cast<long long>(c.flushedToZero));
  out.field(k[kSubnormal], static_cast<long long>(c.subnormal));
  out.field(k[kOverflowed], static_cast<long long>(c.overflowed));
  out.field(k[kNan], static_cast<long long>(c.nan));
  out.endObject();
}

void writeHistogram(JsonWriter& out, const ExponentHistogram& h) {
  const auto& k = kKebab.histogram;
  out.beginObject();
  out.key(k[kBins]).beginArray();
  for (int e = h.counts.lowest(); e <= h.counts.highest(); ++e) {
    const int64_t count = h.countAt(e);
    if (count != 0) out.beginArray().value(e).value(static_cast<long long>(count)).endArray();
  }
  out.endArray();
  out.field(k[kZero], static_cast<long long>(h.zero));
  out.field(k[kPosInf], static_cast<long long>(h.posInf));
  out.field(k[kNegInf], static_cast<long long>(h.negInf));
  out.field(k[kHistNan], static_cast<long long>(h.nan));
  out.field(k[kTargetSubnormal], static_cast<long long>(h.targetSubnormal));
  out.field(k[kTargetUnderflow], static_cast<long long>(h.targetUnderflow));
  if (h.formatsMeasured) {
    out.key(k[kFormats]).beginObject();
    for (std::size_t i = 0; i < kRangeFormatKeys.size(); ++i) {
      const FormatRangeCounts& c = h.formats[i];
      out.key(kRangeFormatKeys[i]).beginObject();
      out.field(kRangeKeys[kRangeFlushed], static_cast<long long>(c.flushed));
      out.field(kRangeKeys[kRangeSubnormal], static_cast<long long>(c.subnormal));
      out.field(kRangeKeys[kRangeOverflowed], static_cast<long long>(c.overflowed));
      out.endObject();
    }
    out.endObject();
  }
  out.endObject();
}

// ---- reading ----

// Field `key` of `f`, read by `read` (data::readCount, data::readBool, ...), which names its full path in
// any failure.
template <typename Read>
auto field(const ObjectFields& f, std::size_t key, Read read) {
  return read(f.required(key), f.at(key));
}

// An array, item by item: readItem gets each item with its own path ("tensors[3]").
template <typename Item>
std::vector<Item> readList(const JsonValue& v, const Path& path, const Spelling& sp,
                           Item (*readItem)(const JsonValue&, const Path&, const Spelling&)) {
  const auto& items = data::readArray(v, path);
  std::vector<Item> list;
  list.reserve(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) {
    list.push_back(readItem(items[i], path.item(static_cast<int64_t>(i)), sp));
  }
  return list;
}

RoundingCounts readCounts(const JsonValue& v, const Path& path, const Spelling& sp) {
  const ObjectFields f(v, path, sp.counts.data(), sp.counts.size());
  RoundingCounts c;
  c.elements = field(f, kElements, data::readCount);
  c.flushedToZero = field(f, kFlushedToZero, data::readCount);
  c.subnormal = field(f, kSubnormal, data::readCount);
  c.overflowed = field(f, kOverflowed, data::readCount);
  c.nan = field(f, kNan, data::readCount);
  return c;
}

void setBin(ExponentBins::Dense& bins, int64_t exponent, int64_t count, const Path& exponentPath,
            const Path& countPath) {
  if (exponent < ExponentHistogram::kMinExponent || exponent > ExponentHistogram::kMaxExponent) {
    failAt(exponentPath, "exponent " + std::to_string(exponent) + " is outside [" +
                             std::to_string(ExponentHistogram::kMinExponent) + ", " +
                             std::to_string(ExponentHistogram::kMaxExponent) + "]");
  }
  if (count < 0) failAt(countPath, "must not be negative");
  bins[static_cast<std::size_t>(exponent - ExponentHistogram::kMinExponent)] = count;
}

void readRangeFormats(const JsonValue& v, const Path& path, ExponentHistogram& h) {
  const ObjectFields formats(v, path, kRangeFormatKeys.data(), kRangeFormatKeys.size());
  for (std::size_t i = 0; i < kRangeFormatKeys.size(); ++i) {
    const Path formatPath = formats.at(i);
    const ObjectFields counts(formats.required(i), formatPath, kRangeKeys.data(), kRangeKeys.size());
    h.formats[i].flushed = field(counts, kRangeFlushed, data::readCount);
    h.formats[i].subnormal = field(counts, kRangeSubnormal, data::readCount);
    h.formats[i].overflowed = field(counts, kRangeOverflowed, data::readCount);
  }
  h.formatsMeasured = true;
}

ExponentHistogram readHistogram(const JsonValue& v, const Path& path, const Spelling& sp) {
  const ObjectFields f(v, path, sp.histogram.data(), sp.histogramKeys);
  ExponentHistogram h;
  const Path binsPath = f.at(kBins);
  const JsonValue& bins = f.required(kBins);
  // The file's bins are read into every bin first and stored compactly once: a file may list them in
  // any order (version 1's object) and a later duplicate wins, as it did when histograms were dense.
  ExponentBins::Dense dense{};
  if (sp.binsAsObject) {
    if (!bins.isObject()) failAt(binsPath, "expected an object");
    for (const auto& [name, count] : bins.members()) {
      const Path countPath = binsPath.child(name);
      int64_t exponent = 0;
      const auto result = std::from_chars(name.data(), name.data() + name.size(), exponent);
      if (result.ec != std::errc() || result.ptr != name.data() + name.size()) {
        failAt(countPath, "the key is not an integer exponent");
      }
      setBin(dense, exponent, data::readInt(count, countPath), countPath, countPath);
    }
  } else {
    const auto& pairs = data::readArray(bins, binsPath);
    for (std::size_t i = 0; i < pairs.size(); ++i) {
      const Path pairPath = binsPath.item(static_cast<int64_t>(i));
      const auto& pair = data::readArray(pairs[i], pairPath);
      if (pair.size() != 2) failAt(pairPath, "expected [exponent, count]");
      const Path exponentPath = pairPath.item(0);
      const Path countPath = pairPath.item(1);
      setBin(dense, data::readInt(pair[0], exponentPath), data::readInt(pair[1], countPath), exponentPath, countPath);
    }
  }
  h.counts.add(dense);
  h.zero = field(f, kZero, data::readCount);
  h.posInf = field(f, kPosInf, data::readCount);
  h.negInf = field(f, kNegInf, data::readCount);
  h.nan = field(f, kHistNan, data::readCount);
  h.targetSubnormal = field(f, kTargetSubnormal, data::readCount);
  h.targetUnderflow = field(f, kTargetUnderflow, data::readCount);
  if (sp.histogramKeys > kFormats) {
    if (const JsonValue* formats = f.get(kFormats)) readRangeFormats(*formats, f.at(kFormats), h);
  }
  return h;
}

RoundingPointStats readRoundingPoint(const JsonValue& v, const Path& path, const Spelling& sp) {
  const ObjectFields f(v, path, sp.point.data(), sp.point.size());
  RoundingPointStats point;
  point.name = field(f, kPointName, data::readString);
  point.layer = field(f, kPointLayer, data::readString);
  point.backward = field(f, kPointBackward, data::readBool);
  point.counts = readCounts(f.required(kPointCounts), f.at(kPointCounts), sp);
  return point;
}

TensorRole readRole(const JsonValue& v, const Path& path) {
  const std::string& text = data::readString(v, path);
  for (const TensorRole role : kTensorRoles) {
    if (text == tensorRoleKey(role)) return role;
  }
  failAt(path, "unknown tensor role \"" + text + "\" (gradient, activation, activation-gradient, weight)");
}

std::vector<FormatCostStats> readRoundingCost(const JsonValue& v, const Path& path) {
  const ObjectFields formats(v, path, kCostFormatKeys.data(), kCostFormatKeys.size());
  std::vector<FormatCostStats> out;
  for (std::size_t i = 0; i < kCostFormatKeys.size(); ++i) {
    const Path formatPath = formats.at(i);  // ObjectFields keeps a reference to its path
    const ObjectFields c(formats.required(i), formatPath, kCostKeys.data(), kCostKeys.size());
    FormatCostStats cost;
    cost.format = std::string(kCostFormatKeys[i]);
    cost.elements = field(c, kCostElements, data::readCount);
    cost.changed = field(c, kCostChanged, data::readCount);
    cost.flushed = field(c, kCostFlushed, data::readCount);
    cost.subnormal = field(c, kCostSubnormal, data::readCount);
    cost.overflowed = field(c, kCostOverflowed, data::readCount);
    cost.sqnrDb = field(c, kCostSqnrDb, data::readDouble);
    if (std::isnan(cost.sqnrDb)) failAt(c.at(kCostSqnrDb), "expected a number, \"inf\" or \"-inf\"");
    for (const auto& [key, count] : {std::pair{kCostChanged, cost.changed}, std::pair{kCostFlushed, cost.flushed},
                                    std::pair{kCostSubnormal, cost.subnormal},
                                    std::pair{kCostOverflowed, cost.overflowed}}) {
      if (count > cost.elements) failAt(c.at(key), "more than the elements (" + std::to_string(cost.elements) + ")");
    }
    out.push_back(std::move(cost));
  }
  return out;
}

TensorStats readTensor(const JsonValue& v, const Path& path, const Spelling& sp) {
  const ObjectFields f(v, path, sp.tensor.data(), sp.tensorKeys);
  TensorStats tensor;
  tensor.name = field(f, kTensorName, data::readString);
  tensor.isParameter = field(f, kTensorIsParameter, data::readBool);
  tensor.numel = field(f, kTensorNumel, data::readCount);
  tensor.scaled = readHistogram(f.required(kTensorScaled), f.at(kTensorScaled), sp);
  tensor.unscaled = readHistogram(f.required(kTensorUnscaled), f.at(kTensorUnscaled), sp);
  tensor.role = tensor.isParameter ? TensorRole::Gradient : TensorRole::ActivationGradient;
  if (sp.tensorKeys > kTensorRole) {
    if (const JsonValue* role = f.get(kTensorRole)) {
      tensor.role = readRole(*role, f.at(kTensorRole));
      // is-parameter means "a parameter's gradient": only that role has it.
      if (tensor.isParameter != (tensor.role == TensorRole::Gradient)) {
        failAt(f.at(kTensorIsParameter), std::string(tensor.isParameter ? "true" : "false") + " with role \"" +
                                             tensorRoleKey(tensor.role) + "\" (true only for \"gradient\")");
      }
    }
    if (const JsonValue* cost = f.get(kTensorRoundingCost)) {
      tensor.roundingCost = readRoundingCost(*cost, f.at(kTensorRoundingCost));
    }
  }
  return tensor;
}

bool isBlockScaling(ScalingKind kind) { return kind == ScalingKind::MxBlock || kind == ScalingKind::Nvfp4Block; }

// "saturated" present = measured: the counts and the histogram come together.
QuantTensorStats readQuantTensor(const JsonValue& v, const Path& path, const Spelling& sp) {
  const ObjectFields f(v, path, kQuantKeys.data(), kQuantKeys.size());
  QuantTensorStats q;
  q.name = field(f, kQuantName, data::readString);
  q.layer = field(f, kQuantLayer, data::readString);
  q.backward = field(f, kQuantBackward, data::readBool);
  const auto format = parseQuantFormat(field(f, kQuantFormat, data::readString));
  if (!format) failAt(f.at(kQuantFormat), "expected \"e4m3\", \"e5m2\" or \"e2m1\"");
  q.format = *format;
  const auto scaling = parseScalingKind(field(f, kQuantScaling, data::readString));
  if (!scaling) {
    failAt(f.at(kQuantScaling), "expected \"none\", \"delayed\", \"current\", \"mx-block\" or \"nvfp4-block\"");
  }
  q.scaling = *scaling;
  q.numel = field(f, kQuantNumel, data::readCount);
  q.scale = field(f, kQuantScale, data::readDouble);
  q.amax = field(f, kQuantAmax, data::readDouble);
  q.amaxHistoryMax = field(f, kQuantAmaxHistoryMax, data::readDouble);
  if (isBlockScaling(q.scaling)) {
    const int64_t lo = field(f, kQuantBlockExpMin, data::readInt);
    const int64_t hi = field(f, kQuantBlockExpMax, data::readInt);
    if (lo < -1000 || lo > 1000) failAt(f.at(kQuantBlockExpMin), "outside [-1000, 1000]");
    if (hi < lo || hi > 1000) failAt(f.at(kQuantBlockExpMax), "below block-scale-exp-min or above 1000");
    q.blockScaleExpMin = static_cast<int>(lo);
    q.blockScaleExpMax = static_cast<int>(hi);
  } else {
    if (f.get(kQuantBlockExpMin)) failAt(f.at(kQuantBlockExpMin), "only block scalings have block scales");
    if (f.get(kQuantBlockExpMax)) failAt(f.at(kQuantBlockExpMax), "only block scalings have block scales");
  }
  if (const JsonValue* saturated = f.get(kQuantSaturated)) {
    q.measured = true;
    q.saturated = data::readCount(*saturated, f.at(kQuantSaturated));
    q.flushed = field(f, kQuantFlushed, data::readCount);
    q.histogram = std::make_shared<const ExponentHistogram>(
        readHistogram(f.required(kQuantHistogram), f.at(kQuantHistogram), sp));
  } else {
    if (f.get(kQuantFlushed)) failAt(f.at(kQuantFlushed), "flushed without saturated");
    if (f.get(kQuantHistogram)) failAt(f.at(kQuantHistogram), "a histogram without saturated");
  }
  return q;
}

void writeQuantTensor(JsonWriter& out, const QuantTensorStats& q) {
  out.beginObject();
  out.field(kQuantKeys[kQuantName], q.name);
  out.field(kQuantKeys[kQuantLayer], q.layer);
  out.field(kQuantKeys[kQuantBackward], q.backward);
  out.field(kQuantKeys[kQuantFormat], quantFormatKey(q.format));
  out.field(kQuantKeys[kQuantScaling], scalingKindKey(q.scaling));
  out.field(kQuantKeys[kQuantNumel], static_cast<long long>(q.numel));
  out.field(kQuantKeys[kQuantScale], q.scale);
  out.field(kQuantKeys[kQuantAmax], q.amax);
  out.field(kQuantKeys[kQuantAmaxHistoryMax], q.amaxHistoryMax);
  if (isBlockScaling(q.scaling)) {
    out.field(kQuantKeys[kQuantBlockExpMin], static_cast<long long>(q.blockScaleExpMin));
    out.field(kQuantKeys[kQuantBlockExpMax], static_cast<long long>(q.blockScaleExpMax));
  }
  if (q.measured) {
    out.field(kQuantKeys[kQuantSaturated], static_cast<long long>(q.saturated));
    out.field(kQuantKeys[kQuantFlushed], static_cast<long long>(q.flushed));
    out.key(kQuantKeys[kQuantHistogram]);
    writeHistogram(out, q.histogram ? *q.histogram : ExponentHistogram{});
  }
  out.endObject();
}

FoldedEntries readFolded(const JsonValue& v, const Path& path, const Spelling& sp) {
  const ObjectFields f(v, path, kFoldedKeys.data(), kFoldedKeys.size());
  FoldedEntries fe;
  fe.tensors = field(f, kFoldedTensors, data::readCount);
  fe.parameters = field(f, kFoldedParameters, data::readCount);
  if (fe.parameters > fe.tensors) failAt(f.at(kFoldedParameters), "more than the folded tensors");
  auto sum = std::make_shared<TensorStats>();
  sum->name = kFoldedRoundingPoint;
  sum->numel = field(f, kFoldedParameterNumel, data::readCount);
  sum->scaled = readHistogram(f.required(kFoldedScaled), f.at(kFoldedScaled), sp);
  sum->unscaled = readHistogram(f.required(kFoldedUnscaled), f.at(kFoldedUnscaled), sp);
  if (fe.parameters > 0) fe.parameterSum = std::move(sum);
  fe.roundingPoints = field(f, kFoldedRoundingPoints, data::readCount);
  fe.quantized = field(f, kFoldedQuantized, data::readCount);
  fe.names = field(f, kFoldedNames, data::readCount);
  if (!fe.any()) failAt(path, "nothing folded (written only when something was)");
  return fe;
}

ModeStep readModeStep(const JsonValue& v, const Path& path, const Spelling& sp) {
  const ObjectFields f(v, path, sp.step.data(), sp.stepKeys);
  auto number = [&](StepKey k) { return field(f, k, data::readDouble); };
  auto flag = [&](StepKey k) { return field(f, k, data::readBool); };
  ModeStep s;
  s.mode = field(f, kMode, data::readMode);
  s.step = field(f, kStep, data::readInt);
  if (s.step < 1) failAt(f.at(kStep), "must be at least 1");
  s.loss = number(kLoss);
  s.lossScale = number(kLossScale);
  s.skipped = flag(kSkipped);
  s.foundInf = flag(kFoundInf);
  s.gradNormBeforeClip = number(kGradNormBeforeClip);
  s.gradNormAfterClip = number(kGradNormAfterClip);
  s.clipNormSeen = number(kClipNormSeen);
  s.lr = number(kLr);
  s.stepTimeMs = number(kStepTimeMs);
  s.currentBytes = field(f, kCurrentBytes, data::readInt);
  s.peakBytes = field(f, kPeakBytes, data::readInt);
  s.diverged = flag(kDiverged);
  s.instrumented = flag(kInstrumented);
  if (const JsonValue* rounding = f.get(kRounding)) s.rounding = readCounts(*rounding, f.at(kRounding), sp);
  if (const JsonValue* points = f.get(kRoundingPoints)) {
    s.roundingPoints = readList(*points, f.at(kRoundingPoints), sp, readRoundingPoint);
  }
  if (const JsonValue* tensors = f.get(kTensors)) s.tensors = readList(*tensors, f.at(kTensors), sp, readTensor);
  if (sp.stepKeys <= kSeq) return s;
  if (const JsonValue* seq = f.get(kSeq)) {
    s.seq = data::readInt(*seq, f.at(kSeq));
    if (s.seq < 1) failAt(f.at(kSeq), "must be at least 1");
  }
  if (const JsonValue* wallTime = f.get(kWallTime)) s.wallTime = data::readDouble(*wallTime, f.at(kWallTime));
  if (const JsonValue* names = f.get(kNonFinite)) {
    const Path namesPath = f.at(kNonFinite);
    const auto& items = data::readArray(*names, namesPath);
    s.nonFinite.reserve(items.size());
    for (std::size_t i = 0; i < items.size(); ++i) {
      s.nonFinite.push_back(data::readString(items[i], namesPath.item(static_cast<int64_t>(i))));
    }
  }
  if (const JsonValue* devices = f.get(kFoundInfPerDevice)) {
    const Path devicesPath = f.at(kFoundInfPerDevice);
    if (!devices->isObject()) failAt(devicesPath, "expected an object");
    for (const auto& [device, found] : devices->members()) {
      s.foundInfPerDevice.emplace_back(device, data::readBool(found, devicesPath.child(device)));
    }
  }
  if (const JsonValue* quantized = f.get(kQuantized)) {
    s.quantized = readList(*quantized, f.at(kQuantized), sp, readQuantTensor);
  }
  if (const JsonValue* folded = f.get(kFolded)) s.folded = readFolded(*folded, f.at(kFolded), sp);
  return s;
}

constexpr std::array<std::string_view, 2> kRecordKeys = {"step", "modes"};

StepRecord readStepRecord(const JsonValue& v, const Path& path) {
  const ObjectFields f(v, path, kRecordKeys.data(), kRecordKeys.size());
  StepRecord record;
  record.step = field(f, 0, data::readInt);
  record.modes = readList(f.required(1), f.at(1), kKebab, readModeStep);
  return record;
}

void setError(RecordError* error, std::string path, std::string message) {
  if (error) *error = RecordError{std::move(path), std::move(message)};
}

// read()'s result, or nullopt with the failure in *error.
template <typename Read>
auto orError(RecordError* error, Read read) -> std::optional<decltype(read())> {
  try {
    return read();
  } catch (const FieldFailure& failure) {
    setError(error, failure.path, failure.message);
    return std::nullopt;
  }
}

// ---- the stream's lines ----

std::string lineName(std::size_t line) { return "line " + std::to_string(line); }

// Splits at '\n' (a trailing '\r' is dropped); calls each(lineNumber, text) for every non-blank line.
template <typename Each>
void forEachLine(std::string_view text, Each each) {
  std::size_t lineNumber = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    ++lineNumber;
    if (line.find_first_not_of(" \t") != std::string_view::npos) each(lineNumber, line);
    start = end + 1;
  }
}

// The header's keys; kSourceKeys (a session's "source" object) are the identity fields among them.
enum HeaderKey : std::size_t {
  kHeaderFormat, kHeaderVersion, kHeaderApp, kHeaderConfig,
  kHeaderSource, kHeaderRun, kHeaderRunId, kHeaderRank, kHeaderWorldSize, kHeaderRanks, kHeaderDevice,
  kHeaderTorch, kHeaderEvery, kHeaderParameters, kHeaderKeyCount
};
constexpr std::array<std::string_view, kHeaderKeyCount> kHeaderKeys = {
    "format", "version", "app", "config", "source", "run", "run-id", "rank", "world-size", "ranks", "device",
    "torch", "every", "parameters"};
constexpr std::size_t kFirstSourceKey = kHeaderSource;

bool isRunId(const std::string& text) {
  if (text.size() != 16) return false;
  for (const char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

// The identity fields of `f` (whose keys are kHeaderKeys from `first` on, shifted by `first`): required
// when `probe`; for an engine stream only what is present is read.
StreamSource readSourceFields(const ObjectFields& f, std::size_t first, bool requireSource) {
  auto at = [&](HeaderKey key) { return key - first; };
  StreamSource source;
  const JsonValue* kind = f.get(at(kHeaderSource));
  if (requireSource && !kind) f.required(at(kHeaderSource));
  if (kind) {
    source.source = data::readString(*kind, f.at(at(kHeaderSource)));
    if (source.source != "engine" && source.source != "probe") {
      failAt(f.at(at(kHeaderSource)), "expected \"engine\" or \"probe\", found \"" + source.source + "\"");
    }
  }
  const bool probe = source.source == "probe";
  // A probe names its run; the engine's header carries these only when a tool added them.
  auto value = [&](HeaderKey key) -> const JsonValue* {
    return probe ? &f.required(at(key)) : f.get(at(key));
  };
  if (const JsonValue* v = value(kHeaderRun)) source.run = data::readString(*v, f.at(at(kHeaderRun)));
  if (const JsonValue* v = value(kHeaderRunId)) {
    source.runId = data::readString(*v, f.at(at(kHeaderRunId)));
    if (!isRunId(source.runId)) failAt(f.at(at(kHeaderRunId)), "expected 16 lowercase hex digits");
  }
  if (const JsonValue* v = value(kHeaderWorldSize)) {
    source.worldSize = data::readInt(*v, f.at(at(kHeaderWorldSize)));
    if (source.worldSize < 1) failAt(f.at(at(kHeaderWorldSize)), "must be at least 1");
  }
  if (const JsonValue* v = value(kHeaderRank)) {
    source.rank = data::readCount(*v, f.at(at(kHeaderRank)));
    if (source.rank >= source.worldSize) {
      failAt(f.at(at(kHeaderRank)), "rank " + std::to_string(source.rank) + " is not below world-size " +
                                        std::to_string(source.worldSize));
    }
  }
  if (const JsonValue* v = value(kHeaderRanks)) {
    source.ranks = data::readString(*v, f.at(at(kHeaderRanks)));
    if (source.ranks != "single" && source.ranks != "merged" && source.ranks != "per-rank") {
      failAt(f.at(at(kHeaderRanks)), "expected \"single\", \"merged\" or \"per-rank\", found \"" + source.ranks + "\"");
    }
  }
  if (const JsonValue* v = value(kHeaderDevice)) source.device = data::readString(*v, f.at(at(kHeaderDevice)));
  if (const JsonValue* v = value(kHeaderTorch)) source.torch = data::readString(*v, f.at(at(kHeaderTorch)));
  if (const JsonValue* v = value(kHeaderEvery)) {
    source.every = data::readInt(*v, f.at(at(kHeaderEvery)));
    // (An engine source's 0 is what sessions written before engine sources left out these keys hold.)
    if (source.every < (probe ? 1 : 0)) failAt(f.at(at(kHeaderEvery)), probe ? "must be at least 1" : "must not be negative");
  }
  if (const JsonValue* v = value(kHeaderParameters)) {
    const Path path = f.at(at(kHeaderParameters));
    const auto& items = data::readArray(*v, path);
    source.parameters.reserve(items.size());
    for (std::size_t i = 0; i < items.size(); ++i) {
      source.parameters.push_back(data::readString(items[i], path.item(static_cast<int64_t>(i))));
    }
  }
  return source;
}

// The identity fields as members of the object being written (the header, or a session's "source").
void writeSourceFields(JsonWriter& json, const StreamSource& source, bool identity) {
  json.field(kHeaderKeys[kHeaderSource], source.source);
  if (source.source != "probe") {
    // An engine stream: its run-id (and, in a session, the name it was shown under) when it has them.
    // The probe's other identity fields have no engine value ("every": 0 would not read back).
    if (identity && !source.run.empty()) json.field(kHeaderKeys[kHeaderRun], source.run);
    if (!source.runId.empty()) json.field(kHeaderKeys[kHeaderRunId], source.runId);
    return;
  }
  if (!identity) return;
  json.field(kHeaderKeys[kHeaderRun], source.run);
  json.field(kHeaderKeys[kHeaderRunId], source.runId);
  json.field(kHeaderKeys[kHeaderRank], static_cast<long long>(source.rank));
  json.field(kHeaderKeys[kHeaderWorldSize], static_cast<long long>(source.worldSize));
  json.field(kHeaderKeys[kHeaderRanks], source.ranks);
  json.field(kHeaderKeys[kHeaderDevice], source.device);
  json.field(kHeaderKeys[kHeaderTorch], source.torch);
  json.field(kHeaderKeys[kHeaderEvery], static_cast<long long>(source.every));
  json.key(kHeaderKeys[kHeaderParameters]).beginArray();
  for (const auto& name : source.parameters) json.value(name);
  json.endArray();
}

// Version 2 headers have format, version, app and config; version 3 adds the source and, for a probe,
// the run's identity (its config is optional).
void readHeader(const JsonValue& value, RecordStream& stream) {
  const Path root;
  const ObjectFields f(value, root, kHeaderKeys.data(), kHeaderKeys.size());
  const JsonValue& format = f.required(kHeaderFormat);
  if (!format.isString() || format.string() != kRecordStreamFormat) {
    failAt(f.at(kHeaderFormat),
           "not an AmpScope record stream (expected \"" + std::string(kRecordStreamFormat) + "\")");
  }
  const int64_t version = field(f, kHeaderVersion, data::readInt);
  if (version < 2 || version > kRecordStreamVersion) {
    failAt(f.at(kHeaderVersion), "record stream version " + std::to_string(version) +
                                     "; this AmpScope reads versions 1 to " + std::to_string(kRecordStreamVersion) +
                                     (version > kRecordStreamVersion ? " (written by a newer AmpScope)" : ""));
  }
  stream.version = static_cast<int>(version);
  stream.app = field(f, kHeaderApp, data::readString);
  if (version == 2) {
    for (std::size_t key = kFirstSourceKey; key < kHeaderKeys.size(); ++key) {
      if (f.get(key)) failAt(f.at(key), "unknown key (in a version 2 header)");
    }
  } else {
    stream.source = readSourceFields(f, 0, true);
  }
  const JsonValue* configValue = f.get(kHeaderConfig);
  if (!configValue) {
    if (stream.source.source == "probe") return;
    f.required(kHeaderConfig);
  }
  RunConfig config;
  const auto errors = readConfigJson(*configValue, config, true, "config.");
  if (!errors.empty()) throw FieldFailure{errors.front().field, errors.front().message};
  const auto invalid = validate(config);
  if (!invalid.empty()) throw FieldFailure{"config." + invalid.front().field, invalid.front().message};
  stream.config = config;
}

}  // namespace

void writeModeStepJson(JsonWriter& out, const ModeStep& s) {
  const auto& k = kKebab.step;
  out.beginObject();
  out.field(k[kMode], modeName(s.mode));
  out.field(k[kStep], static_cast<long long>(s.step));
  out.field(k[kLoss], s.loss);
  out.field(k[kLossScale], s.lossScale);
  out.field(k[kSkipped], s.skipped);
  out.field(k[kFoundInf], s.foundInf);
  out.field(k[kGradNormBeforeClip], s.gradNormBeforeClip);
  out.field(k[kGradNormAfterClip], s.gradNormAfterClip);
  out.field(k[kClipNormSeen], s.clipNormSeen);
  out.field(k[kLr], s.lr);
  out.field(k[kStepTimeMs], s.stepTimeMs);
  out.field(k[kCurrentBytes], static_cast<long long>(s.currentBytes));
  out.field(k[kPeakBytes], static_cast<long long>(s.peakBytes));
  out.field(k[kDiverged], s.diverged);
  out.field(k[kInstrumented], s.instrumented);
  if (s.instrumented || anyCounts(s.rounding)) {
    out.key(k[kRounding]);
    writeCounts(out, s.rounding);
  }
  if (!s.roundingPoints.empty()) {
    const auto& pk = kKebab.point;
    out.key(k[kRoundingPoints]).beginArray();
    for (const auto& p : s.roundingPoints) {
      out.beginObject();
      out.field(pk[kPointName], p.name);
      out.field(pk[kPointLayer], p.layer);
      out.field(pk[kPointBackward], p.backward);
      out.key(pk[kPointCounts]);
      writeCounts(out, p.counts);
      out.endObject();
    }
    out.endArray();
  }
  if (!s.tensors.empty()) {
    const auto& tk = kKebab.tensor;
    out.key(k[kTensors]).beginArray();
    for (const auto& t : s.tensors) {
      out.beginObject();
      out.field(tk[kTensorName], t.name);
      out.field(tk[kTensorIsParameter], t.isParameter);
      out.field(tk[kTensorNumel], static_cast<long long>(t.numel));
      out.key(tk[kTensorScaled]);
      writeHistogram(out, t.scaled);
      out.key(tk[kTensorUnscaled]);
      writeHistogram(out, t.unscaled);
      // Written only where the reader's default would differ, so a version 3 tensor keeps its bytes.
      const TensorRole role = tensorRole(t);
      if (role == TensorRole::Activation || role == TensorRole::Weight) out.field(tk[kTensorRole], tensorRoleKey(role));
      if (!t.roundingCost.empty()) {
        out.key(tk[kTensorRoundingCost]).beginObject();
        for (const FormatCostStats& c : t.roundingCost) {
          out.key(c.format).beginObject();
          out.field(kCostKeys[kCostElements], static_cast<long long>(c.elements));
          out.field(kCostKeys[kCostChanged], static_cast<long long>(c.changed));
          out.field(kCostKeys[kCostFlushed], static_cast<long long>(c.flushed));
          out.field(kCostKeys[kCostSubnormal], static_cast<long long>(c.subnormal));
          out.field(kCostKeys[kCostOverflowed], static_cast<long long>(c.overflowed));
          out.field(kCostKeys[kCostSqnrDb], c.sqnrDb);
          out.endObject();
        }
        out.endObject();
      }
      out.endObject();
    }
    out.endArray();
  }
  if (s.seq > 0) out.field(k[kSeq], static_cast<long long>(s.seq));
  if (s.wallTime != 0) out.field(k[kWallTime], s.wallTime);
  if (!s.nonFinite.empty()) {
    out.key(k[kNonFinite]).beginArray();
    for (const auto& name : s.nonFinite) out.value(name);
    out.endArray();
  }
  if (!s.foundInfPerDevice.empty()) {
    out.key(k[kFoundInfPerDevice]).beginObject();
    for (const auto& [device, found] : s.foundInfPerDevice) out.field(device, found);
    out.endObject();
  }
  if (!s.quantized.empty()) {
    out.key(k[kQuantized]).beginArray();
    for (const auto& q : s.quantized) writeQuantTensor(out, q);
    out.endArray();
  }
  if (s.folded.any()) {
    const FoldedEntries& fe = s.folded;
    out.key(k[kFolded]).beginObject();
    out.field(kFoldedKeys[kFoldedTensors], static_cast<long long>(fe.tensors));
    out.field(kFoldedKeys[kFoldedParameters], static_cast<long long>(fe.parameters));
    const TensorStats none;
    const TensorStats& sum = fe.parameterSum ? *fe.parameterSum : none;
    out.field(kFoldedKeys[kFoldedParameterNumel], static_cast<long long>(sum.numel));
    out.key(kFoldedKeys[kFoldedScaled]);
    writeHistogram(out, sum.scaled);
    out.key(kFoldedKeys[kFoldedUnscaled]);
    writeHistogram(out, sum.unscaled);
    out.field(kFoldedKeys[kFoldedRoundingPoints], static_cast<long long>(fe.roundingPoints));
    out.field(kFoldedKeys[kFoldedQuantized], static_cast<long long>(fe.quantized));
    out.field(kFoldedKeys[kFoldedNames], static_cast<long long>(fe.names));
    out.endObject();
  }
  out.endObject();
}

void writeStepRecordJson(JsonWriter& out, const StepRecord& record) {
  out.beginObject();
  out.field(kRecordKeys[0], static_cast<long long>(record.step));
  out.key(kRecordKeys[1]).beginArray();
  for (const auto& s : record.modes) writeModeStepJson(out, s);
  out.endArray();
  out.endObject();
}

std::optional<ModeStep> readModeStepJson(const JsonValue& value, const std::string& path, RecordError* error) {
  return orError(error, [&] { return readModeStep(value, Path(path), kKebab); });
}

std::optional<StepRecord> readStepRecordJson(const JsonValue& value, const std::string& path,
                                             RecordError* error) {
  return orError(error, [&] { return readStepRecord(value, Path(path)); });
}

std::string newRunId() {
  std::random_device device;
  std::uniform_int_distribution<unsigned> nibble(0, 15);
  std::string id(16, '0');
  for (char& c : id) c = "0123456789abcdef"[nibble(device)];
  return id;
}

std::string recordStreamHeader(const RunConfig& config, const std::string& runId) {
  std::string out;
  JsonWriter json(out);
  json.beginObject();
  json.field(kHeaderKeys[kHeaderFormat], kRecordStreamFormat);
  json.field(kHeaderKeys[kHeaderVersion], kRecordStreamVersion);
  json.field(kHeaderKeys[kHeaderApp], "AmpScope " + ampscopeVersion());
  StreamSource engine;
  engine.runId = runId;
  writeSourceFields(json, engine, false);
  json.key(kHeaderKeys[kHeaderConfig]);
  writeConfigJson(json, config);
  json.endObject();
  out += '\n';
  return out;
}

std::string probeStreamHeader(const StreamSource& source, const std::string& app) {
  std::string out;
  JsonWriter json(out);
  json.beginObject();
  json.field(kHeaderKeys[kHeaderFormat], kRecordStreamFormat);
  json.field(kHeaderKeys[kHeaderVersion], kRecordStreamVersion);
  json.field(kHeaderKeys[kHeaderApp], app);
  writeSourceFields(json, source, true);
  json.endObject();
  out += '\n';
  return out;
}

void writeStreamSourceJson(JsonWriter& out, const StreamSource& source) {
  out.beginObject();
  writeSourceFields(out, source, true);
  out.endObject();
}

std::optional<StreamSource> readStreamSourceJson(const JsonValue& value, const std::string& path,
                                                 RecordError* error) {
  return orError(error, [&] {
    const Path where(path);
    const ObjectFields f(value, where, kHeaderKeys.data() + kFirstSourceKey, kHeaderKeys.size() - kFirstSourceKey);
    return readSourceFields(f, kFirstSourceKey, true);
  });
}

std::optional<ModeStep> readRecordStreamStep(const JsonValue& value, int version, RecordError* error) {
  return orError(error, [&] { return readModeStep(value, Path(), version == 1 ? kSnakeV1 : kKebab); });
}

RecordLine readRecordStreamLine(std::string_view line, int version, const RecordBudget& budget) {
  const Spelling& sp = version == 1 ? kSnakeV1 : kKebab;
  // The lists a record may make long, parsed item by item; version 1 has only the first two.
  enum Streamed : std::size_t { kStreamTensors, kStreamPoints, kStreamQuantized, kStreamNames };
  const std::vector<std::string_view> members = {sp.step[kTensors], sp.step[kRoundingPoints],
                                                 sp.stepKeys > kQuantized ? sp.step[kQuantized] : std::string_view(),
                                                 sp.stepKeys > kNonFinite ? sp.step[kNonFinite] : std::string_view()};
  std::vector<TensorStats> tensors;
  std::vector<RoundingPointStats> points;
  std::vector<QuantTensorStats> quantized;
  std::vector<std::string> names;
  FoldedEntries folded;
  std::optional<TensorStats> parameterSum;        // the folded parameter gradients, summed
  std::optional<RoundingPointStats> foldedPoint;  // the "(folded)" point: the summed counts of the rest
  std::optional<FieldFailure> itemFailure;        // the first item that did not read
  const Path top;
  const JsonMemberItemSink sink = [&](std::size_t member, JsonValue&& item, std::size_t index, std::size_t) {
    if (itemFailure) return JsonSinkAnswer::Ignore;
    try {
      const Path list = top.child(members[member]);
      const Path at = list.item(static_cast<int64_t>(index));
      switch (member) {
        case kStreamTensors: {
          TensorStats t = readTensor(item, at, sp);
          if (tensors.size() < budget.tensors) {
            tensors.push_back(std::move(t));
            break;
          }
          ++folded.tensors;
          if (t.isParameter) {
            ++folded.parameters;
            if (!parameterSum) {
              parameterSum.emplace();
              parameterSum->name = kFoldedRoundingPoint;
            }
            parameterSum->numel += t.numel;
            parameterSum->scaled.add(t.scaled);
            parameterSum->unscaled.add(t.unscaled);
          }
          break;
        }
        case kStreamPoints: {
          RoundingPointStats p = readRoundingPoint(item, at, sp);
          // A "(folded)" point (a journal's copy of a folded record) is merged again, not counted again.
          const bool refold = p.name == kFoldedRoundingPoint;
          if (!refold && points.size() < budget.roundingPoints) {
            points.push_back(std::move(p));
            break;
          }
          if (!refold) ++folded.roundingPoints;
          if (!foldedPoint) {
            foldedPoint.emplace();
            foldedPoint->name = foldedPoint->layer = kFoldedRoundingPoint;
          }
          foldedPoint->counts.add(p.counts);
          break;
        }
        case kStreamQuantized: {
          QuantTensorStats q = readQuantTensor(item, at, sp);
          if (quantized.size() < budget.quantized) {
            quantized.push_back(std::move(q));
          } else {
            ++folded.quantized;
          }
          break;
        }
        case kStreamNames: {
          std::string name = data::readString(item, at);
          if (names.size() < budget.names) {
            names.push_back(std::move(name));
          } else {
            ++folded.names;
          }
          break;
        }
        default: break;
      }
    } catch (const FieldFailure& failure) {
      itemFailure = failure;
      return JsonSinkAnswer::Ignore;
    }
    return JsonSinkAnswer::Next;
  };
  RecordLine out;
  const auto value = parseJsonStreamingMembers(line, &out.parseError, members, sink);
  if (!value) {
    out.kind = RecordLine::Kind::NotJson;
    return out;
  }
  out.object = value->isObject();
  if (out.object && value->find("format")) {
    out.kind = RecordLine::Kind::Header;
    return out;
  }
  out.kind = RecordLine::Kind::Refused;
  auto step = orError(&out.error, [&] { return readModeStep(*value, top, sp); });
  if (!step) return out;
  if (itemFailure) {
    out.error = RecordError{itemFailure->path, itemFailure->message};
    return out;
  }
  if (foldedPoint) points.push_back(std::move(*foldedPoint));
  if (parameterSum) folded.parameterSum = std::make_shared<const TensorStats>(std::move(*parameterSum));
  step->tensors = std::move(tensors);
  step->roundingPoints = std::move(points);
  step->quantized = std::move(quantized);
  step->nonFinite = std::move(names);
  step->folded.add(folded);
  out.kind = RecordLine::Kind::Step;
  out.step = std::move(step);
  return out;
}

std::optional<RecordStream> readRecordStreamHeader(std::string_view line, RecordError* error) {
  return orError(error, [&] {
    JsonParseError parseError;
    const auto value = parseJson(line, &parseError);
    if (!value) {
      throw FieldFailure{"column " + std::to_string(parseError.column), "not JSON (" + parseError.message + ")"};
    }
    if (!value->isObject() || !value->find(kHeaderKeys[kHeaderFormat])) {
      throw FieldFailure{{}, "not a record stream header (no \"format\")"};
    }
    RecordStream stream;
    readHeader(*value, stream);
    return stream;
  });
}

void appendRecordStreamLine(std::string& out, const ModeStep& step) {
  JsonWriter json(out);
  writeModeStepJson(json, step);
  out += '\n';
}

std::optional<RecordStream> readRecordStream(std::string_view text, RecordError* error) {
  return orError(error, [&] {
    RecordStream stream;
    bool first = true;
    forEachLine(text, [&](std::size_t lineNumber, std::string_view line) {
      const std::string where = lineName(lineNumber);
      JsonParseError parseError;
      const auto value = parseJson(line, &parseError);
      if (!value) {
        throw FieldFailure{where + ", column " + std::to_string(parseError.column),
                           "not JSON (" + parseError.message + "); the file may be damaged or cut short"};
      }
      const bool isFirst = first;
      first = false;
      // "line 7: loss": the line, then the field within the line's object.
      try {
        const JsonValue* format = isFirst && value->isObject() ? value->find(kHeaderKeys[kHeaderFormat]) : nullptr;
        if (isFirst && !format) stream.version = 1;  // AmpScope 0.1.0 wrote records from the first line on
        if (format) {
          readHeader(*value, stream);
        } else {
          stream.steps.push_back(readModeStep(*value, Path(), stream.version == 1 ? kSnakeV1 : kKebab));
        }
      } catch (const FieldFailure& failure) {
        throw FieldFailure{failure.path.empty() ? where : where + ": " + failure.path, failure.message};
      }
    });
    if (first) throw FieldFailure{{}, "the file is empty"};
    return stream;
  });
}

// ---- CSV ----

namespace {

using CsvWrite = void (*)(std::string&, const ModeStep&);
using CsvRead = const char* (*)(std::string_view, ModeStep&);  // nullptr, or why the text does not read

template <double ModeStep::*Member>
void writeReal(std::string& out, const ModeStep& s) {
  appendNumberText(out, s.*Member);
}
template <double ModeStep::*Member>
const char* readReal(std::string_view text, ModeStep& s) {
  const auto value = parseNumberText(text);
  if (!value) return "expected a number, nan, inf or -inf";
  s.*Member = *value;
  return nullptr;
}

const char* parseInt(std::string_view text, int64_t& value) {
  const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || result.ec != std::errc() || result.ptr != text.data() + text.size()) {
    return "expected an integer";
  }
  return nullptr;
}

template <int64_t ModeStep::*Member>
void writeInteger(std::string& out, const ModeStep& s) {
  out += std::to_string(s.*Member);
}
template <int64_t ModeStep::*Member>
const char* readInteger(std::string_view text, ModeStep& s) {
  return parseInt(text, s.*Member);
}

template <int64_t RoundingCounts::*Member>
void writeCount(std::string& out, const ModeStep& s) {
  out += std::to_string(s.rounding.*Member);
}
template <int64_t RoundingCounts::*Member>
const char* readCountColumn(std::string_view text, ModeStep& s) {
  if (const char* why = parseInt(text, s.rounding.*Member)) return why;
  return s.rounding.*Member < 0 ? "must not be negative" : nullptr;
}

template <bool ModeStep::*Member>
void writeFlag(std::string& out, const ModeStep& s) {
  out += s.*Member ? '1' : '0';
}
template <bool ModeStep::*Member>
const char* readFlag(std::string_view text, ModeStep& s) {
  if (text != "0" && text != "1") return "expected 0 or 1";
  s.*Member = text == "1";
  return nullptr;
}

void writeModeColumn(std::string& out, const ModeStep& s) { out += modeName(s.mode); }
const char* readModeColumn(std::string_view text, ModeStep& s) {
  const auto mode = parseMode(std::string(text));
  if (!mode) return "unknown precision mode";
  s.mode = *mode;
  return nullptr;
}

struct CsvColumn {
  std::string_view name;
  CsvWrite write;
  CsvRead read;
};

// The one column table. Mode names and numbers never contain a comma or a quote, so no field is quoted.
const std::array<CsvColumn, 20> kCsvColumns = {{
    {"step", writeInteger<&ModeStep::step>, readInteger<&ModeStep::step>},
    {"mode", writeModeColumn, readModeColumn},
    {"loss", writeReal<&ModeStep::loss>, readReal<&ModeStep::loss>},
    {"loss_scale", writeReal<&ModeStep::lossScale>, readReal<&ModeStep::lossScale>},
    {"skipped", writeFlag<&ModeStep::skipped>, readFlag<&ModeStep::skipped>},
    {"found_inf", writeFlag<&ModeStep::foundInf>, readFlag<&ModeStep::foundInf>},
    {"grad_norm_before_clip", writeReal<&ModeStep::gradNormBeforeClip>, readReal<&ModeStep::gradNormBeforeClip>},
    {"grad_norm_after_clip", writeReal<&ModeStep::gradNormAfterClip>, readReal<&ModeStep::gradNormAfterClip>},
    {"clip_norm_seen", writeReal<&ModeStep::clipNormSeen>, readReal<&ModeStep::clipNormSeen>},
    {"lr", writeReal<&ModeStep::lr>, readReal<&ModeStep::lr>},
    {"step_time_ms", writeReal<&ModeStep::stepTimeMs>, readReal<&ModeStep::stepTimeMs>},
    {"current_bytes", writeInteger<&ModeStep::currentBytes>, readInteger<&ModeStep::currentBytes>},
    {"peak_bytes", writeInteger<&ModeStep::peakBytes>, readInteger<&ModeStep::peakBytes>},
    {"diverged", writeFlag<&ModeStep::diverged>, readFlag<&ModeStep::diverged>},
    {"instrumented", writeFlag<&ModeStep::instrumented>, readFlag<&ModeStep::instrumented>},
    {"rounding_elements", writeCount<&RoundingCounts::elements>, readCountColumn<&RoundingCounts::elements>},
    {"flushed_to_zero", writeCount<&RoundingCounts::flushedToZero>, readCountColumn<&RoundingCounts::flushedToZero>},
    {"subnormal", writeCount<&RoundingCounts::subnormal>, readCountColumn<&RoundingCounts::subnormal>},
    {"overflowed", writeCount<&RoundingCounts::overflowed>, readCountColumn<&RoundingCounts::overflowed>},
    {"nan", writeCount<&RoundingCounts::nan>, readCountColumn<&RoundingCounts::nan>},
}};

std::vector<std::string_view> splitCommas(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = line.find(',', start);
    fields.push_back(line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    if (comma == std::string_view::npos) return fields;
    start = comma + 1;
  }
}

}  // namespace

const std::vector<std::string_view>& csvColumns() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> list;
    for (const auto& column : kCsvColumns) list.push_back(column.name);
    return list;
  }();
  return names;
}

std::string csvHeader() {
  std::string out;
  for (const auto& column : kCsvColumns) {
    if (!out.empty()) out += ',';
    out += column.name;
  }
  out += '\n';
  return out;
}

void appendCsvRow(std::string& out, const ModeStep& step) {
  for (std::size_t i = 0; i < kCsvColumns.size(); ++i) {
    if (i > 0) out += ',';
    kCsvColumns[i].write(out, step);
  }
  out += '\n';
}

std::string recordsToCsv(const std::vector<StepRecord>& records) {
  std::string out = csvHeader();
  for (const auto& record : records) {
    for (const auto& step : record.modes) appendCsvRow(out, step);
  }
  return out;
}

std::optional<std::vector<ModeStep>> readCsv(std::string_view text, RecordError* error) {
  return orError(error, [&] {
    std::vector<ModeStep> steps;
    std::vector<std::size_t> columnOf;  // file column -> table column
    bool haveHeader = false;
    forEachLine(text, [&](std::size_t lineNumber, std::string_view line) {
      const std::string where = lineName(lineNumber);
      const auto fields = splitCommas(line);
      if (!haveHeader) {
        haveHeader = true;
        std::vector<bool> seen(kCsvColumns.size(), false);
        for (const auto name : fields) {
          std::size_t i = 0;
          while (i < kCsvColumns.size() && kCsvColumns[i].name != name) ++i;
          if (i == kCsvColumns.size()) throw FieldFailure{where, "unknown column \"" + std::string(name) + "\""};
          if (seen[i]) throw FieldFailure{where, "column \"" + std::string(name) + "\" appears twice"};
          seen[i] = true;
          columnOf.push_back(i);
        }
        for (std::size_t i = 0; i < kCsvColumns.size(); ++i) {
          if (!seen[i]) throw FieldFailure{where, "missing column \"" + std::string(kCsvColumns[i].name) + "\""};
        }
        return;
      }
      if (fields.size() != columnOf.size()) {
        throw FieldFailure{where, "expected " + std::to_string(columnOf.size()) + " fields, found " +
                                      std::to_string(fields.size())};
      }
      ModeStep step;
      for (std::size_t f = 0; f < fields.size(); ++f) {
        const CsvColumn& column = kCsvColumns[columnOf[f]];
        if (const char* why = column.read(fields[f], step)) {
          throw FieldFailure{where + ": " + std::string(column.name),
                             std::string(why) + " (found \"" + std::string(fields[f].substr(0, 40)) + "\")"};
        }
      }
      steps.push_back(std::move(step));
    });
    if (!haveHeader) throw FieldFailure{{}, "the file is empty"};
    return steps;
  });
}

}  // namespace ampscope
