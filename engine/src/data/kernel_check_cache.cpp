// The kernel self-check's results as JSON, and the file that keeps them between runs (kernel_check.h).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>

#include "ampscope/engine/json.h"
#include "ampscope/engine/kernel_check.h"
#include "ampscope/engine/path_timing.h"
#include "cache_file.h"
#include "json_reading.h"

namespace ampscope {
namespace {

constexpr const char* kFormat = "ampscope-kernel-checks";
constexpr int64_t kVersion = 1;
// A dozen checks per machine take a few kilobytes; anything far larger is not ours.
constexpr std::uintmax_t kMaxFileBytes = 1 << 20;

constexpr std::string_view kCheckKeys[] = {"kernel",
                                           "used-by",
                                           "available",
                                           "correct",
                                           "outputs",
                                           "differing-share",
                                           "max-ulps",
                                           "worst-bound-ratio",
                                           "compared-with-emulation",
                                           "emulation-differing-share",
                                           "emulation-max-ulps",
                                           "note"};

// Every number of a check is a share, a distance or a ratio: finite and not negative.
double readMeasure(const data::ObjectFields& fields, std::size_t i) {
  const double value = data::readDouble(fields.required(i), fields.at(i));
  if (!std::isfinite(value) || value < 0) data::failAt(fields.at(i), "must be a finite number >= 0");
  return value;
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
  try {
    const data::Path path("check");
    const data::ObjectFields f(v, path, kCheckKeys, std::size(kCheckKeys));
    KernelCheck c;
    c.kernel = data::readString(f.required(0), f.at(0));
    if (c.kernel.empty()) data::failAt(f.at(0), "must not be empty");
    c.usedBy = data::readString(f.required(1), f.at(1));
    c.available = data::readBool(f.required(2), f.at(2));
    c.correct = data::readBool(f.required(3), f.at(3)) && c.available;
    c.outputs = data::readCount(f.required(4), f.at(4));
    c.differingShare = readMeasure(f, 5);
    c.maxUlps = readMeasure(f, 6);
    c.worstBoundRatio = readMeasure(f, 7);
    c.comparedWithEmulation = data::readBool(f.required(8), f.at(8));
    if (c.comparedWithEmulation) {
      c.emulationDifferingShare = readMeasure(f, 9);
      c.emulationMaxUlps = readMeasure(f, 10);
    }
    c.note = data::readString(f.required(11), f.at(11));
    return c;
  } catch (const data::FieldFailure&) {
    return std::nullopt;
  }
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
