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
// Version 2 adds the runs followed from streams after the records:
//   ...],"followed":[
//   {"source":{header fields},"target":"run.jsonl","steps":[
//   ModeStep,
//   ...]}]}
// and its "config" may be absent (a session of followed runs only). A session is written as version 2
// only when it holds followed runs, so engine-only sessions still open in AmpScope 0.1.
//
// The encoder comes in pieces so the autosave can encode each record once and append only new ones:
// encodeSession() == sessionHeaderJson() + for each record (i == 0 ? "\n" : ",\n") + record +
// sessionFooterJson(followed) (kSessionFooterJson "]}\n" when nothing was followed).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ampscope/engine/record_codec.h"
#include "ampscope/engine/run_config.h"
#include "ampscope/engine/telemetry.h"

namespace ampscope {

inline constexpr std::string_view kSessionFormat = "ampscope-session";
inline constexpr int kSessionVersion = 2;        // the newest version read
inline constexpr int kSessionEngineOnlyVersion = 1;  // written when no followed runs are held

// A run followed from a stream (a training script's probe, or another AmpScope's --jsonl).
struct FollowedRun {
  StreamSource source;          // the stream header's identity fields
  std::string target;           // what was followed: a file path or "host:port"
  std::vector<ModeStep> steps;  // in arrival order
};

struct Session {
  RunConfig config;
  std::string lesson;               // the lesson id the run belongs to; empty for a free experiment
  std::vector<StepRecord> records;  // steps increasing
  std::vector<FollowedRun> followed;
};

// Up to "records":[ ; `version` is 2 when followed runs will be in the footer.
std::string sessionHeaderJson(const RunConfig& config, std::string_view lesson,
                              int version = kSessionEngineOnlyVersion);
inline constexpr std::string_view kSessionFooterJson = "]}\n";
// Closes the records and writes the followed runs: kSessionFooterJson when there are none.
std::string sessionFooterJson(const std::vector<FollowedRun>& followed);
// Appends one record with its separator: "\n" before the first record (index 0), ",\n" before the others.
void appendSessionRecordJson(std::string& out, const StepRecord& record, std::size_t index);
// The autosave's journal of one followed run is a session document of that run alone (version 2, no
// config, no records) without its footer, so steps are appended as they arrive:
//   followedJournalHeaderJson(source, target) + for each step (i == 0 ? "\n" : ",\n") + the step
//   (appendFollowedStepJson) + kFollowedJournalFooterJson
// decodes (decodeSession) as a session whose only content is followed[0] with those steps.
std::string followedJournalHeaderJson(const StreamSource& source, std::string_view target);
void appendFollowedStepJson(std::string& out, const ModeStep& step, std::size_t index);
inline constexpr std::string_view kFollowedJournalFooterJson = "]}]}\n";
std::string encodeSession(const RunConfig& config, std::string_view lesson, const std::vector<StepRecord>& records,
                          const std::vector<FollowedRun>& followed = {});
inline std::string encodeSession(const Session& session) {
  return encodeSession(session.config, session.lesson, session.records, session.followed);
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
    Cancelled,      // the progress callback asked to stop
  };
  Kind kind = Kind::Field;
  int line = 0;
  int column = 0;
  std::string path;     // "records[12].modes[0].loss", "config.scaler.growth-interval"
  std::string message;  // English
  std::string found;    // the format or version found (WrongFormat: empty when not a string; NewerVersion)
  std::string text() const;
};

// Told while decoding, after each record: how far into the document the reader is (bytes) and how many
// records it decoded. Returning false cancels the decode (SessionError::Kind::Cancelled).
using SessionDecodeProgress = std::function<bool(std::size_t bytesParsed, std::size_t recordsDecoded)>;

// Checks format and version, every field (with its full path), steps increasing, each record's modes
// in config.modes, not repeated, and each mode's step equal to its record's step. Each record is decoded
// as soon as it is parsed, so the document's JSON tree never holds all the records at once.
std::optional<Session> decodeSession(std::string_view json, SessionError* error,
                                     const SessionDecodeProgress& progress = {});

}  // namespace ampscope
