// What `ampscope-cli follow` prints about a followed stream: one compact line per record and a summary
// at the end. No torch, no Qt: built from the stream's header and ModeStep records alone.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "ampscope/engine/record_codec.h"
#include "ampscope/engine/telemetry.h"

namespace ampscope {

// The tensor whose gradients lose the most to FP16's range: the share of its values that round to zero
// or to a subnormal in FP16, from the histogram of the values as the backward pass produced them (the
// scaled one: what an FP16 gradient held). Needs histograms with "formats"; nullopt without any.
struct UnderflowLeader {
  std::string name;
  double share = 0;  // (flushed + subnormal) / values, in [0, 1]
};
std::optional<UnderflowLeader> worstFp16Underflow(const ModeStep& step);

// "run my-run r1/2  step 21  fp16-amp-scaled  loss 0.04762  scale 65536  SKIPPED  grad-norm inf
//  underflow net.0.weight 12.5%  nonfinite net.0.weight (+1)  folded 199000 tensors", '\n'-terminated.
// Fields that are not there (no histograms, nothing non-finite, nothing folded) are left out.
std::string followLine(const StreamSource& source, const ModeStep& step);

// Totals over a followed stream, for the final summary.
struct FollowTotals {
  int64_t records = 0;
  int64_t firstStep = 0;
  int64_t lastStep = 0;
  int64_t skipped = 0;
  ModeStep last;
  int64_t firstNonFiniteStep = 0;   // the first record that named non-finite gradients
  std::string firstNonFiniteName;   // the first parameter it named
  std::optional<UnderflowLeader> worstUnderflow;  // the largest share of any record
  int64_t worstUnderflowStep = 0;
  int64_t foldedRecords = 0;  // records whose lists the reader's budget folded
  FoldedEntries folded;       // what it folded (counts)

  void add(const ModeStep& step);
};

// The summary lines ('\n'-terminated): records and steps, skipped, then what the reader counted
// (dropped, malformed, oversized lines), what the record budget folded, the last loss, the first
// non-finite gradient, the worst underflow.
std::string followSummary(const std::string& target, const FollowTotals& totals, int64_t dropped,
                          int64_t malformed, int64_t oversized, int64_t reconnects);

}  // namespace ampscope
