#include "cache_file.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

namespace ampscope::detail {

std::optional<std::string> readCacheFile(const std::string& file, std::uintmax_t maxBytes, std::string* problem) {
  problem->clear();
  std::error_code ec;
  if (file.empty() || !std::filesystem::exists(file, ec)) return std::nullopt;
  const auto size = std::filesystem::file_size(file, ec);
  if (ec || size > maxBytes) {
    *problem = ec ? ec.message() : "larger than a cache file can be";
    return std::nullopt;
  }
  std::ifstream in(file, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in.good() && !in.eof()) {
    *problem = "could not be read";
    return std::nullopt;
  }
  return text.str();
}

std::optional<JsonValue> readCacheMachines(const std::string& file, std::uintmax_t maxBytes, const char* format,
                                           int64_t version, std::string* problem) {
  const std::optional<std::string> text = readCacheFile(file, maxBytes, problem);
  if (!text) return std::nullopt;
  JsonParseError error;
  const auto doc = parseJson(*text, &error);
  if (!doc) {
    *problem = error.where() + ": " + error.message;
    return std::nullopt;
  }
  const JsonValue* f = doc->isObject() ? doc->find("format") : nullptr;
  const JsonValue* v = doc->isObject() ? doc->find("version") : nullptr;
  const JsonValue* machines = doc->isObject() ? doc->find("machines") : nullptr;
  if (!f || !f->isString() || f->string() != format || !v || v->integer() != version || !machines ||
      !machines->isArray()) {
    *problem = "not an AmpScope " + std::string(format) + " file of version " + std::to_string(version);
    return std::nullopt;
  }
  return *machines;
}

std::string replaceCacheFile(const std::string& file, const std::string& text) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path target(file);
  if (target.has_parent_path()) fs::create_directories(target.parent_path(), ec);
  const fs::path temporary = target.string() + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      fs::remove(temporary, ec);
      return "could not write " + temporary.string();
    }
  }
  fs::rename(temporary, target, ec);
  if (ec) {
    const std::string problem = "could not replace " + file + ": " + ec.message();
    fs::remove(temporary, ec);
    return problem;
  }
  return "";
}

}  // namespace ampscope::detail
