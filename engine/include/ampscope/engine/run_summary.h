// What a finished run comes to, per precision mode: the final loss, skipped steps, divergence, mean
// step time after warm-up, peak bytes and the backward flush-to-zero totals; and the text tables the
// CLI prints (the summary and the memory ledger). No torch: built from ModeStep records alone.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ampscope/engine/telemetry.h"

namespace ampscope {

// Steps 1..kSummaryWarmupSteps are not timed (the first iterations allocate and warm caches).
inline constexpr int64_t kSummaryWarmupSteps = 5;

struct ModeSummary {
  ModeCapability capability;
  ModeStep last;
  int64_t steps = 0;
  int64_t skipped = 0;
  int64_t divergedAt = 0;
  double firstStepMs = 0;
  double timedMs = 0;
  int64_t timedSteps = 0;
  int64_t peakBytes = 0;
  RoundingCounts backward;  // summed over instrumented steps
  RoundingCounts forward;
  double lastZeroGradShare = 0;  // parameter gradients exactly zero (unscaled), last instrumented step
  // FP8/microscaling modes: quantised elements, saturated and flushed, over the measured (instrumented)
  // steps, forward operands and backward gradients apart.
  struct QuantTotals {
    int64_t elements = 0;
    int64_t saturated = 0;
    int64_t flushed = 0;
  };
  QuantTotals quantForward;
  QuantTotals quantBackward;

  void add(const ModeStep& step);  // one more step of this mode
};

// The share of parameter-gradient elements that are exactly zero (unscaled histograms); 0 without any.
double zeroGradShare(const ModeStep& step);

// One progress line of a run: "step     10  fp32 2.301  fp16-amp-scaled 2.302 (scale 65536) ...", '\n'-terminated.
std::string progressLine(const StepRecord& record);

// Why a mode runs the path it runs, one line without '\n', or empty for FP32 (which has one path):
// "bf16-amp · emulated: 5.2x faster than native on this CPU (native 4761 us, emulated 915 us a TinyMLP
// step)"; the timings only where they were taken.
std::string pathLine(const ModeCapability& capability);

// The per-mode summary table, a title line first, '\n'-terminated lines; then the path line of each
// low-precision mode. When a mode quantised GEMM operands (FP8/microscaling), a second table gives its
// saturated and flushed shares.
std::string summaryTable(const std::vector<ModeSummary>& summaries);

struct ModeLedger {
  PrecisionMode mode = PrecisionMode::FP32;
  MemoryLedger ledger;
};
// The memory ledger of each mode's last step, a title line first.
std::string memoryLedgerTable(const std::vector<ModeLedger>& ledgers);

}  // namespace ampscope
