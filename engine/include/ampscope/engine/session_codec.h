// The session document: a RunConfig (every field), the lesson the run belongs to, and every recorded
// step of every mode, so an experiment reopens with its plots and no retraining. No Qt: the app's
// SessionFile only reads and writes the bytes (atomically) and translates the frame of the errors.
//
// Layout (UTF-8 JSON, version 1, unchanged since AmpScope 0.1.0):
//   {"format":"ampscope-session","version":1,"app":"AmpScope <version>","lesson":"underflow",
//    "config":{...},"records":[
//   {"step":1,"modes":[ModeStep, ...]},
//   ...]}
// one record (a lock-step of every mode) per line, so a long session reads and diffs line by line. The
// config is writeConfigJson's, the records the record codec's (record_codec.h).
//
// The encoder comes in pieces so the autosave can encode each record once and append only new ones:
// encodeSession() == sessionHeaderJson() + for each record (i == 0 ? "\n" : ",\n") + record + "]}\n".
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ampscope/engine/run_config.h"
#include "ampscope/engine/telemetry.h"

namespace ampscope {

inline constexpr std::string_view kSessionFormat = "ampscope-session";
inline constexpr int kSessionVersion = 1;

struct Session {
  RunConfig config;
  std::string lesson;               // the lesson id the run belongs to; empty for a free experiment
  std::vector<StepRecord> records;  // steps increasing
};

std::string sessionHeaderJson(const RunConfig& config, std::string_view lesson);  // up to "records":[
inline constexpr std::string_view kSessionFooterJson = "]}\n";
// Appends one record with its separator: "\n" before the first record (index 0), ",\n" before the others.
void appendSessionRecordJson(std::string& out, const StepRecord& record, std::size_t index);
std::string encodeSession(const RunConfig& config, std::string_view lesson, const std::vector<StepRecord>& records);
inline std::string encodeSession(const Session& session) {
  return encodeSession(session.config, session.lesson, session.records);
}

// Why a document did not decode. The kind lets the app phrase (and translate) the frame; `text()` is
// the English message for logs and the CLI.
struct SessionError {
  enum class Kind {
    Empty,          // nothing but blanks
    Syntax,         // not JSON (line, column, message)
    NotAnObject,    // the top level is not an object
    NoFormat,       // no "format" member
    WrongFormat,    // "format" is something else (found)
    BadVersion,     // "version" is not a positive integer
    NewerVersion,   // written by a newer AmpScope (found = its version)
    Field,          // a field does not read (path, message)
  };
  Kind kind = Kind::Field;
  int line = 0;
  int column = 0;
  std::string path;     // "records[12].modes[0].loss", "config.scaler.growth-interval"
  std::string message;  // English
  std::string found;    // the format or version found (WrongFormat: empty when not a string; NewerVersion)
  std::string text() const;
};

// Checks format and version, every field (with its full path), steps increasing, each record's modes
// in config.modes, not repeated, and each mode's step equal to its record's step.
std::optional<Session> decodeSession(std::string_view json, SessionError* error);

}  // namespace ampscope
