#include "ui/advice/plan_run.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>

#include "ampscope/engine/json.h"
#include "ampscope/engine/record_codec.h"
#include "ampscope/engine/session_codec.h"

namespace ampscope::ui {

namespace {

// adviseFile's limit (advice_run.cpp): a larger file is no session AmpScope reads.
constexpr std::uintmax_t kMaxSessionBytes = std::uintmax_t{1} << 30;
constexpr std::size_t kMaxHeaderLine = std::size_t{64} << 20;

void addMode(std::vector<PrecisionMode>& modes, PrecisionMode mode) {
  if (std::find(modes.begin(), modes.end(), mode) == modes.end()) modes.push_back(mode);
}

}  // namespace

RunConfig planRunConfig(const RunConfig& base, const PlanConfig& plan, std::optional<PrecisionMode> target) {
  RunConfig config = base;
  config.plan = plan;
  addMode(config.modes, PrecisionMode::FP32);
  if (target) addMode(config.modes, *target);
  addMode(config.modes, PrecisionMode::Plan);
  return config;
}

FileRunConfig engineRunConfigOfFile(const std::string& path) {
  FileRunConfig result;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    result.missing = FileRunConfig::Missing::Unreadable;
    result.detail = "cannot open '" + path + "'";
    return result;
  }
  // A stream's first non-blank line is a JSON object (its header); a session's is not (advice_run.cpp).
  std::string line;
  while (in) {
    line.clear();
    char c = 0;
    while (in.get(c) && c != '\n') {
      if (line.size() >= kMaxHeaderLine) break;
      line.push_back(c);
    }
    if (line.find_first_not_of(" \t\r") != std::string::npos) break;
  }
  JsonParseError parseError;
  const auto value = parseJson(line, &parseError);
  if (value && value->isObject()) {
    RecordError error;
    const auto header = readRecordStreamHeader(line, &error);
    if (header && header->config) {
      result.config = header->config;
    } else {
      result.missing = FileRunConfig::Missing::NotEngineStream;
    }
    return result;
  }
  std::error_code sizeError;
  const auto size = std::filesystem::file_size(path, sizeError);
  if (sizeError || size > kMaxSessionBytes) {
    result.missing = FileRunConfig::Missing::Unreadable;
    result.detail = sizeError ? sizeError.message() : "larger than a session AmpScope reads";
    return result;
  }
  std::string text(static_cast<std::size_t>(size), '\0');
  in.clear();
  in.seekg(0);
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  SessionError error;
  const auto session = decodeSession(text, &error);
  if (!session) {
    result.missing = FileRunConfig::Missing::Unreadable;
    result.detail = error.text();
  } else if (session->records.empty()) {
    result.missing = FileRunConfig::Missing::FollowedRunsOnly;
  } else {
    result.config = session->config;
  }
  return result;
}

}  // namespace ampscope::ui
