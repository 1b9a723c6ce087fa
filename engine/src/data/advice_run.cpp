#include "ampscope/engine/advice_run.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string_view>

#include "ampscope/engine/json.h"
#include "ampscope/engine/record_stream_reader.h"

namespace ampscope {
namespace {

// The run a record stream (a file or a followed run) comes from, by its header's source.
RunIdentity streamIdentity(const std::string& file, const StreamSource& source) {
  RunIdentity identity;
  identity.file = file;
  identity.kind = source.source == "probe" ? "probe-stream" : "engine-stream";
  identity.run = source.run;
  identity.runId = source.runId;
  return identity;
}

// A session is decoded from memory; one larger than this is not one AmpScope wrote for a run it can show.
constexpr std::uintmax_t kMaxSessionBytes = std::uintmax_t{1} << 30;
constexpr std::size_t kChunkBytes = std::size_t{1} << 20;

// The steps go to the builder as they come; the judged mode is chosen at the first one.
struct Feed {
  const AdviceRequest& request;
  std::vector<PrecisionMode> modes;  // the modes seen, in order
  std::optional<AdviceBuilder> builder;

  void add(const RunConfig* config, const ModeStep& step) {
    if (std::find(modes.begin(), modes.end(), step.mode) == modes.end()) modes.push_back(step.mode);
    if (!builder) {
      PrecisionMode judged = step.mode;
      if (request.mode) {
        judged = *request.mode;
      } else if (config && !config->modes.empty()) {
        const auto& configured = config->modes;
        const bool hasFp32 = std::find(configured.begin(), configured.end(), PrecisionMode::FP32) != configured.end();
        judged = hasFp32 ? PrecisionMode::FP32 : configured.front();
      }
      builder.emplace(judged, request.thresholds);
      if (config) builder->setEngineModel(config->model);
    }
    builder->add(step);
  }

  std::optional<PrecisionAdvice> finish(const RunIdentity& identity, AdviceInputError* error) {
    if (request.mode && std::find(modes.begin(), modes.end(), *request.mode) == modes.end()) {
      std::string seen;
      for (PrecisionMode m : modes) seen += (seen.empty() ? "" : ", ") + modeName(m);
      *error = {AdviceInputError::Field::Mode, "the run has no " + modeName(*request.mode) + " records (it has: " +
                                                   (seen.empty() ? std::string("none") : seen) + ")"};
      return std::nullopt;
    }
    AdviceBuilder empty(request.mode.value_or(PrecisionMode::FP32), request.thresholds);
    return (builder ? *builder : empty).finish(identity, request.target);
  }
};

AdviceInputError runError(std::string message) { return {AdviceInputError::Field::Run, std::move(message)}; }

std::optional<PrecisionAdvice> adviseStream(const std::string& path, const AdviceRequest& request,
                                            AdviceInputError* error, std::string* note) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = runError("cannot open '" + path + "'");
    return std::nullopt;
  }
  Feed feed{request, {}, {}};
  RecordStreamReader reader;
  std::vector<char> buffer(kChunkBytes);
  std::optional<RunConfig> config;
  bool configRead = false;
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    const std::streamsize n = in.gcount();
    if (n > 0) reader.feed(std::string_view(buffer.data(), static_cast<size_t>(n)));
    for (const auto& e : reader.takeErrors()) {
      *error = runError(e.text());
      return std::nullopt;
    }
    if (reader.headerChanged()) {
      *error = runError("a second run starts in the stream; advise reads one run");
      return std::nullopt;
    }
    if (reader.hasHeader() && !configRead) {
      configRead = true;
      config = reader.header().config;
    }
    for (const auto& step : reader.takeSteps()) feed.add(config ? &*config : nullptr, step);
  }
  if (in.bad()) {
    *error = runError("reading '" + path + "' failed");
    return std::nullopt;
  }
  if (reader.bufferedBytes() > 0 && note) {
    *note = "the last line of " + path + " has no end (" + std::to_string(reader.bufferedBytes()) +
            " bytes); it may still be being written and is left out";
  }
  if (!reader.hasHeader()) {
    *error = runError("'" + path + "' has no record stream header");
    return std::nullopt;
  }
  const RecordStream& header = reader.header();
  return feed.finish(streamIdentity(path, header.source), error);
}

// A session file decoded whole (sessions up to kMaxSessionBytes); the error is a RUN error's text.
std::optional<Session> readSessionFile(const std::string& path, AdviceInputError* error) {
  namespace fs = std::filesystem;
  std::error_code sizeError;
  const auto size = fs::file_size(path, sizeError);
  if (sizeError) {
    *error = runError("cannot read '" + path + "': " + sizeError.message());
    return std::nullopt;
  }
  if (size > kMaxSessionBytes) {
    *error = runError("'" + path + "' is neither a record stream nor a session AmpScope reads (" +
                      std::to_string(size) + " bytes, sessions up to " + std::to_string(kMaxSessionBytes) + ")");
    return std::nullopt;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = runError("cannot open '" + path + "'");
    return std::nullopt;
  }
  std::string text(static_cast<size_t>(size), '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.gcount() != static_cast<std::streamsize>(text.size())) {
    *error = runError("reading '" + path + "' failed");
    return std::nullopt;
  }
  SessionError sessionError;
  auto session = decodeSession(text, &sessionError);
  if (!session) {
    *error = runError("'" + path + "' is neither a record stream nor a session: " + sessionError.text());
    return std::nullopt;
  }
  return session;
}

std::optional<PrecisionAdvice> adviseSessionFile(const std::string& path, const AdviceRequest& request,
                                                 AdviceInputError* error) {
  const auto session = readSessionFile(path, error);
  if (!session) return std::nullopt;
  return adviseSession(*session, path, request, error);
}

// Whether the file's first non-blank line is a JSON object: a record stream (a header, or an old
// headerless record); a session's first line is not a JSON value on its own. `firstLine`, when given,
// receives that line.
bool looksLikeStream(const std::string& path, bool* empty, std::string* firstLine = nullptr) {
  std::ifstream in(path, std::ios::binary);
  std::string line;
  *empty = true;
  constexpr std::size_t kMaxProbeLine = 64u << 20;
  while (in) {
    line.clear();
    char c = 0;
    while (in.get(c) && c != '\n') {
      if (line.size() >= kMaxProbeLine) return false;
      line.push_back(c);
    }
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    *empty = false;
    JsonParseError parseError;
    const auto value = parseJson(line, &parseError);
    if (firstLine) *firstLine = line;
    return value && value->isObject();
  }
  return false;
}

}  // namespace

std::optional<PrecisionAdvice> adviseFile(const std::string& path, const AdviceRequest& request,
                                          AdviceInputError* error, std::string* note) {
  AdviceInputError ignored;
  if (!error) error = &ignored;
  namespace fs = std::filesystem;
  std::error_code fsError;
  if (path.empty()) {
    *error = runError("an empty file name");
    return std::nullopt;
  }
  if (!fs::exists(path, fsError)) {
    *error = runError("'" + path + "' does not exist");
    return std::nullopt;
  }
  if (fs::is_directory(path, fsError)) {
    *error = runError("'" + path + "' is a folder, not a file");
    return std::nullopt;
  }
  bool empty = true;
  const bool stream = looksLikeStream(path, &empty);
  if (empty) {
    *error = runError("'" + path + "' is empty");
    return std::nullopt;
  }
  return stream ? adviseStream(path, request, error, note) : adviseSessionFile(path, request, error);
}

std::optional<PrecisionAdvice> adviseEngineRecords(const RunConfig& config, const std::string& lesson,
                                                   const std::vector<StepRecord>& records, const std::string& file,
                                                   const AdviceRequest& request, AdviceInputError* error) {
  AdviceInputError ignored;
  if (!error) error = &ignored;
  Feed feed{request, {}, {}};
  for (const auto& record : records)
    for (const auto& step : record.modes) feed.add(&config, step);
  RunIdentity identity;
  identity.file = file;
  identity.kind = "session";
  identity.run = lesson;
  return feed.finish(identity, error);
}

std::optional<PrecisionAdvice> adviseSession(const Session& session, const std::string& file,
                                             const AdviceRequest& request, AdviceInputError* error) {
  if (!session.records.empty())
    return adviseEngineRecords(session.config, session.lesson, session.records, file, request, error);
  AdviceInputError ignored;
  if (!error) error = &ignored;
  Feed feed{request, {}, {}};
  RunIdentity identity;
  identity.file = file;
  identity.kind = "session";
  identity.run = session.lesson;
  if (!session.followed.empty()) {
    if (request.followed < 1 || request.followed > static_cast<int64_t>(session.followed.size())) {
      *error = {AdviceInputError::Field::Followed, "the session holds " + std::to_string(session.followed.size()) +
                                                       " followed runs, not " + std::to_string(request.followed)};
      return std::nullopt;
    }
    const FollowedRun& followed = session.followed[static_cast<size_t>(request.followed - 1)];
    identity.run = followed.source.run;
    identity.runId = followed.source.runId;
    for (const auto& step : followed.steps) feed.add(nullptr, step);
  }
  return feed.finish(identity, error);
}

std::optional<PrecisionAdvice> adviseFollowedRun(const FollowedRun& run, const std::string& file,
                                                 const AdviceRequest& request, AdviceInputError* error) {
  AdviceInputError ignored;
  if (!error) error = &ignored;
  Feed feed{request, {}, {}};
  for (const auto& step : run.steps) feed.add(nullptr, step);
  return feed.finish(streamIdentity(file, run.source), error);
}

FileRunConfig engineRunConfigOfFile(const std::string& path) {
  FileRunConfig result;
  bool empty = true;
  std::string header;
  if (looksLikeStream(path, &empty, &header)) {
    RecordError error;
    const auto stream = readRecordStreamHeader(header, &error);
    if (stream && stream->config) {
      result.config = stream->config;
    } else {
      result.missing = FileRunConfig::Missing::NotEngineStream;
    }
    return result;
  }
  AdviceInputError error;
  const auto session = empty ? std::nullopt : readSessionFile(path, &error);
  if (!session) {
    result.missing = FileRunConfig::Missing::Unreadable;
    result.detail = empty ? "'" + path + "' is empty or cannot be read" : error.message;
  } else if (session->records.empty()) {
    result.missing = FileRunConfig::Missing::FollowedRunsOnly;
  } else {
    result.config = session->config;
  }
  return result;
}

}  // namespace ampscope
