#include "ampscope/engine/session_codec.h"

#include <array>
#include <algorithm>

#include "ampscope/engine/config_schema.h"
#include "ampscope/engine/json.h"
#include "ampscope/engine/lesson_id.h"
#include "ampscope/engine/record_codec.h"
#include "ampscope/engine/version.h"
#include "data/json_reading.h"

namespace ampscope {

using data::failAt;
using data::FieldFailure;
using data::ObjectFields;
using data::Path;

namespace {

constexpr std::array<std::string_view, 7> kKeys = {"format", "version", "app", "lesson", "config", "records",
                                                   "followed"};
enum Key : std::size_t { kFormat, kVersion, kApp, kLesson, kConfig, kRecords, kFollowed };
constexpr std::array<std::string_view, 3> kFollowedKeys = {"source", "target", "steps"};
enum FollowedKey : std::size_t { kFollowedSource, kFollowedTarget, kFollowedSteps };

FollowedRun readFollowedRun(const JsonValue& v, const Path& path) {
  const ObjectFields f(v, path, kFollowedKeys.data(), kFollowedKeys.size());
  FollowedRun run;
  RecordError error;
  const auto source = readStreamSourceJson(f.required(kFollowedSource), f.at(kFollowedSource).str(), &error);
  if (!source) throw FieldFailure{error.path, error.message};
  run.source = *source;
  run.target = data::readString(f.required(kFollowedTarget), f.at(kFollowedTarget));
  const Path stepsPath = f.at(kFollowedSteps);
  const auto& steps = data::readArray(f.required(kFollowedSteps), stepsPath);
  run.steps.reserve(steps.size());
  for (std::size_t i = 0; i < steps.size(); ++i) {
    auto step = readModeStepJson(steps[i], stepsPath.item(static_cast<int64_t>(i)).str(), &error);
    if (!step) throw FieldFailure{error.path, error.message};
    run.steps.push_back(std::move(*step));
  }
  return run;
}

}  // namespace

std::string SessionError::text() const {
  switch (kind) {
    case Kind::Empty: return "the file is empty";
    case Kind::Syntax:
      return "not a valid session file (line " + std::to_string(line) + ", column " + std::to_string(column) +
             ": " + message + "); it may be damaged or cut short";
    case Kind::NotAnObject: return "not an AmpScope session (the top level is not a JSON object)";
    case Kind::NoFormat: return "not an AmpScope session (no \"format\" field)";
    case Kind::WrongFormat:
      return "not an AmpScope session (format \"" + (found.empty() ? std::string("not a string") : found) +
             "\", expected \"" + std::string(kSessionFormat) + "\")";
    case Kind::BadVersion: return "field \"version\": expected a positive integer";
    case Kind::NewerVersion:
      return "written by a newer AmpScope (session format version " + found +
             "; this AmpScope reads up to version " + std::to_string(kSessionVersion) + "). Update AmpScope to open it.";
    case Kind::Field: return "field \"" + path + "\": " + message;
    case Kind::Cancelled: return "opening was cancelled";
  }
  return message;
}

std::string sessionHeaderJson(const RunConfig& config, std::string_view lesson, int version) {
  std::string out;
  JsonWriter json(out);
  json.beginObject();
  json.field(kKeys[kFormat], kSessionFormat);
  json.field(kKeys[kVersion], version);
  json.field(kKeys[kApp], "AmpScope " + ampscopeVersion());
  json.field(kKeys[kLesson], lesson);
  json.key(kKeys[kConfig]);
  writeConfigJson(json, config);
  // The records array stays open: the records and the footer are appended as text.
  out += ",\"";
  out += kKeys[kRecords];
  out += "\":[";
  return out;
}

void appendSessionRecordJson(std::string& out, const StepRecord& record, std::size_t index) {
  out += index > 0 ? ",\n" : "\n";
  JsonWriter json(out);
  writeStepRecordJson(json, record);
}

namespace {

// One followed run up to its open "steps":[ : {"source":{...},"target":"...","steps":[
void appendFollowedRunHead(std::string& out, const StreamSource& source, std::string_view target) {
  out += "{\"";
  out += kFollowedKeys[kFollowedSource];
  out += "\":";
  {
    JsonWriter json(out);
    writeStreamSourceJson(json, source);
  }
  out += ",\"";
  out += kFollowedKeys[kFollowedTarget];
  out += "\":";
  JsonWriter::appendEscaped(out, target);
  out += ",\"";
  out += kFollowedKeys[kFollowedSteps];
  out += "\":[";
}

}  // namespace

void appendFollowedStepJson(std::string& out, const ModeStep& step, std::size_t index) {
  out += index > 0 ? ",\n" : "\n";
  JsonWriter json(out);
  writeModeStepJson(json, step);
}

std::string sessionFooterJson(const std::vector<FollowedRun>& followed) {
  if (followed.empty()) return std::string(kSessionFooterJson);
  std::string out = "],\"";
  out += kKeys[kFollowed];
  out += "\":[";
  for (std::size_t r = 0; r < followed.size(); ++r) {
    const FollowedRun& run = followed[r];
    out += r > 0 ? ",\n" : "\n";
    appendFollowedRunHead(out, run.source, run.target);
    for (std::size_t i = 0; i < run.steps.size(); ++i) appendFollowedStepJson(out, run.steps[i], i);
    out += "]}";
  }
  out += "]}\n";
  return out;
}

std::string followedJournalHeaderJson(const StreamSource& source, std::string_view target) {
  std::string out;
  {
    JsonWriter json(out);
    json.beginObject();
    json.field(kKeys[kFormat], kSessionFormat);
    json.field(kKeys[kVersion], kSessionVersion);
    json.field(kKeys[kApp], "AmpScope " + ampscopeVersion());
    json.field(kKeys[kLesson], std::string_view());
  }
  // No config: a session of followed runs alone needs none (version 2).
  out += ",\"";
  out += kKeys[kRecords];
  out += "\":[],\"";
  out += kKeys[kFollowed];
  out += "\":[\n";
  appendFollowedRunHead(out, source, target);
  return out;
}

std::string encodeSession(const RunConfig& config, std::string_view lesson, const std::vector<StepRecord>& records,
                          const std::vector<FollowedRun>& followed) {
  std::string out =
      sessionHeaderJson(config, lesson, followed.empty() ? kSessionEngineOnlyVersion : kSessionVersion);
  for (std::size_t i = 0; i < records.size(); ++i) appendSessionRecordJson(out, records[i], i);
  out += sessionFooterJson(followed);
  return out;
}

std::optional<Session> decodeSession(std::string_view json, SessionError* error,
                                     const SessionDecodeProgress& progress) {
  auto fail = [&](SessionError e) -> std::optional<Session> {
    if (error) *error = std::move(e);
    return std::nullopt;
  };
  using Kind = SessionError::Kind;
  const auto errorOf = [](Kind kind) {
    SessionError e;
    e.kind = kind;
    return e;
  };
  if (json.find_first_not_of(" \t\r\n") == std::string_view::npos) return fail(errorOf(Kind::Empty));
  // The records are decoded as the parser reaches them and their trees dropped one by one (a long
  // session's tree was several times the size of the file). What needs the config (modes, step order) is
  // checked after the parse, in record order, and the first record that did not decode is reported after
  // the checks of the records before it: the same error comes first as with the whole tree.
  std::vector<StepRecord> decoded;
  std::optional<FieldFailure> undecodable;
  bool anyRecord = false;  // the records array has an item (the tree keeps it empty)
  const std::string_view recordsKey = kKeys[kRecords];
  const JsonItemSink sink = [&](JsonValue&& item, std::size_t index, std::size_t end) {
    anyRecord = true;
    const std::string path = std::string(recordsKey) + '[' + std::to_string(index) + ']';
    RecordError recordError;
    auto record = readStepRecordJson(item, path, &recordError);
    if (!record) {
      undecodable = FieldFailure{recordError.path, recordError.message};
      return JsonSinkAnswer::Ignore;
    }
    decoded.push_back(std::move(*record));
    if (progress && !progress(end, decoded.size())) return JsonSinkAnswer::Stop;
    return JsonSinkAnswer::Next;
  };
  JsonParseError parseError;
  const auto root = parseJsonStreamingMember(json, &parseError, recordsKey, sink);
  if (!root && parseError.stopped) return fail(errorOf(Kind::Cancelled));
  if (!root) {
    SessionError e = errorOf(Kind::Syntax);
    e.line = parseError.line;
    e.column = parseError.column;
    e.message = parseError.message;
    return fail(e);
  }
  if (!root->isObject()) return fail(errorOf(Kind::NotAnObject));
  const JsonValue* format = root->find(kKeys[kFormat]);
  if (!format) return fail(errorOf(Kind::NoFormat));
  if (!format->isString() || format->string() != kSessionFormat) {
    SessionError e = errorOf(Kind::WrongFormat);
    if (format->isString()) e.found = format->string();  // empty: not a string
    return fail(e);
  }
  const JsonValue* versionValue = root->find(kKeys[kVersion]);
  const auto version = versionValue ? versionValue->integer() : std::nullopt;
  if (!version || *version < 1) return fail(errorOf(Kind::BadVersion));
  if (*version > kSessionVersion) {
    SessionError e = errorOf(Kind::NewerVersion);
    e.found = std::to_string(*version);
    return fail(e);
  }
  try {
    const Path top;
    const ObjectFields f(*root, top, kKeys.data(), kKeys.size());
    Session session;
    if (const JsonValue* app = f.get(kApp)) data::readString(*app, f.at(kApp));
    if (const JsonValue* lesson = f.get(kLesson)) {
      session.lesson = data::readString(*lesson, f.at(kLesson));
      // Empty: no lesson. Anything else names one, and the app opens it by that name.
      if (!session.lesson.empty()) {
        if (auto problem = lessonIdProblem(session.lesson)) throw FieldFailure{"lesson", *problem};
      }
    }
    if (*version == 1 && f.get(kFollowed)) failAt(f.at(kFollowed), "unknown key (in a version 1 session)");
    // Version 2: a session of followed runs alone may have no config.
    const JsonValue* config = f.get(kConfig);
    if (!config && (*version == 1 || !f.get(kFollowed) || anyRecord)) {
      f.required(kConfig);
    }
    if (config) {
      const auto configErrors = readConfigJson(*config, session.config, true, "config.");
      if (!configErrors.empty()) throw FieldFailure{configErrors.front().field, configErrors.front().message};
      const auto invalid = validate(session.config);
      if (!invalid.empty()) throw FieldFailure{"config." + invalid.front().field, invalid.front().message};
    }

    const Path recordsPath = f.at(kRecords);
    data::readArray(f.required(kRecords), recordsPath);  // an array: its items went to the sink
    const auto& modes = session.config.modes;
    std::vector<bool> seen(modes.size());
    int64_t previous = 0;
    for (std::size_t i = 0; i < decoded.size(); ++i) {
      const std::string path = recordsPath.str() + '[' + std::to_string(i) + ']';
      const StepRecord* record = &decoded[i];
      if (record->step <= previous) {
        throw FieldFailure{path + ".step", "steps must increase (step " + std::to_string(record->step) +
                                               " after " + std::to_string(previous) + ")"};
      }
      previous = record->step;
      // The runner stops at config.steps, and a mode leaves the records only after the one that says it
      // diverged: a record beyond the run, or with no mode, was not written by AmpScope.
      if (config && record->step > session.config.steps) {
        throw FieldFailure{path + ".step", "step " + std::to_string(record->step) + " is beyond config.steps (" +
                                               std::to_string(session.config.steps) + ")"};
      }
      if (record->modes.empty()) throw FieldFailure{path + ".modes", "a record holds at least one mode"};
      std::fill(seen.begin(), seen.end(), false);
      for (std::size_t m = 0; m < record->modes.size(); ++m) {
        const ModeStep& s = record->modes[m];
        const std::string modePath = path + ".modes[" + std::to_string(m) + "]";
        const auto it = std::find(modes.begin(), modes.end(), s.mode);
        if (it == modes.end()) {
          throw FieldFailure{modePath + ".mode", "'" + modeName(s.mode) + "' is not in config.modes"};
        }
        const auto index = static_cast<std::size_t>(it - modes.begin());
        if (seen[index]) throw FieldFailure{modePath + ".mode", "'" + modeName(s.mode) + "' appears twice"};
        seen[index] = true;
        if (s.step != record->step) {
          throw FieldFailure{modePath + ".step", "step " + std::to_string(s.step) + " in the record of step " +
                                                     std::to_string(record->step)};
        }
      }
    }
    if (undecodable) throw *undecodable;
    session.records = std::move(decoded);
    if (const JsonValue* followed = f.get(kFollowed)) {
      const Path followedPath = f.at(kFollowed);
      const auto& runs = data::readArray(*followed, followedPath);
      session.followed.reserve(runs.size());
      for (std::size_t i = 0; i < runs.size(); ++i) {
        session.followed.push_back(readFollowedRun(runs[i], followedPath.item(static_cast<int64_t>(i))));
      }
    }
    return session;
  } catch (const FieldFailure& failure) {
    SessionError e = errorOf(Kind::Field);
    e.path = failure.path;
    e.message = failure.message;
    return fail(e);
  }
}

}  // namespace ampscope
