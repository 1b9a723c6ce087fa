// The one record codec: ModeStep and StepRecord to and from JSON, the JSON Lines record stream, and
// CSV. Every file that holds telemetry (a session, `ampscope-cli train --jsonl/--csv`, Export Run Data)
// writes and reads it here; docs/record-format.md describes each field.
//
// JSON keys are kebab-case ("loss-scale", "grad-norm-before-clip"). A double is a JSON number or, when
// it is not finite, one of the strings "nan", "inf", "-inf" (numberText's spelling; JSON has no NaN).
// Histograms are sparse: "bins" lists [exponent, count] for the non-empty exponent bins only.
// "rounding" is written on instrumented steps (or when any count is non-zero), "rounding-points" and
// "tensors" when they are not empty; a reader takes their absence as empty.
//
// The record stream (JSON Lines, version 4): the first line is a header
//   {"format":"ampscope-records","version":4,"app":"AmpScope <version>","source":"engine",
//    "run-id":"5f0c2a9e1b7d4c3a","config":{...}}
// ("run-id" optional for the engine: streams written before it was added have none)
// and every further line one ModeStep. A stream written by a training script's probe has
// "source":"probe", no config, and the run's identity (run, run-id, rank, world-size, ranks, device,
// torch, every, parameters). Version 2 had the engine's header without "source"; version 1 (AmpScope
// 0.1.0's `train --jsonl`) had no header and snake_case keys, with histograms' exponents as an object
// {"-24": count}. Version 4 adds a tensor's optional "role" (gradient, activation, activation-gradient,
// weight) and "rounding-cost". readRecordStream() reads all four; a newer version is refused naming both
// numbers.
//
// CSV: a header row and one row per ModeStep with its scalars and rounding totals (no histograms);
// numbers through numberText, booleans as 0 and 1.
//
// Readers never throw and never crash on damaged input: they return nullopt and a RecordError naming
// where ("records[12].modes[0].loss", "line 7: loss") and why. Unknown keys and columns are refused by name.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ampscope/engine/follow_budget.h"
#include "ampscope/engine/json.h"
#include "ampscope/engine/run_config.h"
#include "ampscope/engine/telemetry.h"

namespace ampscope {

struct RecordError {
  std::string path;     // "records[12].modes[0].loss", "line 7: loss"; empty when the whole input is meant
  std::string message;  // English: "expected a number or \"nan\", \"inf\", \"-inf\""
  std::string text() const;  // "path: message" (or the message alone)
};

// ---- JSON objects ----

void writeModeStepJson(JsonWriter& out, const ModeStep& step);
void writeStepRecordJson(JsonWriter& out, const StepRecord& record);  // {"step":N,"modes":[...]}

// `path` is where `value` is in its document; errors extend it ("records[3]" + ".modes[0].loss").
std::optional<ModeStep> readModeStepJson(const JsonValue& value, const std::string& path, RecordError* error);
std::optional<StepRecord> readStepRecordJson(const JsonValue& value, const std::string& path,
                                             RecordError* error);

// ---- the JSON Lines record stream ----

inline constexpr std::string_view kRecordStreamFormat = "ampscope-records";
inline constexpr int kRecordStreamVersion = 4;

// The header's identity fields: who wrote the stream and which run (and rank) it follows.
struct StreamSource {
  std::string source = "engine";   // "engine" | "probe"
  std::string run;                 // display name (probe)
  std::string runId;               // 16 lowercase hex digits, random per probe instance or engine stream
                                   // (empty: an engine stream written before engine streams had one)
  std::string ranks = "single";    // "single" | "merged" | "per-rank"
  std::string device;              // "cpu", "cuda:0", ...
  std::string torch;               // the probe's torch.__version__
  int64_t rank = 0;
  int64_t worldSize = 1;
  int64_t every = 0;               // the probe's instrument interval
  std::vector<std::string> parameters;  // every parameter's name, module order
};

// A new run-id: 16 lowercase hex digits from std::random_device (as the probe's secrets.token_hex(8)).
std::string newRunId();
// The engine's header line (version 3, source "engine", with the config), '\n' included. `runId` (16
// lowercase hex digits, newRunId()) is written as "run-id" when not empty, so a viewer that reconnects to
// or re-follows the stream continues the same run; a header without one still reads (older writers).
std::string recordStreamHeader(const RunConfig& config, const std::string& runId = {});
// A probe's header line (source.source is written as given; no config), '\n' included. For tests and tools.
std::string probeStreamHeader(const StreamSource& source, const std::string& app);
// One ModeStep as one line, '\n' included.
void appendRecordStreamLine(std::string& out, const ModeStep& step);

struct RecordStream {
  int version = kRecordStreamVersion;  // 1: an old headerless snake_case file
  std::optional<RunConfig> config;     // from an engine header; absent for version 1 and probe streams
  std::string app;                     // the writer, from the header
  StreamSource source;                 // version 1 and 2: the defaults (source "engine")
  std::vector<ModeStep> steps;         // in file order
};

// A StreamSource as a JSON object of the header's identity keys ("source", "run", "run-id", ...): a
// session's followed runs hold one each. Reading requires "source" and, for a probe, every identity key.
// An engine source is written with "source" and, when not empty, "run" and "run-id" only (its other
// identity fields are a probe's and have no engine value).
void writeStreamSourceJson(JsonWriter& out, const StreamSource& source);
std::optional<StreamSource> readStreamSourceJson(const JsonValue& value, const std::string& path,
                                                 RecordError* error);

// One ModeStep line of a stream of `version` (1: AmpScope 0.1.0's snake_case keys; 2 and 3: kebab-case).
std::optional<ModeStep> readRecordStreamStep(const JsonValue& value, int version, RecordError* error);

// One line of a stream of `version`, read within `budget` (follow_budget.h). The record's lists
// ("tensors", "rounding-points", "quantized", "nonfinite") are parsed item by item, never as one JSON
// tree; every item is checked as readRecordStreamStep checks it, and past the budget an item is folded
// into the step's `folded` instead of kept (rounding points into one "(folded)" point), so what a line
// costs is bounded by its length and the budget, not by how many entries it holds.
struct RecordLine {
  enum class Kind { Step, Header, NotJson, Refused };
  Kind kind = Kind::Refused;
  bool object = false;           // the line is a JSON object (a header, a record, or a refused one)
  std::optional<ModeStep> step;  // Kind::Step
  JsonParseError parseError;     // Kind::NotJson
  RecordError error;             // Kind::Refused: the field at fault (path without "line N")
};
RecordLine readRecordStreamLine(std::string_view line, int version, const RecordBudget& budget = {});

// One header line (no steps): format, version (1 is not a header: it is refused), the fields.
std::optional<RecordStream> readRecordStreamHeader(std::string_view line, RecordError* error);

// Reads a whole stream (version 2, or version 1 when the first line is not a header). Blank lines are
// allowed; errors say "line N: <field path>".
std::optional<RecordStream> readRecordStream(std::string_view text, RecordError* error);

// ---- CSV ----

// The column names, in order: "step,mode,loss,loss_scale,...". One table gives them, the writer and the reader.
const std::vector<std::string_view>& csvColumns();
std::string csvHeader();                                  // the header row, '\n' included
void appendCsvRow(std::string& out, const ModeStep& step);  // one row, '\n' included
std::string recordsToCsv(const std::vector<StepRecord>& records);  // header + a row per ModeStep

// Reads a CSV written by csvHeader()/appendCsvRow() (or by AmpScope 0.1.0, same columns). The header must
// name every column once, in any order; an unknown column is refused by name. Rounding points and
// histograms are not in CSV, so the steps have none.
std::optional<std::vector<ModeStep>> readCsv(std::string_view text, RecordError* error);

}  // namespace ampscope
