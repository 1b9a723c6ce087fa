// TEMPORARY STAND-IN, to be deleted when the RunConfig schema (config_schema.cpp) is on this branch:
// writeConfigJson/readConfigJson by hand, in the session v1 layout, so the record and session codecs
// build and their tests run before the schema lands. Nothing else of config_schema.h is provided.
#include <limits>

#include "ampscope/engine/config_schema.h"

namespace ampscope {

void writeConfigJson(JsonWriter& out, const RunConfig& c) {
  out.beginObject();
  out.field("model", modelName(c.model));
  out.key("modes").beginArray();
  for (PrecisionMode mode : c.modes) out.value(modeName(mode));
  out.endArray();
  out.field("optimizer", optimizerName(c.optimizer));
  out.field("lr", c.lr);
  out.field("momentum", c.momentum);
  out.field("weight-decay", c.weightDecay);
  out.field("adam-eps", c.adamEps);
  out.field("batch", static_cast<long long>(c.batchSize));
  out.field("seed", static_cast<unsigned long long>(c.seed));
  out.field("steps", static_cast<long long>(c.steps));
  out.field("loss-weight", c.lossWeight);
  out.key("scaler").beginObject();
  out.field("init-scale", c.scaler.initScale);
  out.field("growth-factor", c.scaler.growthFactor);
  out.field("backoff-factor", c.scaler.backoffFactor);
  out.field("growth-interval", static_cast<long long>(c.scaler.growthInterval));
  out.field("enabled", c.scaler.enabled);
  out.endObject();
  out.field("scaler-for-pure-fp16", c.scalerForPureFp16);
  out.key("clip").beginObject();
  out.field("order", clipOrderName(c.clipOrder));
  out.field("max-norm", c.clipMaxNorm);
  out.endObject();
  out.field("instrument-every", static_cast<long long>(c.instrumentEvery));
  out.field("threads", c.threadsPerMode);
  out.endObject();
}

namespace {

struct Reader {
  const std::string& prefix;
  std::vector<ConfigError>& errors;

  const JsonValue* get(const JsonValue& o, const std::string& at, const char* key) {
    const JsonValue* v = o.isObject() ? o.find(key) : nullptr;
    if (!v) errors.push_back({prefix + at + key, "missing"});
    return v;
  }
  void real(const JsonValue& o, const std::string& at, const char* key, double& out) {
    const JsonValue* v = get(o, at, key);
    if (!v) return;
    if (v->isNumber()) {
      out = v->number();
    } else if (v->isString() && (v->string() == "nan" || v->string() == "inf" || v->string() == "-inf")) {
      out = v->string() == "nan" ? std::numeric_limits<double>::quiet_NaN()
                                 : (v->string() == "inf" ? 1 : -1) * std::numeric_limits<double>::infinity();
    } else {
      errors.push_back({prefix + at + key, "expected a number"});
    }
  }
  void integer(const JsonValue& o, const std::string& at, const char* key, int64_t& out) {
    const JsonValue* v = get(o, at, key);
    if (!v) return;
    if (const auto i = v->integer()) {
      out = *i;
    } else {
      errors.push_back({prefix + at + key, "expected an integer"});
    }
  }
  void flag(const JsonValue& o, const std::string& at, const char* key, bool& out) {
    const JsonValue* v = get(o, at, key);
    if (!v) return;
    if (v->isBool()) {
      out = v->boolValue();
    } else {
      errors.push_back({prefix + at + key, "expected true or false"});
    }
  }
  template <typename T, typename Parse>
  void choice(const JsonValue& o, const std::string& at, const char* key, T& out, Parse parse, const char* what) {
    const JsonValue* v = get(o, at, key);
    if (!v) return;
    const auto parsed = v->isString() ? parse(v->string()) : std::nullopt;
    if (parsed) {
      out = *parsed;
    } else {
      errors.push_back({prefix + at + key, std::string("unknown ") + what + " '" + (v->isString() ? v->string() : "") + "'"});
    }
  }
};

}  // namespace

std::vector<ConfigError> readConfigJson(const JsonValue& object, RunConfig& c, bool /*requireAll*/,
                                        const std::string& pathPrefix) {
  std::vector<ConfigError> errors;
  if (!object.isObject()) return {{pathPrefix.empty() ? "config" : pathPrefix.substr(0, pathPrefix.size() - 1), "expected an object"}};
  Reader r{pathPrefix, errors};
  r.choice(object, "", "model", c.model, parseModel, "model");
  if (const JsonValue* modes = r.get(object, "", "modes")) {
    c.modes.clear();
    for (std::size_t i = 0; i < modes->items().size(); ++i) {
      const JsonValue& m = modes->items()[i];
      const auto mode = m.isString() ? parseMode(m.string()) : std::nullopt;
      if (mode) {
        c.modes.push_back(*mode);
      } else {
        errors.push_back({pathPrefix + "modes[" + std::to_string(i) + "]", "unknown precision mode"});
      }
    }
  }
  r.choice(object, "", "optimizer", c.optimizer, parseOptimizer, "optimizer");
  r.real(object, "", "lr", c.lr);
  r.real(object, "", "momentum", c.momentum);
  r.real(object, "", "weight-decay", c.weightDecay);
  r.real(object, "", "adam-eps", c.adamEps);
  r.integer(object, "", "batch", c.batchSize);
  int64_t seed = 0;
  r.integer(object, "", "seed", seed);
  c.seed = static_cast<uint64_t>(seed);
  r.integer(object, "", "steps", c.steps);
  r.real(object, "", "loss-weight", c.lossWeight);
  if (const JsonValue* scaler = r.get(object, "", "scaler")) {
    r.real(*scaler, "scaler.", "init-scale", c.scaler.initScale);
    r.real(*scaler, "scaler.", "growth-factor", c.scaler.growthFactor);
    r.real(*scaler, "scaler.", "backoff-factor", c.scaler.backoffFactor);
    r.integer(*scaler, "scaler.", "growth-interval", c.scaler.growthInterval);
    r.flag(*scaler, "scaler.", "enabled", c.scaler.enabled);
  }
  r.flag(object, "", "scaler-for-pure-fp16", c.scalerForPureFp16);
  if (const JsonValue* clip = r.get(object, "", "clip")) {
    r.choice(*clip, "clip.", "order", c.clipOrder, parseClipOrder, "clipping order");
    r.real(*clip, "clip.", "max-norm", c.clipMaxNorm);
  }
  r.integer(object, "", "instrument-every", c.instrumentEvery);
  int64_t threads = 1;
  r.integer(object, "", "threads", threads);
  c.threadsPerMode = static_cast<int>(threads);
  return errors;
}

}  // namespace ampscope
