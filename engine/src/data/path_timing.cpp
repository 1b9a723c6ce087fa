#include "ampscope/engine/path_timing.h"
#include "ampscope/engine/version.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "ampscope/engine/json.h"
#include "ampscope/engine/number_text.h"
#include "cache_file.h"

namespace ampscope {
namespace {

constexpr const char* kFormat = "ampscope-precision-paths";
constexpr int64_t kVersion = 2;
// A cache file is a few hundred bytes; anything far larger is not ours.
constexpr std::uintmax_t kMaxFileBytes = 1 << 20;

std::string ratioText(double ratio) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1fx", ratio);
  return text;
}

std::string envOrEmpty(const char* name) {
  const char* value = std::getenv(name);
  return value ? std::string(value) : std::string();
}

bool positiveFinite(const JsonValue* v) {
  return v && v->isNumber() && std::isfinite(v->number()) && v->number() > 0;
}

}  // namespace

PathDecision decidePath(PrecisionMode mode, bool nativeAvailable, PrecisionPath setting,
                        const std::optional<PathTiming>& timing) {
  if (mode == PrecisionMode::FP32) return {true, ""};
  if (!nativeAvailable) {
    return {false, setting == PrecisionPath::Native
                       ? "emulated: precision-path asks for native, but this LibTorch has no native path"
                       : "emulated: this LibTorch has no native path"};
  }
  if (setting == PrecisionPath::Native) return {true, "native: set by precision-path"};
  if (setting == PrecisionPath::Emulated) return {false, "emulated: set by precision-path"};
  if (!timing || !(timing->nativeUs > 0) || !(timing->emulatedUs > 0)) {
    return {true, "native: the paths were not timed"};
  }
  if (timing->comparedSteps <= 0) return {true, "native: the paths were not compared on this machine"};
  if (!timing->identical()) {
    const std::string how =
        timing->largestLossDifference == 0
            ? "the losses agree for " + std::to_string(timing->comparedSteps) + " steps, the weights do not"
            : "the loss differs from step " + std::to_string(timing->firstDifferingStep) + ", by up to " +
                  numberText(timing->largestLossDifference);
    return {true, "native: the emulation is not bit-identical to this CPU's kernels (" + how + ")"};
  }
  const std::string agree = "bit-identical to native over " + std::to_string(timing->comparedSteps) + " steps";
  const double emulatedGain = timing->nativeUs / timing->emulatedUs;
  if (emulatedGain >= kEmulationMustBeFaster) {
    return {false, "emulated: " + agree + " and " + ratioText(emulatedGain) + " faster on this CPU"};
  }
  if (emulatedGain > 1.0) {
    return {true, "native: emulated only " + ratioText(emulatedGain) + " faster on this CPU (too close to switch; " +
                      agree + ")"};
  }
  return {true, "native: " + ratioText(1.0 / emulatedGain) + " faster than emulated on this CPU (" + agree + ")"};
}

std::string machineKey(const std::string& cpuModel, const std::string& cpuFlags,
                       const std::string& libtorchVersion, int threads, const std::string& model,
                       int kernelRevision) {
  // FNV-1a over the flags: the key stays short, and any flag change makes a new key.
  uint64_t hash = 1469598103934665603ull;
  for (unsigned char c : cpuFlags) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  char digest[17];
  std::snprintf(digest, sizeof digest, "%016llx", static_cast<unsigned long long>(hash));
  return "cpu=" + cpuModel + ";flags=" + digest + ";libtorch=" + libtorchVersion +
         ";threads=" + std::to_string(threads) + ";model=" + model + ";ampscope=" + ampscopeVersion() +
         ";kernels=" + std::to_string(kernelRevision);
}

std::pair<std::string, std::string> cpuIdentity() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  std::string model;
  std::string flags;
  auto valueOf = [](const std::string& text) {
    const auto colon = text.find(':');
    if (colon == std::string::npos) return std::string();
    const auto start = text.find_first_not_of(" \t", colon + 1);
    return start == std::string::npos ? std::string() : text.substr(start);
  };
  while (std::getline(in, line)) {
    if (line.empty() && (!model.empty() || !flags.empty())) break;  // the first processor only
    if (model.empty() && line.rfind("model name", 0) == 0) model = valueOf(line);
    if (flags.empty() && line.rfind("flags", 0) == 0) flags = valueOf(line);
  }
  return {model, flags};
}

std::string defaultPathTimingFile() {
  std::string dir = envOrEmpty("AMPSCOPE_CACHE_DIR");
  if (dir.empty()) {
    const std::string xdg = envOrEmpty("XDG_CACHE_HOME");
    if (!xdg.empty()) dir = xdg + "/ampscope";
  }
  if (dir.empty()) {
    const std::string home = envOrEmpty("HOME");
    if (!home.empty()) dir = home + "/.cache/ampscope";
  }
  return dir.empty() ? std::string() : dir + "/precision-paths.json";
}

PathTimingCache::PathTimingCache(std::string file) : file_(std::move(file)) {}

void PathTimingCache::load() {
  if (loaded_) return;
  loaded_ = true;
  const std::optional<JsonValue> machines =
      detail::readCacheMachines(file_, kMaxFileBytes, kFormat, kVersion, &readProblem_);
  if (!machines) return;
  // Entries that do not read are skipped one by one; the next store() writes the good ones back.
  for (const JsonValue& machine : machines->items()) {
    const JsonValue* key = machine.isObject() ? machine.find("key") : nullptr;
    const JsonValue* modes = machine.isObject() ? machine.find("modes") : nullptr;
    if (!key || !key->isString() || !modes || !modes->isObject()) continue;
    for (const auto& [mode, numbers] : modes->members()) {
      if (!parseMode(mode) || !numbers.isObject()) continue;
      const JsonValue* native = numbers.find("native-us");
      const JsonValue* emulated = numbers.find("emulated-us");
      const JsonValue* compared = numbers.find("compared-steps");
      const JsonValue* differing = numbers.find("first-differing-step");
      const JsonValue* difference = numbers.find("largest-loss-difference");
      if (!positiveFinite(native) || !positiveFinite(emulated)) continue;
      // -1: missing or not an integer.
      const auto integerOr = [](const JsonValue* v) -> int64_t {
        if (!v) return -1;
        const std::optional<int64_t> i = v->integer();
        return i ? *i : -1;
      };
      const int64_t comparedSteps = integerOr(compared);
      const int64_t firstDiffering = integerOr(differing);
      if (comparedSteps < 0 || firstDiffering < 0 || comparedSteps > (1 << 20) || firstDiffering > comparedSteps ||
          !difference || !difference->isNumber() || !std::isfinite(difference->number()) || difference->number() < 0) {
        continue;
      }
      PathTiming timing{native->number(), emulated->number()};
      timing.comparedSteps = static_cast<int>(comparedSteps);
      timing.firstDifferingStep = static_cast<int>(firstDiffering);
      timing.largestLossDifference = difference->number();
      entries_.push_back({key->string(), mode, timing});
    }
  }
}

std::optional<PathTiming> PathTimingCache::find(const std::string& key, PrecisionMode mode) {
  load();
  const std::string name = modeName(mode);
  for (const Entry& e : entries_) {
    if (e.key == key && e.mode == name) return e.timing;
  }
  return std::nullopt;
}

void PathTimingCache::store(const std::string& key, PrecisionMode mode, const PathTiming& timing) {
  load();
  const std::string name = modeName(mode);
  bool replaced = false;
  for (Entry& e : entries_) {
    if (e.key == key && e.mode == name) {
      e.timing = timing;
      replaced = true;
    }
  }
  if (!replaced) entries_.push_back({key, name, timing});
  if (file_.empty()) return;

  std::string text;
  JsonWriter w(text, JsonWriter::Layout::Pretty);
  w.beginObject().field("format", kFormat).field("version", static_cast<long long>(kVersion));
  w.key("machines").beginArray();
  std::vector<std::string> keys;
  for (const Entry& e : entries_) {
    if (std::find(keys.begin(), keys.end(), e.key) == keys.end()) keys.push_back(e.key);
  }
  for (const std::string& k : keys) {
    w.beginObject().field("key", k).key("modes").beginObject();
    for (const Entry& e : entries_) {
      if (e.key != k) continue;
      w.key(e.mode).beginObject().field("native-us", e.timing.nativeUs).field("emulated-us", e.timing.emulatedUs);
      w.field("compared-steps", static_cast<long long>(e.timing.comparedSteps))
          .field("first-differing-step", static_cast<long long>(e.timing.firstDifferingStep))
          .field("largest-loss-difference", e.timing.largestLossDifference);
      w.endObject();
    }
    w.endObject().endObject();
  }
  w.endArray().endObject();
  text += "\n";

  writeProblem_ = detail::replaceCacheFile(file_, text);
}

}  // namespace ampscope
