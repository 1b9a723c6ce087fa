// The per-mode run summary (run_summary.h): totals from hand-made steps, whose expected values are
// worked out in the comments, and the two tables' titles and rows.
#include "ampscope/engine/run_summary.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace ampscope {
namespace {

ModeStep stepOf(int64_t step, double ms) {
  ModeStep s;
  s.mode = PrecisionMode::FP16AmpScaled;
  s.step = step;
  s.loss = 1.0 / static_cast<double>(step);
  s.stepTimeMs = ms;
  s.peakBytes = 1000 * step;
  return s;
}

TEST(RunSummary, TotalsSkipsDivergenceAndTimingAfterWarmUp) {
  ModeSummary summary;
  for (int64_t step = 1; step <= 8; ++step) {
    ModeStep s = stepOf(step, static_cast<double>(step));  // step n takes n ms
    s.skipped = step == 2 || step == 3;
    s.diverged = step >= 7;
    summary.add(s);
  }
  EXPECT_EQ(summary.steps, 8);
  EXPECT_EQ(summary.skipped, 2);
  EXPECT_EQ(summary.divergedAt, 7) << "the first diverged step";
  EXPECT_EQ(summary.firstStepMs, 1.0);
  // Steps 6, 7, 8 come after the 5 warm-up steps: 6 + 7 + 8 = 21 ms over 3 steps.
  EXPECT_EQ(summary.timedMs, 21.0);
  EXPECT_EQ(summary.timedSteps, 3);
  EXPECT_EQ(summary.peakBytes, 8000);
  EXPECT_EQ(summary.last.step, 8);
}

TEST(RunSummary, RoundingTotalsAndZeroGradientShareComeFromInstrumentedSteps) {
  ModeSummary summary;
  ModeStep s = stepOf(1, 1);
  s.instrumented = true;
  s.roundingPoints.push_back({"fc1.input", "fc1", false, {100, 1, 2, 0, 0}});
  s.roundingPoints.push_back({"fc1.grad_input", "fc1", true, {50, 5, 1, 0, 0}});
  s.roundingPoints.push_back({"fc2.grad_input", "fc2", true, {30, 3, 0, 1, 0}});
  ExponentHistogram weight;
  weight.counts.set(1, 6);
  weight.zero = 2;  // 2 of 8 parameter gradient elements are zero
  ExponentHistogram activation;
  activation.zero = 100;   // not a parameter: not counted
  s.tensors.push_back({"net.0.weight", true, 8, weight, weight, TensorRole::Gradient, {}});
  s.tensors.push_back({"act:fc1.out", false, 100, activation, activation, TensorRole::Gradient, {}});
  summary.add(s);
  EXPECT_EQ(summary.backward.elements, 80);       // 50 + 30
  EXPECT_EQ(summary.backward.flushedToZero, 8);   // 5 + 3
  EXPECT_EQ(summary.forward.elements, 100);
  EXPECT_EQ(summary.lastZeroGradShare, 0.25);     // 2 / 8
  EXPECT_EQ(zeroGradShare(stepOf(2, 1)), 0.0) << "no tensors, no share";
}

TEST(RunSummary, TablesHaveATitleAndARowPerMode) {
  ModeSummary summary;
  summary.capability.mode = PrecisionMode::BF16Amp;
  summary.capability.detail = "native";
  summary.capability.pathNote = "native: set by precision-path";
  summary.add(stepOf(1, 2));
  const std::string table = summaryTable({summary});
  EXPECT_EQ(table.rfind("Summary (step time: mean after 5 warm-up steps;", 0), 0u) << table;
  EXPECT_NE(table.find("\nbf16-amp "), std::string::npos) << table;
  EXPECT_NE(table.find("  native\n"), std::string::npos) << table;
  // Under the table, why each low-precision mode runs its path.
  EXPECT_NE(table.find("\n  bf16-amp \u00b7 native: set by precision-path\n"), std::string::npos) << table;

  MemoryLedger ledger;
  ledger.parameters = 1024 * 1024;  // 1.00 MiB
  ledger.peak = 3 * 1024 * 1024 / 2;  // 1.50 MiB
  const std::string memory = memoryLedgerTable({{PrecisionMode::FP32, ledger}});
  EXPECT_EQ(memory.rfind("Memory ledger of each mode's last step (counting allocator)\n", 0), 0u) << memory;
  EXPECT_NE(memory.find("\nfp32 "), std::string::npos) << memory;
  EXPECT_NE(memory.find("1.00 MiB"), std::string::npos) << memory;
  EXPECT_NE(memory.find("1.50 MiB\n"), std::string::npos) << memory;
}

TEST(RunSummary, QuantisedModesGetTheirSaturatedAndFlushedShares) {
  ModeSummary summary;
  summary.capability.mode = PrecisionMode::Fp8Delayed;
  summary.capability.native = false;
  summary.capability.detail = "emulated";
  ModeStep s = stepOf(1, 2);
  QuantTensorStats input;
  input.name = "fc1.input";
  input.numel = 1000;
  input.measured = true;
  input.saturated = 10;  // 1 %
  input.flushed = 50;    // 5 %
  QuantTensorStats grad = input;
  grad.name = "fc1.grad_output";
  grad.backward = true;
  grad.saturated = 0;
  grad.flushed = 800;  // 80 %
  QuantTensorStats unmeasured = input;  // a plain step's scalars carry no counts
  unmeasured.measured = false;
  s.quantized = {input, grad, unmeasured};
  summary.add(s);
  EXPECT_EQ(summary.quantForward.elements, 1000);
  EXPECT_EQ(summary.quantBackward.flushed, 800);
  const std::string table = summaryTable({summary});
  EXPECT_NE(table.find("\nFP8/microscaling GEMM operands"), std::string::npos) << table;
  // mode, fwd elements, fwd sat %, fwd flush %, bwd elements, bwd sat %, bwd flush %
  EXPECT_NE(table.find("fp8-delayed                1000            1            5          1000            0           80\n"),
            std::string::npos)
      << table;
  ModeSummary plain;
  plain.capability.mode = PrecisionMode::FP32;
  plain.capability.native = true;
  plain.capability.detail = "native";
  plain.add(stepOf(1, 2));
  EXPECT_EQ(summaryTable({plain}).find("FP8"), std::string::npos);
}

TEST(RunSummary, ANegativeNanLossPrintsAsNanInTheProgressLineAndTheTable) {
  // A NaN with its sign bit set is what an FP16 overflow in a subtraction leaves; iostreams print it
  // "-nan". The one number formatter spells every NaN "nan".
  ModeStep s = stepOf(1, 1.0);
  s.loss = -std::numeric_limits<double>::quiet_NaN();
  ASSERT_TRUE(std::signbit(s.loss));
  StepRecord record;
  record.step = 1;
  record.modes.push_back(s);
  const std::string line = progressLine(record);
  EXPECT_NE(line.find(" nan"), std::string::npos) << line;
  EXPECT_EQ(line.find("-nan"), std::string::npos) << line;
  ModeSummary summary;
  summary.capability.mode = s.mode;
  summary.add(s);
  const std::string table = summaryTable({summary});
  EXPECT_EQ(table.find("-nan"), std::string::npos) << table;
  EXPECT_NE(table.find("nan"), std::string::npos) << table;
}

}  // namespace
}  // namespace ampscope
