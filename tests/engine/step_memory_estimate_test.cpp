// The schema's step memory estimate (config_schema.h) against what the counting allocator measures when
// the engine really trains: the estimate's bytes per example must never be below the measured growth of
// a step's peak with the batch (a refused batch is one that would not fit; an accepted one must not need
// more than the message said), and must stay within 2.5x of it (an estimate, but of the right size).
#include <gtest/gtest.h>

#include <algorithm>

#include "ampscope/engine/comparison.h"
#include "ampscope/engine/config_schema.h"
#include "ampscope/engine/run_config.h"

namespace ampscope {
namespace {

// The largest peak of any mode's second step (the first allocates the optimizer state).
int64_t measuredPeak(RunConfig config, int64_t batch) {
  config.batchSize = batch;
  config.steps = 2;
  config.instrumentEvery = 1000;
  Comparison comparison(config);
  comparison.step();
  const StepRecord second = comparison.step();
  int64_t peak = 0;
  for (const ModeStep& mode : second.modes) peak = std::max(peak, mode.peakBytes);
  return peak;
}

double estimatedBytes(RunConfig config, int64_t batch) {
  config.batchSize = batch;
  return stepMemoryEstimate(config).bytes;
}

TEST(StepMemoryEstimate, CoversWhatAStepMeasurablyUsesPerExampleWithinAFactorOf2_5) {
  for (ModelKind model : {ModelKind::TinyMLP, ModelKind::DeepMLP, ModelKind::TinyTransformer}) {
    RunConfig config = presetFor(model);
    // The scaled FP16 mode keeps both the float32 and the rounded copies of the activations: the most.
    config.modes = {PrecisionMode::FP32, PrecisionMode::FP16AmpScaled, PrecisionMode::BF16Amp};
    const int64_t small = 64, large = 512;
    const double measured =
        static_cast<double>(measuredPeak(config, large) - measuredPeak(config, small)) / (large - small);
    const double estimated = (estimatedBytes(config, large) - estimatedBytes(config, small)) / (large - small);
    ASSERT_GT(measured, 0) << modelName(model);
    EXPECT_GE(estimated, measured) << modelName(model) << ": the estimate lets through batches that need more";
    EXPECT_LE(estimated, 2.5 * measured) << modelName(model) << ": measured " << measured << " B per example";
  }
}

}  // namespace
}  // namespace ampscope
