// libFuzzer target: RecordStreamReader, the incremental reader of followed streams. The first 8 bytes
// of the input choose how the rest is split into feed() calls; the reader must give the same records,
// counts and errors whatever the split (a line is a line however it arrives), hold no more than its
// per-line limit of a partial line, keep no more errors than its bound, and never crash. A second
// reader restarts (a reconnect) at a chosen point and must merely survive.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "ampscope/engine/record_stream_reader.h"

namespace {

struct Outcome {
  std::size_t steps = 0;
  std::size_t errors = 0;
  int64_t malformed = 0, oversized = 0, dropped = 0, duplicates = 0, lines = 0;
};

Outcome take(ampscope::RecordStreamReader& reader, Outcome outcome) {
  outcome.steps += reader.takeSteps().size();
  outcome.errors += reader.takeErrors().size();
  return outcome;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  uint64_t seed = 0x9E3779B97F4A7C15ull;
  if (size >= 8) {
    std::memcpy(&seed, data, 8);
    data += 8;
    size -= 8;
  }
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  ampscope::RecordStreamReader::Limits limits;
  limits.maxLineBytes = 4096;    // small, so oversized lines happen
  limits.maxPendingErrors = 8;   // small, so the bound is reached

  ampscope::RecordStreamReader whole(limits);
  whole.feed(text);
  Outcome once = take(whole, {});

  ampscope::RecordStreamReader pieces(limits);
  Outcome split;
  std::size_t at = 0;
  uint64_t state = seed | 1;
  while (at < text.size()) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    const std::size_t length = 1 + static_cast<std::size_t>(state % 97);
    pieces.feed(text.substr(at, length));
    at += length;
    if (pieces.bufferedBytes() > limits.maxLineBytes) std::abort();
    split = take(pieces, split);  // taking often keeps the error bound per batch
  }
  if (once.steps != split.steps || whole.malformed() != pieces.malformed() ||
      whole.oversized() != pieces.oversized() || whole.dropped() != pieces.dropped() ||
      whole.lines() != pieces.lines() || whole.steps() != pieces.steps()) {
    std::abort();
  }
  if (once.errors > limits.maxPendingErrors) std::abort();

  ampscope::RecordStreamReader reconnecting(limits);
  const std::size_t cut = size > 0 ? static_cast<std::size_t>(seed % (size + 1)) : 0;
  reconnecting.feed(text.substr(0, cut));
  reconnecting.restart();
  reconnecting.feed(text);
  (void)take(reconnecting, {});
  (void)reconnecting.headerChanged();
  return 0;
}
