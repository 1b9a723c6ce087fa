// Reads a record stream that arrives in pieces (a file being appended to, a TCP connection): feed()
// takes whatever bytes came, parses every complete line and keeps a partial last line until its '\n'
// arrives. Damage is reported, never fatal: a line that is not JSON or not a record, a header of a newer
// version, or a line longer than Limits::maxLineBytes is skipped and reported as "line N: ...", and the
// records around it are read. An oversized line is discarded as it arrives (the reader never holds
// more than maxLineBytes of it), so memory stays bounded whatever the peer sends. Never throws.
// A record's long lists are read within Limits::budget (follow_budget.h): past it their entries are
// folded into the step's `folded` (counted, parameter histograms summed), and folded() totals them.
//
// Sequence numbers ("seq", written by training-script probes) show records the writer dropped: a gap
// adds to dropped(). After restart() (a reconnect, a reopened file) the stream starts again with its
// header; when it names the same run-id, records already seen are skipped, so a probe that resends its
// history, or a file of the engine's `train --jsonl` read again from its start, produces no duplicates:
// a record with a seq is a duplicate when its seq is at most the last one seen, a record without one
// (the engine writes none) when its step is at most the last step seen of its mode. A header with
// another run-id, or none (an engine stream written before engine streams had a run-id), means a new
// run: headerChanged() says so once. resume() tells a new reader where an earlier one stopped (a run
// followed again, or restored from the autosave journal), so the same run-id continues it there.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ampscope/engine/follow_budget.h"
#include "ampscope/engine/record_codec.h"
#include "ampscope/engine/telemetry.h"

namespace ampscope {

class RecordStreamReader {
 public:
  struct Limits {
    std::size_t maxLineBytes = kMaxRecordLineBytes;
    RecordBudget budget;                  // entries kept per record list; the rest folded
    std::size_t maxPendingErrors = 1000;  // errors kept until takeErrors(); later ones are only counted
  };

  // (Two constructors: a default argument of a nested struct with member initializers does not compile.)
  RecordStreamReader();
  explicit RecordStreamReader(Limits limits);

  // Splits `bytes` into lines; parses the complete ones; a partial line waits for the next feed().
  void feed(std::string_view bytes);
  // A new connection or a reopened file: the partial line is dropped, line numbers start again at 1,
  // and the next line must be a header again.
  void restart();
  // Where a run was left (a re-follow, a run restored from a journal): when the next header names
  // `position.runId`, records up to `position` are skipped as already seen and no new run is reported.
  struct Position {
    std::string runId;
    int64_t lastSeq = 0;                                // highest seq seen (0: none)
    std::vector<std::pair<PrecisionMode, int64_t>> lastSteps;  // highest step seen of each mode
    // Extends the position by one step (its seq and its mode's step).
    void add(const ModeStep& step);
    int64_t lastStep(PrecisionMode mode) const;
  };
  void resume(Position position);
  // Where this reader is in its current run (empty runId before a header with one).
  const Position& position() const { return position_; }

  // Called with the text ('\n' excluded) of each line the reader accepts: the header of a new run (not
  // the same run's header again after restart()) and each new record. For copying a stream as it came.
  void setAcceptedLineObserver(std::function<void(std::string_view line)> observer) {
    observer_ = std::move(observer);
  }

  bool hasHeader() const { return hasHeader_; }
  const RecordStream& header() const { return header_; }  // steps empty
  bool headerChanged();  // true once after a header with a new run-id arrived (not for the first header)

  std::vector<ModeStep> takeSteps();       // new steps since the last call, in order
  std::vector<RecordError> takeErrors();   // path "line N" (from the connection's start), bounded

  int64_t lines() const { return lines_; }          // complete lines seen (all connections)
  int64_t steps() const { return steps_; }          // records accepted
  int64_t malformed() const { return malformed_; }  // lines skipped as unreadable (oversized excluded)
  int64_t oversized() const { return oversized_; }  // lines skipped for exceeding maxLineBytes
  int64_t dropped() const { return dropped_; }      // sum of seq gaps
  int64_t duplicates() const { return duplicates_; }  // records skipped as already seen after restart()
  int64_t errorsLost() const { return errorsLost_; }  // errors counted but not kept (over maxPendingErrors)
  int64_t foldedRecords() const { return foldedRecords_; }  // records the budget folded entries of
  const FoldedEntries& folded() const { return folded_; }   // the counts it folded, over all records
  std::optional<double> lastWallTime() const { return lastWallTime_; }
  std::size_t bufferedBytes() const { return partial_.size(); }  // the partial line held

 private:
  void takeLine(std::string_view line);
  void readHeaderLine(std::string_view line);
  void readStepLine(std::string_view line);
  void takeRecord(RecordLine read, std::string_view line, const std::string& where);
  void report(std::string path, std::string message);

  Limits limits_;
  std::string partial_;
  bool discarding_ = false;  // inside an oversized line: drop bytes until its '\n'
  int64_t lineNumber_ = 0;   // of this connection
  bool expectHeader_ = true;
  bool headerRefused_ = false;  // this connection's header did not read: its records are skipped
  bool hasHeader_ = false;
  bool headerChanged_ = false;
  int version_ = kRecordStreamVersion;
  RecordStream header_;
  Position position_;  // the current run: its id, highest seq and highest step per mode accepted
  Position resumeAt_;  // after a restart or resume() with the same run-id: skip what this covers
  std::vector<ModeStep> pendingSteps_;
  std::vector<RecordError> pendingErrors_;
  int64_t lines_ = 0, steps_ = 0, malformed_ = 0, oversized_ = 0, dropped_ = 0, duplicates_ = 0,
          errorsLost_ = 0, foldedRecords_ = 0;
  FoldedEntries folded_;
  std::optional<double> lastWallTime_;
  std::function<void(std::string_view)> observer_;
};

}  // namespace ampscope
