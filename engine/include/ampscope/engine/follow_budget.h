// The memory budget of followed data, in one place (docs/following.md gives the figures measured with it).
// A followed stream is written by someone else's training script: what one record line, and what a run of
// days, may make AmpScope hold is capped here, and whatever a cap leaves out is counted where it is left
// out (ModeStep::folded, the store's buckets), so the counts shown stay exact.
//
// Per record line (RecordStreamReader, readRecordStreamLine): a line longer than kMaxRecordLineBytes is
// skipped; the long lists of a record are read item by item (never as one JSON tree), the first
// RecordBudget items of each are kept and the rest folded: counted, and for parameter gradients their
// histograms summed, rounding points' counts summed into one "(folded)" point. Per run (TelemetryStore,
// FollowController): older steps are folded into buckets as for the engine's own runs (StoreLimits), per-
// layer counts beyond kMaxLayersPerSeries layers go to one "(other layers)" layer, and the full-resolution
// copy kept for saving and the journal is thinned past kMaxKeptSteps steps and kMaxKeptTensorEntries
// tensor entries.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ampscope {

// A record line longer than this is skipped whole (never held): RecordStreamReader::Limits' default.
inline constexpr std::size_t kMaxRecordLineBytes = std::size_t{64} << 20;

// How many entries of each list of one record are kept; the rest are folded (ModeStep::folded).
struct RecordBudget {
  std::size_t tensors = 1024;         // "tensors": a model with more parameters than this is rare
  std::size_t roundingPoints = 1024;  // "rounding-points": the rest summed into one "(folded)" point
  std::size_t quantized = 256;        // "quantized": each kept one is a scale-plot series in the store
  std::size_t names = 1024;           // "nonfinite": parameter names; the rest counted
};

// The name of the rounding point (and the layer) that holds the summed counts of folded rounding points.
inline constexpr const char* kFoldedRoundingPoint = "(folded)";

// Per series of the store: layers beyond this share one layer, kOtherLayers (per-layer counts are kept
// per instrumented step, so a stream naming 100,000 layers would cost 100,000 counts per step).
inline constexpr std::size_t kMaxLayersPerSeries = 256;
inline constexpr const char* kOtherLayers = "(other layers)";

// The full-resolution copy of a followed run (saving, the autosave journal): past kMaxKeptSteps steps
// every other one is dropped (skipped steps stay); past kMaxKeptInstrumentedSteps instrumented steps,
// or kMaxKeptTensorEntries tensor entries in all, every other instrumented step gives up its tensors.
inline constexpr std::size_t kMaxKeptSteps = 200000;
inline constexpr std::size_t kMaxKeptInstrumentedSteps = 2000;
inline constexpr std::size_t kMaxKeptTensorEntries = 200000;

}  // namespace ampscope
