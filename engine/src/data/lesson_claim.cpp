#include "ampscope/engine/lesson_claim.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include "ampscope/engine/number_text.h"
#include "data/json_reading.h"

namespace ampscope {

namespace {

using data::failAt;
using data::ObjectFields;
using data::Path;

constexpr std::array<std::pair<ClaimMeasure, const char*>, 20> kMeasures = {{
    {ClaimMeasure::Steps, "steps"},
    {ClaimMeasure::Loss, "loss"},
    {ClaimMeasure::LossGap, "loss-gap"},
    {ClaimMeasure::LossDrop, "loss-drop"},
    {ClaimMeasure::DropRatio, "drop-ratio"},
    {ClaimMeasure::LossScale, "loss-scale"},
    {ClaimMeasure::SkippedSteps, "skipped-steps"},
    {ClaimMeasure::ScaleRegrowths, "scale-regrowths"},
    {ClaimMeasure::ClipNormSeen, "clip-norm-seen"},
    {ClaimMeasure::GradNormBeforeClip, "grad-norm-before-clip"},
    {ClaimMeasure::GradNormAfterClip, "grad-norm-after-clip"},
    {ClaimMeasure::ClipNormRatio, "clip-norm-ratio"},
    {ClaimMeasure::PeakBytes, "peak-bytes"},
    {ClaimMeasure::PeakRatio, "peak-ratio"},
    {ClaimMeasure::FlushedToZero, "flushed-to-zero"},
    {ClaimMeasure::ZeroGradientShare, "zero-gradient-share"},
    {ClaimMeasure::SaturatedShare, "saturated-share"},
    {ClaimMeasure::FlushedShare, "flushed-share"},
    {ClaimMeasure::ScaleLog2, "scale-log2"},
    {ClaimMeasure::BlockScaleSpan, "block-scale-span"},
}};

// A window longer than this would make the evaluator's memory the run's, which it must not be.
constexpr int64_t kMaxWindow = 10000;

std::string measureList() {
  std::string out;
  for (const auto& [measure, key] : kMeasures) {
    if (!out.empty()) out += ", ";
    out += key;
  }
  return out;
}

int64_t readStep(const JsonValue& v, const Path& path) {
  const auto value = v.integer();
  if (!value || *value < 1) failAt(path, "must be a whole step number >= 1");
  return *value;
}

double readBound(const JsonValue& v, const Path& path) {
  if (!v.isNumber() || !std::isfinite(v.number())) failAt(path, "must be a finite number");
  return v.number();
}

// The keys of an atom and of an all-of; the outermost claim adds by-step and variants to either.
constexpr std::string_view kAtomKeys[] = {"measure", "mode",    "over",  "tensor", "window",  "at-least",
                                          "at-most", "above",   "below", "at-step", "steps",  "by-step",
                                          "variants"};
enum AtomKey { kMeasure, kMode, kOver, kTensor, kWindow, kAtLeast, kAtMost, kAbove, kBelow, kAtStep, kSteps,
               kByStep, kVariants, kAtomKeyCount };
constexpr std::string_view kAllOfKeys[] = {"all-of", "by-step", "variants"};

void readOuterKeys(const ObjectFields& fields, std::size_t byStep, std::size_t variants, bool outermost,
                   ClaimSpec& spec) {
  for (std::size_t key : {byStep, variants}) {
    if (fields.get(key) && !outermost) failAt(fields.at(key), "only the outermost claim may have this key");
  }
  if (const JsonValue* v = fields.get(byStep)) spec.byStep = readStep(*v, fields.at(byStep));
  if (const JsonValue* v = fields.get(variants)) {
    const Path path = fields.at(variants);
    const auto& items = data::readArray(*v, path);
    if (items.empty()) failAt(path, "name at least one variant, or leave the key out");
    for (std::size_t i = 0; i < items.size(); ++i) {
      const std::string& id = data::readString(items[i], path.item(static_cast<int64_t>(i)));
      if (std::find(spec.variants.begin(), spec.variants.end(), id) != spec.variants.end())
        failAt(path.item(static_cast<int64_t>(i)), "'" + id + "' is listed twice");
      spec.variants.push_back(id);
    }
  }
}

ClaimSpec readClaim(const JsonValue& value, const Path& path, bool outermost);

ClaimSpec readAllOf(const JsonValue& value, const Path& path, bool outermost) {
  const ObjectFields fields(value, path, kAllOfKeys, std::size(kAllOfKeys));
  ClaimSpec spec;
  const Path listPath = fields.at(0);
  const auto& items = data::readArray(fields.required(0), listPath);
  if (items.size() < 2) failAt(listPath, "expected at least two claims (one needs no all-of)");
  for (std::size_t i = 0; i < items.size(); ++i)
    spec.allOf.push_back(readClaim(items[i], listPath.item(static_cast<int64_t>(i)), false));
  readOuterKeys(fields, 1, 2, outermost, spec);
  return spec;
}

ClaimSpec readAtom(const JsonValue& value, const Path& path, bool outermost) {
  const ObjectFields fields(value, path, kAtomKeys, kAtomKeyCount);
  ClaimSpec spec;
  const std::string& measureKey = data::readString(fields.required(kMeasure), fields.at(kMeasure));
  const auto measure = parseClaimMeasure(measureKey);
  if (!measure) failAt(fields.at(kMeasure), "unknown measure '" + measureKey + "' (expected one of: " + measureList() + ")");
  spec.measure = *measure;

  const std::string& modeKey = data::readString(fields.required(kMode), fields.at(kMode));
  if (modeKey != "every") spec.mode = data::readMode(fields.required(kMode), fields.at(kMode));

  if (claimMeasureNeedsOver(spec.measure)) {
    spec.over = data::readMode(fields.required(kOver), fields.at(kOver));
    if (!spec.mode) failAt(fields.at(kMode), "a comparison needs one mode, not every mode");
    if (*spec.over == *spec.mode) failAt(fields.at(kOver), "must name another mode than \"mode\"");
  } else if (fields.get(kOver)) {
    failAt(fields.at(kOver), std::string("measure '") + measureKey + "' compares no two modes");
  }

  if (claimMeasureNeedsTensor(spec.measure)) {
    spec.tensor = data::readString(fields.required(kTensor), fields.at(kTensor));
    if (spec.tensor.empty()) failAt(fields.at(kTensor), "expected a tensor name, \"forward-operands\" or \"gradients\"");
    if (spec.measure == ClaimMeasure::ScaleLog2 &&
        (spec.tensor == kClaimTensorsForward || spec.tensor == kClaimTensorsBackward))
      failAt(fields.at(kTensor), "scale-log2 reads one tensor's scale: name the tensor");
  } else if (fields.get(kTensor)) {
    failAt(fields.at(kTensor), std::string("measure '") + measureKey + "' reads no quantised tensor");
  }

  if (const JsonValue* v = fields.get(kWindow)) {
    if (!claimMeasureHasWindow(spec.measure))
      failAt(fields.at(kWindow), std::string("measure '") + measureKey + "' reads single steps, not a window");
    const auto window = v->integer();
    if (!window || *window < 1 || *window > kMaxWindow)
      failAt(fields.at(kWindow), "must be a whole number of steps in [1, " + std::to_string(kMaxWindow) + "]");
    spec.window = static_cast<int>(*window);
  }

  const std::pair<AtomKey, std::optional<double>*> bounds[] = {{kAtLeast, &spec.bounds.atLeast},
                                                               {kAtMost, &spec.bounds.atMost},
                                                               {kAbove, &spec.bounds.above},
                                                               {kBelow, &spec.bounds.below}};
  for (const auto& [key, slot] : bounds)
    if (const JsonValue* v = fields.get(key)) *slot = readBound(*v, fields.at(key));
  const ClaimBounds& b = spec.bounds;
  if (!b.atLeast && !b.atMost && !b.above && !b.below)
    failAt(path, "give a bound: at-least, at-most, above or below");
  if (b.atLeast && b.above) failAt(fields.at(kAbove), "give at-least or above, not both");
  if (b.atMost && b.below) failAt(fields.at(kBelow), "give at-most or below, not both");
  const std::optional<double> low = b.atLeast ? b.atLeast : b.above;
  const std::optional<double> high = b.atMost ? b.atMost : b.below;
  if (low && high && (*low > *high || (*low == *high && (b.above || b.below))))
    failAt(fields.at(b.atMost ? kAtMost : kBelow), "no value lies within these bounds (lower " + numberText(*low) +
                                                       ", upper " + numberText(*high) + ")");

  if (fields.get(kAtStep) && fields.get(kSteps)) failAt(fields.at(kSteps), "give at-step or steps, not both");
  if (const JsonValue* v = fields.get(kAtStep)) spec.fromStep = spec.toStep = readStep(*v, fields.at(kAtStep));
  if (const JsonValue* v = fields.get(kSteps)) {
    const Path stepsPath = fields.at(kSteps);
    const auto& items = data::readArray(*v, stepsPath);
    if (items.size() != 2) failAt(stepsPath, "expected [first, last]");
    spec.fromStep = readStep(items[0], stepsPath.item(0));
    spec.toStep = readStep(items[1], stepsPath.item(1));
    if (spec.toStep < spec.fromStep) failAt(stepsPath.item(1), "must not be before the first step");
  }
  readOuterKeys(fields, kByStep, kVariants, outermost, spec);
  return spec;
}

ClaimSpec readClaim(const JsonValue& value, const Path& path, bool outermost) {
  if (!value.isObject()) failAt(path, std::string("expected an object, found ") + JsonValue::typeName(value.type()));
  if (value.find("all-of")) return readAllOf(value, path, outermost);
  return readAtom(value, path, outermost);
}

void collectAtoms(const ClaimSpec& spec, std::vector<const ClaimSpec*>& out) {
  if (!spec.isAllOf()) {
    out.push_back(&spec);
    return;
  }
  for (const ClaimSpec& child : spec.allOf) collectAtoms(child, out);
}

}  // namespace

const char* claimMeasureKey(ClaimMeasure measure) {
  for (const auto& [m, key] : kMeasures)
    if (m == measure) return key;
  return "unknown";
}

std::optional<ClaimMeasure> parseClaimMeasure(const std::string& key) {
  for (const auto& [m, name] : kMeasures)
    if (key == name) return m;
  return std::nullopt;
}

bool claimMeasureIsShare(ClaimMeasure measure) {
  switch (measure) {
    case ClaimMeasure::LossGap:
    case ClaimMeasure::DropRatio:
    case ClaimMeasure::ZeroGradientShare:
    case ClaimMeasure::SaturatedShare:
    case ClaimMeasure::FlushedShare: return true;
    default: return false;
  }
}

bool claimMeasureNeedsOver(ClaimMeasure measure) {
  return measure == ClaimMeasure::LossGap || measure == ClaimMeasure::DropRatio || measure == ClaimMeasure::PeakRatio;
}

bool claimMeasureNeedsTensor(ClaimMeasure measure) {
  return measure == ClaimMeasure::SaturatedShare || measure == ClaimMeasure::FlushedShare ||
         measure == ClaimMeasure::ScaleLog2 || measure == ClaimMeasure::BlockScaleSpan;
}

bool claimMeasureHasWindow(ClaimMeasure measure) {
  return measure == ClaimMeasure::Loss || measure == ClaimMeasure::LossGap || measure == ClaimMeasure::LossDrop ||
         measure == ClaimMeasure::DropRatio;
}

bool ClaimBounds::admits(double value) const {
  if (std::isnan(value)) return false;
  if (atLeast && !(value >= *atLeast)) return false;
  if (atMost && !(value <= *atMost)) return false;
  if (above && !(value > *above)) return false;
  if (below && !(value < *below)) return false;
  return true;
}

std::optional<ClaimSpec> parseLessonClaim(const JsonValue& value, const std::string& path, ClaimParseError* error) {
  try {
    return readClaim(value, Path(path), true);
  } catch (const data::FieldFailure& failure) {
    if (error) *error = ClaimParseError{failure.path, failure.message};
    return std::nullopt;
  }
}

std::vector<PrecisionMode> claimModes(const ClaimSpec& spec) {
  std::vector<PrecisionMode> modes;
  for (const ClaimSpec* atom : claimAtoms(spec)) {
    for (const auto& mode : {atom->mode, atom->over})
      if (mode && std::find(modes.begin(), modes.end(), *mode) == modes.end()) modes.push_back(*mode);
  }
  return modes;
}

std::vector<const ClaimSpec*> claimAtoms(const ClaimSpec& spec) {
  std::vector<const ClaimSpec*> atoms;
  collectAtoms(spec, atoms);
  return atoms;
}

}  // namespace ampscope
