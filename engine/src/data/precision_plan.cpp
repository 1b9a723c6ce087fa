// The precision plan codec and the advice's JSON (precision_plan.h).
#include "ampscope/engine/precision_plan.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <set>

#include "ampscope/engine/file_replace.h"
#include "ampscope/engine/version.h"
#include "json_reading.h"

namespace ampscope {

namespace {

constexpr std::string_view kPlanKeys[] = {"format", "version", "app", "source", "target", "thresholds", "layers"};
constexpr std::string_view kSourceKeys[] = {"file",      "kind",     "run",      "run-id",
                                            "mode",      "first-step", "last-step", "instrumented-steps"};
constexpr std::string_view kThresholdKeys[] = {"min-steps",          "unsafe-flush-share",    "caution-flush-share",
                                               "caution-subnormal-share", "unsafe-overflow-share", "sqnr-margin-db"};
constexpr std::string_view kLayerKeys[] = {"layer", "mode", "kept-higher", "reason"};

void writeSource(JsonWriter& w, const RunIdentity& r) {
  w.beginObject()
      .field("file", r.file)
      .field("kind", r.kind)
      .field("run", r.run)
      .field("run-id", r.runId)
      .field("mode", r.mode)
      .field("first-step", static_cast<long long>(r.firstStep))
      .field("last-step", static_cast<long long>(r.lastStep))
      .field("instrumented-steps", static_cast<long long>(r.instrumentedSteps))
      .endObject();
}

void writeThresholds(JsonWriter& w, const AdviceThresholds& t) {
  w.beginObject()
      .field("min-steps", static_cast<long long>(t.minSteps))
      .field("unsafe-flush-share", t.unsafeFlushShare)
      .field("caution-flush-share", t.cautionFlushShare)
      .field("caution-subnormal-share", t.cautionSubnormalShare)
      .field("unsafe-overflow-share", t.unsafeOverflowShare)
      .field("sqnr-margin-db", t.sqnrMarginDb)
      .endObject();
}

void writeLayers(JsonWriter& w, const std::vector<LayerPlan>& layers) {
  w.beginArray();
  for (const auto& l : layers) {
    w.beginObject()
        .field("layer", l.layer)
        .field("mode", l.mode)
        .field("kept-higher", l.keptHigher)
        .field("reason", l.reason)
        .endObject();
  }
  w.endArray();
}

double readShare(const data::ObjectFields& f, std::size_t i) {
  const double value = data::readDouble(f.required(i), f.at(i));
  if (!(value >= 0 && value <= 1)) data::failAt(f.at(i), "expected a share from 0 to 1");
  return value;
}

}  // namespace

PrecisionPlan planOf(const PrecisionAdvice& advice) {
  return PrecisionPlan{advice.run, advice.target, advice.thresholds, advice.plan};
}

std::string encodePrecisionPlan(const PrecisionPlan& plan) {
  std::string text;
  JsonWriter w(text, JsonWriter::Layout::Pretty);
  w.beginObject()
      .field("format", kPrecisionPlanFormat)
      .field("version", kPrecisionPlanVersion)
      .field("app", "AmpScope " + ampscopeVersion());
  w.key("source");
  writeSource(w, plan.source);
  w.field("target", plan.target);
  w.key("thresholds");
  writeThresholds(w, plan.thresholds);
  w.key("layers");
  writeLayers(w, plan.layers);
  w.endObject();
  text += "\n";
  return text;
}

bool writePrecisionPlanFile(const std::string& path, const PrecisionPlan& plan) {
  return replaceFileWithText(path, encodePrecisionPlan(plan));
}

std::optional<PrecisionPlan> decodePrecisionPlan(std::string_view json, std::string* error) {
  JsonParseError parseError;
  const auto root = parseJson(json, &parseError);
  if (!root) {
    if (error) *error = parseError.where() + ": not JSON (" + parseError.message + ")";
    return std::nullopt;
  }
  try {
    const data::Path top;
    if (!root->isObject()) data::failAt(top, "expected an object");
    const data::ObjectFields f(*root, top, kPlanKeys, std::size(kPlanKeys));
    if (data::readString(f.required(0), f.at(0)) != kPrecisionPlanFormat)
      data::failAt(f.at(0), "expected \"" + std::string(kPrecisionPlanFormat) + "\"");
    const int64_t version = data::readInt(f.required(1), f.at(1));
    if (version < 1) data::failAt(f.at(1), "expected a version >= 1");
    if (version > kPrecisionPlanVersion) {
      data::failAt(f.at(1), "version " + std::to_string(version) + " is newer than this AmpScope reads (" +
                                std::to_string(kPrecisionPlanVersion) + ")");
    }
    data::readString(f.required(2), f.at(2));
    PrecisionPlan plan;

    const data::Path sourcePath = f.at(3);
    const data::ObjectFields s(f.required(3), sourcePath, kSourceKeys, std::size(kSourceKeys));
    RunIdentity& r = plan.source;
    r.file = data::readString(s.required(0), s.at(0));
    r.kind = data::readString(s.required(1), s.at(1));
    if (r.kind != "probe-stream" && r.kind != "engine-stream" && r.kind != "session" && r.kind != "plan-search")
      data::failAt(s.at(1), "expected \"probe-stream\", \"engine-stream\", \"session\" or \"plan-search\"");
    r.run = data::readString(s.required(2), s.at(2));
    r.runId = data::readString(s.required(3), s.at(3));
    r.mode = data::readString(s.required(4), s.at(4));
    if (!parseMode(r.mode)) data::failAt(s.at(4), "unknown mode '" + r.mode + "'");
    r.firstStep = data::readCount(s.required(5), s.at(5));
    r.lastStep = data::readCount(s.required(6), s.at(6));
    r.instrumentedSteps = data::readCount(s.required(7), s.at(7));
    if (r.lastStep < r.firstStep) data::failAt(s.at(6), "is below first-step");

    plan.target = data::readString(f.required(4), f.at(4));
    if (plan.target != "auto" && !parseMode(plan.target)) data::failAt(f.at(4), "unknown mode '" + plan.target + "'");

    const data::Path thresholdsPath = f.at(5);
    const data::ObjectFields t(f.required(5), thresholdsPath, kThresholdKeys, std::size(kThresholdKeys));
    AdviceThresholds& th = plan.thresholds;
    th.minSteps = data::readCount(t.required(0), t.at(0));
    if (th.minSteps < 1) data::failAt(t.at(0), "expected a count >= 1");
    th.unsafeFlushShare = readShare(t, 1);
    th.cautionFlushShare = readShare(t, 2);
    th.cautionSubnormalShare = readShare(t, 3);
    th.unsafeOverflowShare = readShare(t, 4);
    th.sqnrMarginDb = data::readDouble(t.required(5), t.at(5));
    if (!std::isfinite(th.sqnrMarginDb) || th.sqnrMarginDb < 0) data::failAt(t.at(5), "expected a finite number >= 0");

    const data::Path layersPath = f.at(6);
    const auto& items = data::readArray(f.required(6), layersPath);
    std::set<std::string> seen;
    for (size_t i = 0; i < items.size(); ++i) {
      const data::Path itemPath = layersPath.item(static_cast<int64_t>(i));
      const data::ObjectFields l(items[i], itemPath, kLayerKeys, std::size(kLayerKeys));
      LayerPlan layer;
      layer.layer = data::readString(l.required(0), l.at(0));
      if (layer.layer.empty()) data::failAt(l.at(0), "must not be empty");
      if (!seen.insert(layer.layer).second) data::failAt(l.at(0), "layer '" + layer.layer + "' is named twice");
      layer.mode = data::readString(l.required(1), l.at(1));
      if (!parseMode(layer.mode)) data::failAt(l.at(1), "unknown mode '" + layer.mode + "'");
      layer.keptHigher = data::readBool(l.required(2), l.at(2));
      layer.reason = data::readString(l.required(3), l.at(3));
      plan.layers.push_back(std::move(layer));
    }
    return plan;
  } catch (const data::FieldFailure& failure) {
    if (error) *error = failure.path.empty() ? failure.message : failure.path + ": " + failure.message;
    return std::nullopt;
  }
}

void writeAdviceJson(JsonWriter& w, const PrecisionAdvice& a) {
  w.beginObject().field("format", "ampscope-advice").field("version", 1);
  w.key("source");
  writeSource(w, a.run);
  w.key("thresholds");
  writeThresholds(w, a.thresholds);
  w.field("too-short", a.tooShort).field("most-steps", static_cast<long long>(a.mostSteps));
  w.key("evidence").beginArray();
  for (const auto& e : a.evidence) {
    w.beginObject()
        .field("layer", e.layer)
        .field("role", e.role)
        .field("format", e.column)
        .field("verdict", verdictKey(e.verdict))
        .field("steps", static_cast<long long>(e.steps))
        .field("first-step", static_cast<long long>(e.firstStep))
        .field("last-step", static_cast<long long>(e.lastStep))
        .field("worst-flush-share", e.worstFlushShare)
        .field("worst-flush-step", static_cast<long long>(e.worstFlushStep))
        .field("worst-overflow-share", e.worstOverflowShare)
        .field("worst-overflow-step", static_cast<long long>(e.worstOverflowStep))
        .field("worst-subnormal-share", e.worstSubnormalShare)
        .field("worst-subnormal-step", static_cast<long long>(e.worstSubnormalStep));
    if (e.hasSqnr) w.field("min-sqnr-db", e.minSqnrDb).field("min-sqnr-step", static_cast<long long>(e.minSqnrStep));
    w.field("unsafe-steps", static_cast<long long>(e.unsafeSteps))
        .field("first-unsafe-step", static_cast<long long>(e.firstUnsafeStep))
        .field("reason", e.reason)
        .endObject();
  }
  w.endArray();
  const ScalerAdvice& s = a.scaler;
  w.key("grad-scaler").beginObject().field("steps", static_cast<long long>(s.steps)).field("needed", s.needed);
  if (s.steps > 0) {
    w.field("needed-log2", s.neededLog2)
        .field("needed-step", static_cast<long long>(s.neededStep))
        .field("needed-for-share-log2", s.neededForShareLog2)
        .field("needed-for-share-step", static_cast<long long>(s.neededForShareStep))
        .field("ceiling-log2", s.ceilingLog2)
        .field("ceiling-step", static_cast<long long>(s.ceilingStep))
        .field("no-scale-fits-steps", static_cast<long long>(s.noScaleFitsSteps))
        .field("first-no-scale-fits-step", static_cast<long long>(s.firstNoScaleFitsStep));
    w.key("covers").beginArray();
    for (const auto& c : s.covers) {
      w.beginObject()
          .field("scale", c.label)
          .field("steps", static_cast<long long>(c.steps))
          .field("uncovered-steps", static_cast<long long>(c.uncoveredSteps))
          .field("first-uncovered-step", static_cast<long long>(c.firstUncoveredStep))
          .field("last-uncovered-step", static_cast<long long>(c.lastUncoveredStep))
          .field("covered-from-step", static_cast<long long>(c.coveredFromStep))
          .field("over-share-steps", static_cast<long long>(c.overShareSteps))
          .field("first-over-share-step", static_cast<long long>(c.firstOverShareStep))
          .field("share-covered-from-step", static_cast<long long>(c.shareCoveredFromStep))
          .endObject();
    }
    w.endArray();
  }
  w.endObject();
  w.key("plan");
  if (a.tooShort) {
    w.null();
  } else {
    w.beginObject().field("target", a.target).key("layers");
    writeLayers(w, a.plan);
    w.endObject();
  }
  w.endObject();
}

std::optional<PlanConfig> planConfigOf(const PrecisionPlan& plan, ModelKind model,
                                       std::vector<std::string>* notes, std::string* error) {
  const std::vector<std::string> known = planLayerNames(model);
  PlanConfig config;
  config.defaultMode = PrecisionMode::FP32;
  if (plan.target != "auto") {
    const auto target = parseMode(plan.target);
    bool allowed = false;
    for (PrecisionMode mode : planLayerModes()) allowed = allowed || (target && *target == mode);
    if (!allowed) {
      if (error) *error = "target: a plan's default takes a mode of the plan lane (got '" + plan.target + "')";
      return std::nullopt;
    }
    config.defaultMode = *target;
  }
  std::string left;
  for (const LayerPlan& layer : plan.layers) {
    if (std::find(known.begin(), known.end(), layer.layer) == known.end()) {
      left += (left.empty() ? "" : ", ") + layer.layer;
      continue;
    }
    std::string why;
    auto parsed = parsePlanLayers(layer.layer + "=" + layer.mode, &why);
    if (!parsed) {
      if (error) *error = "layers: " + layer.layer + ": " + why;
      return std::nullopt;
    }
    config.layers.push_back(parsed->front());
  }
  std::string knownText;
  for (const auto& name : known) knownText += (knownText.empty() ? "" : ", ") + name;
  if (config.layers.empty() && !plan.layers.empty()) {
    if (error) *error = "none of the plan's layers (" + left + ") is a layer of " + modelName(model) + ": " + knownText;
    return std::nullopt;
  }
  if (!left.empty() && notes) {
    notes->push_back("left out, not GEMM layers of " + modelName(model) + " (their ops run as plan.default, " +
                     modeName(config.defaultMode) + "): " + left);
  }
  return config;
}

std::optional<PlanConfig> readPlanConfigFile(const std::string& path, ModelKind model,
                                             std::vector<std::string>* notes, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  std::string text;
  constexpr std::size_t kLimit = std::size_t{16} << 20;  // a plan is a few KiB; refuse what is not one
  if (in) {
    std::vector<char> buffer(64 * 1024);
    while (in.read(buffer.data(), static_cast<std::streamsize>(buffer.size())) || in.gcount() > 0) {
      text.append(buffer.data(), static_cast<std::size_t>(in.gcount()));
      if (text.size() > kLimit) {
        if (error) *error = path + ": larger than 16 MiB, not a precision plan";
        return std::nullopt;
      }
    }
  }
  if (!in.eof()) {
    if (error) *error = path + ": cannot be read";
    return std::nullopt;
  }
  std::string why;
  const auto plan = decodePrecisionPlan(text, &why);
  if (!plan) {
    if (error) *error = path + ": " + why;
    return std::nullopt;
  }
  auto config = planConfigOf(*plan, model, notes, &why);
  if (!config && error) *error = path + ": " + why;
  return config;
}

}  // namespace ampscope
