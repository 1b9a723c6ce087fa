// The kernel self-check's results as JSON, and the file that keeps them between runs (kernel_check.h).
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

#include "ampscope/engine/json.h"
#include "ampscope/engine/kernel_check.h"
#include "ampscope/engine/path_timing.h"
#include "cache_file.h"

namespace ampscope {
namespace {

constexpr const char* kFormat = "ampscope-kernel-checks";
constexpr int64_t kVersion = 1;
// A dozen checks per machine take a few kilobytes; anything far larger is not ours.
constexpr std::uintmax_t kMaxFileBytes = 1 << 20;

const std::string* stringField(const JsonValue& v, const char* name) {
  const JsonValue* f = v.find(name);
  return f && f->isString() ? &f->string() : nullptr;
}
std::optional<bool> boolField(const JsonValue& v, const char* name) {
  const JsonValue* f = v.find(name);
  return f && f->isBool() ? std::optional<bool>(f->boolValue()) : std::nullopt;
}
// Finite and not negative: every number of a check is a count, a share, or a distance.
bool numberField(const JsonValue& v, const char* name, double* out) {
  const JsonValue* f = v.find(name);
  if (!f || !f->isNumber() || !std::isfinite(f->number()) || f->number() < 0) return false;
  *out = f->number();
  return true;
}

}  // namespace

void writeKernelCheck(JsonWriter& w, const KernelCheck& c) {
  w.beginObject()
      .field("kernel", c.kernel)
      .field("used-by", c.usedBy)
      .field("available", c.available)
      .field("correct", c.correct)
      .field("outputs", static_cast<long long>(c.outputs))
      .field("differing-share", c.differingShare)
      .field("max-ulps", c.maxUlps)
      .field("worst-bound-ratio", c.worstBoundRatio)
      .field("compared-with-emulation", c.comparedWithEmulation);
  if (c.comparedWithEmulation) {
    w.field("emulation-differing-share", c.emulationDifferingShare).field("emulation-max-ulps", c.emulationMaxUlps);
  }
  w.field("note", c.note).endObject();
}

std::optional<KernelCheck> readKernelCheck(const JsonValue& v) {
  if (!v.isObject()) return std::nullopt;
  KernelCheck c;
  const std::string* kernel = stringField(v, "kernel");
  const std::string* usedBy = stringField(v, "used-by");
  const std::string* note = stringField(v, "note");
  const std::optional<bool> available = boolField(v, "available");
  const std::optional<bool> correct = boolField(v, "correct");
  const std::optional<bool> compared = boolField(v, "compared-with-emulation");
  const JsonValue* outputs = v.find("outputs");
  const int64_t count = outputs && outputs->integer() ? *outputs->integer() : -1;  // -1: missing or not an integer
  if (!kernel || kernel->empty() || !usedBy || !note || !available || !correct || !compared || count < 0 ||
      !numberField(v, "differing-share", &c.differingShare) || !numberField(v, "max-ulps", &c.maxUlps) ||
      !numberField(v, "worst-bound-ratio", &c.worstBoundRatio)) {
    return std::nullopt;
  }
  if (*compared && (!numberField(v, "emulation-differing-share", &c.emulationDifferingShare) ||
                    !numberField(v, "emulation-max-ulps", &c.emulationMaxUlps))) {
    return std::nullopt;
  }
  c.kernel = *kernel;
  c.usedBy = *usedBy;
  c.note = *note;
  c.available = *available;
  c.correct = *correct && *available;
  c.comparedWithEmulation = *compared;
  c.outputs = count;
  return c;
}

std::string defaultKernelCheckFile() {
  const std::string paths = defaultPathTimingFile();
  const auto slash = paths.rfind('/');
  return slash == std::string::npos ? std::string() : paths.substr(0, slash + 1) + "kernel-checks.json";
}

KernelCheckCache::KernelCheckCache(std::string file) : file_(std::move(file)) {}

void KernelCheckCache::load() {
  if (loaded_) return;
  loaded_ = true;
  const std::optional<JsonValue> machines =
      detail::readCacheMachines(file_, kMaxFileBytes, kFormat, kVersion, &readProblem_);
  if (!machines) return;
  // A machine whose entry does not read whole is dropped: half a table could let a wrong kernel through.
  for (const JsonValue& machine : machines->items()) {
    const JsonValue* key = machine.isObject() ? machine.find("key") : nullptr;
    const JsonValue* checks = machine.isObject() ? machine.find("checks") : nullptr;
    if (!key || !key->isString() || !checks || !checks->isArray() || checks->items().empty()) continue;
    std::vector<KernelCheck> read;
    for (const JsonValue& item : checks->items()) {
      std::optional<KernelCheck> check = readKernelCheck(item);
      if (!check) break;
      read.push_back(std::move(*check));
    }
    if (read.size() == checks->items().size()) machines_.emplace_back(key->string(), std::move(read));
  }
}

std::optional<std::vector<KernelCheck>> KernelCheckCache::find(const std::string& key) {
  load();
  for (const auto& [k, checks] : machines_)
    if (k == key) return checks;
  return std::nullopt;
}

void KernelCheckCache::store(const std::string& key, const std::vector<KernelCheck>& checks) {
  load();
  bool replaced = false;
  for (auto& [k, stored] : machines_) {
    if (k == key) {
      stored = checks;
      replaced = true;
    }
  }
  if (!replaced) machines_.emplace_back(key, checks);
  if (file_.empty()) return;
  std::string text;
  JsonWriter w(text, JsonWriter::Layout::Pretty);
  w.beginObject().field("format", kFormat).field("version", static_cast<long long>(kVersion));
  w.key("machines").beginArray();
  for (const auto& [k, stored] : machines_) {
    w.beginObject().field("key", k).key("checks").beginArray();
    for (const KernelCheck& c : stored) writeKernelCheck(w, c);
    w.endArray().endObject();
  }
  w.endArray().endObject();
  text += "\n";
  writeProblem_ = detail::replaceCacheFile(file_, text);
}

}  // namespace ampscope
