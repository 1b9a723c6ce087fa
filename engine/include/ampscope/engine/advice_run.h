// From a run to its precision advice: the one path shared by `ampscope-cli advise` and the GUI's advice
// panel, so both read the same records the same way and judge the same mode (docs/advice.md, "What it
// reads"). A record stream goes through RecordStreamReader in 1 MiB pieces, a session through
// decodeSession; the judged mode is `request.mode`, else fp32 when the run's configuration has it, else the
// run's first mode. No torch, no Qt.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ampscope/engine/precision_advice.h"
#include "ampscope/engine/session_codec.h"

namespace ampscope {

// What the advice is asked for: the CLI's flags, the panel's choices.
struct AdviceRequest {
  std::string target = "auto";        // "auto" or a mode of adviceModeOrder()
  std::optional<PrecisionMode> mode;  // whose tensors to judge; nullopt: fp32 when the run has it
  int64_t followed = 1;               // a session without engine records: its followed run number (1-based)
  AdviceThresholds thresholds;
};

// Why a run gave no advice, and which input is at fault: the CLI names it as "RUN", "option --mode" or
// "option --followed", the panel as the file, the judged mode or the followed run.
struct AdviceInputError {
  enum class Field { Run, Mode, Followed };
  Field field = Field::Run;
  std::string message;  // "'run.jsonl' is empty", "line 2: ...", "the run has no bf16-amp records ..."
};

// A file: a record stream (its first non-blank line is a JSON object) or a session. `path` becomes
// advice.run.file as given. `note`, when given, receives what was left out without being an error (a last
// line without its newline: a stream still being written). Sessions over 1 GiB are refused.
std::optional<PrecisionAdvice> adviseFile(const std::string& path, const AdviceRequest& request,
                                          AdviceInputError* error, std::string* note = nullptr);

// A decoded session (a file's, or the GUI's current run): its engine records, or when it has none its
// followed run `request.followed`. `file` becomes advice.run.file; the kind is "session".
std::optional<PrecisionAdvice> adviseSession(const Session& session, const std::string& file,
                                             const AdviceRequest& request, AdviceInputError* error);

// A run's engine records with their configuration (a session's; the GUI's current run keeps them in a
// session of its own type): the same advice as adviseSession gives for a session holding them. `lesson`
// becomes advice.run.run.
std::optional<PrecisionAdvice> adviseEngineRecords(const RunConfig& config, const std::string& lesson,
                                                   const std::vector<StepRecord>& records, const std::string& file,
                                                   const AdviceRequest& request, AdviceInputError* error);

// One followed run as the GUI holds it (the steps its stream sent; no configuration, as a session keeps
// it): the kind is "probe-stream" or "engine-stream" from its source, `file` what was followed.
std::optional<PrecisionAdvice> adviseFollowedRun(const FollowedRun& run, const std::string& file,
                                                 const AdviceRequest& request, AdviceInputError* error);

// The configuration of the AmpScope run a file holds, for the advice panel's Train This Plan: an engine
// stream's header (`ampscope-cli train --jsonl`), or a session's where it has engine records. The file is
// told apart and read as adviseFile reads it; without a configuration, why.
struct FileRunConfig {
  enum class Missing {
    None,
    Unreadable,        // `detail`: why (a session that does not decode, a file that cannot be read)
    NotEngineStream,   // a probe's stream, or an old stream without a header: no model
    FollowedRunsOnly,  // a session without a run of AmpScope's own: the advice is on a followed run
  };
  std::optional<RunConfig> config;
  Missing missing = Missing::None;
  std::string detail;
};
FileRunConfig engineRunConfigOfFile(const std::string& path);

}  // namespace ampscope
