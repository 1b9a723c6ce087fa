// Reads a record stream that arrives in pieces (a file being appended to, a TCP connection): feed()
// takes whatever bytes came, parses every complete line and keeps a partial last line until its '\n'
// arrives. Damage is reported, never fatal: a line that is not JSON or not a record, a header of a newer
// version, or a line longer than Limits::maxLineBytes is skipped and reported as "line N: ...", and the
// records around it are read. An oversized line is discarded as it arrives (the reader never holds
// more than maxLineBytes of it), so memory stays bounded whatever the peer sends. Never throws.
//
// Sequence numbers ("seq", written by training-script probes) show records the writer dropped: a gap
// adds to dropped(). After restart() (a reconnect, a reopened file) the stream starts again with its
// header; when it names the same run-id, records already seen (seq <= the last one) are skipped, so a
// probe that resends its history produces no duplicates. A header with another run-id means a new run:
// headerChanged() says so once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ampscope/engine/record_codec.h"
#include "ampscope/engine/telemetry.h"

namespace ampscope {

class RecordStreamReader {
 public:
  struct Limits {
    std::size_t maxLineBytes = 64u << 20;
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
  std::optional<double> lastWallTime() const { return lastWallTime_; }
  std::size_t bufferedBytes() const { return partial_.size(); }  // the partial line held

 private:
  void takeLine(std::string_view line);
  void readHeaderLine(std::string_view line);
  void readStepLine(std::string_view line);
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
  std::string lastRunId_;
  int64_t lastSeq_ = 0;      // highest seq accepted in this run
  int64_t resumeAfter_ = 0;  // after a restart with the same run-id: skip seq <= this
  std::vector<ModeStep> pendingSteps_;
  std::vector<RecordError> pendingErrors_;
  int64_t lines_ = 0, steps_ = 0, malformed_ = 0, oversized_ = 0, dropped_ = 0, duplicates_ = 0,
          errorsLost_ = 0;
  std::optional<double> lastWallTime_;
  std::function<void(std::string_view)> observer_;
};

}  // namespace ampscope
