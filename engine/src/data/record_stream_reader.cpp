#include "ampscope/engine/record_stream_reader.h"

#include <utility>

#include "ampscope/engine/json.h"

namespace ampscope {

RecordStreamReader::RecordStreamReader() : RecordStreamReader(Limits{}) {}

RecordStreamReader::RecordStreamReader(Limits limits) : limits_(limits) {
  if (limits_.maxLineBytes == 0) limits_.maxLineBytes = 1;
}

void RecordStreamReader::feed(std::string_view bytes) {
  while (!bytes.empty()) {
    const std::size_t newline = bytes.find('\n');
    const std::string_view piece = bytes.substr(0, newline);
    if (discarding_) {
      // Inside an oversized line: nothing of it is kept.
    } else if (partial_.size() + piece.size() > limits_.maxLineBytes) {
      ++lineNumber_;
      ++lines_;
      ++oversized_;
      report("line " + std::to_string(lineNumber_),
             "longer than " + std::to_string(limits_.maxLineBytes) + " bytes; skipped");
      partial_.clear();
      partial_.shrink_to_fit();
      discarding_ = true;
    } else if (newline == std::string_view::npos) {
      partial_.append(piece);
    } else if (partial_.empty()) {
      ++lineNumber_;
      ++lines_;
      takeLine(piece);
    } else {
      partial_.append(piece);
      ++lineNumber_;
      ++lines_;
      const std::string line = std::move(partial_);
      partial_.clear();
      takeLine(line);
    }
    if (newline == std::string_view::npos) return;
    discarding_ = false;
    bytes.remove_prefix(newline + 1);
  }
}

void RecordStreamReader::Position::add(const ModeStep& step) {
  if (step.seq > lastSeq) lastSeq = step.seq;
  for (auto& [mode, last] : lastSteps) {
    if (mode != step.mode) continue;
    if (step.step > last) last = step.step;
    return;
  }
  lastSteps.emplace_back(step.mode, step.step);
}

int64_t RecordStreamReader::Position::lastStep(PrecisionMode mode) const {
  for (const auto& [m, last] : lastSteps)
    if (m == mode) return last;
  return 0;
}

void RecordStreamReader::restart() {
  partial_.clear();
  discarding_ = false;
  lineNumber_ = 0;
  expectHeader_ = true;
  headerRefused_ = false;
  resumeAt_ = position_;
}

void RecordStreamReader::resume(Position position) {
  position_ = position;
  resumeAt_ = std::move(position);
}

bool RecordStreamReader::headerChanged() { return std::exchange(headerChanged_, false); }

std::vector<ModeStep> RecordStreamReader::takeSteps() { return std::exchange(pendingSteps_, {}); }

std::vector<RecordError> RecordStreamReader::takeErrors() { return std::exchange(pendingErrors_, {}); }

void RecordStreamReader::report(std::string path, std::string message) {
  if (pendingErrors_.size() >= limits_.maxPendingErrors) {
    ++errorsLost_;
    return;
  }
  pendingErrors_.push_back(RecordError{std::move(path), std::move(message)});
}

void RecordStreamReader::takeLine(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line.find_first_not_of(" \t") == std::string_view::npos) return;  // blank lines are allowed
  if (expectHeader_) {
    readHeaderLine(line);
  } else {
    readStepLine(line);
  }
}

void RecordStreamReader::readHeaderLine(std::string_view line) {
  const std::string where = "line " + std::to_string(lineNumber_);
  // Read as a version 1 record first: a header is recognised by its "format", and a first line that is
  // an object without one is AmpScope 0.1.0's headerless stream. Its lists are never held as a tree.
  RecordLine read = readRecordStreamLine(line, 1, limits_.budget);
  const bool looksLikeHeader = read.kind == RecordLine::Kind::Header;
  if (read.object && !looksLikeHeader && !hasHeader_ && !headerRefused_) {
    // AmpScope 0.1.0 wrote records from the first line on (version 1: no header).
    expectHeader_ = false;
    version_ = 1;
    hasHeader_ = true;
    header_ = RecordStream{};
    header_.version = 1;
    takeRecord(std::move(read), line, where);
    return;
  }
  if (!looksLikeHeader) {
    // The header says how to read the records that follow: without it they are skipped.
    ++malformed_;
    if (headerRefused_) {
      report(where, "skipped (the stream's header did not read)");
    } else {
      report(where, "expected the stream's header line first" +
                        (read.kind == RecordLine::Kind::NotJson
                             ? " (not JSON: " + read.parseError.message + ")"
                             : std::string()));
    }
    return;
  }
  RecordError error;
  auto header = readRecordStreamHeader(line, &error);
  if (!header) {
    ++malformed_;
    headerRefused_ = true;
    report(error.path.empty() ? where : where + ": " + error.path, error.message);
    return;
  }
  headerRefused_ = false;
  expectHeader_ = false;
  version_ = header->version;
  // (position_ names a run before the first header only after resume().)
  const bool sameRun = !header->source.runId.empty() && header->source.runId == position_.runId;
  if (hasHeader_ && !sameRun) headerChanged_ = true;
  if (!sameRun) {
    position_ = Position{};
    resumeAt_ = Position{};
    lastWallTime_.reset();
  }
  if (!sameRun && observer_) observer_(line);
  position_.runId = header->source.runId;
  header_ = std::move(*header);
  header_.steps.clear();
  hasHeader_ = true;
}

void RecordStreamReader::readStepLine(std::string_view line) {
  const std::string where = "line " + std::to_string(lineNumber_);
  RecordLine read = readRecordStreamLine(line, version_, limits_.budget);
  if (read.kind == RecordLine::Kind::Header) {
    // A header in the middle: the writer started again on the same connection (or a file was concatenated).
    expectHeader_ = true;
    readHeaderLine(line);
    return;
  }
  takeRecord(std::move(read), line, where);
}

void RecordStreamReader::takeRecord(RecordLine read, std::string_view line, const std::string& where) {
  if (read.kind == RecordLine::Kind::NotJson) {
    ++malformed_;
    report(where + ", column " + std::to_string(read.parseError.column),
           "not JSON (" + read.parseError.message + ")");
    return;
  }
  if (!read.step) {
    ++malformed_;
    report(read.error.path.empty() ? where : where + ": " + read.error.path, read.error.message);
    return;
  }
  ModeStep& step = *read.step;
  // Already seen before a restart or resume() of the same run: by seq when the writer numbers its
  // records (a probe), else by the mode's step (the engine's stream).
  const int64_t lastStep = resumeAt_.lastStep(step.mode);  // 0: none of this mode seen
  const bool seen = step.seq > 0 ? step.seq <= resumeAt_.lastSeq : lastStep > 0 && step.step <= lastStep;
  if (seen) {
    ++duplicates_;
    return;
  }
  if (step.seq > 0 && position_.lastSeq > 0 && step.seq > position_.lastSeq + 1)
    dropped_ += step.seq - position_.lastSeq - 1;
  position_.add(step);
  if (step.wallTime != 0) lastWallTime_ = step.wallTime;
  if (observer_) observer_(line);  // the line as it came, whatever the budget folded
  if (step.folded.any()) {
    ++foldedRecords_;
    folded_.addCounts(step.folded);
  }
  ++steps_;
  pendingSteps_.push_back(std::move(step));
}

}  // namespace ampscope
