#include "ampscope/engine/run_summary.h"

#include "ampscope/engine/number_text.h"

#include <cmath>
#include <algorithm>
#include <cstdio>
#include <iomanip>
#include <sstream>

namespace ampscope {

namespace {

std::string formatBytes(int64_t bytes) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  return buffer;
}

// A table cell rounded for reading (the files keep every digit).
std::string formatNumber(double value, int precision) {
  if (!std::isfinite(value)) return numberText(value);  // "nan", never "-nan"
  std::ostringstream out;
  out << std::setprecision(precision) << value;
  return out.str();
}

}  // namespace

void ModeSummary::add(const ModeStep& s) {
  last = s;
  ++steps;
  skipped += s.skipped ? 1 : 0;
  if (s.diverged && divergedAt == 0) divergedAt = s.step;
  if (s.step == 1) firstStepMs = s.stepTimeMs;
  if (s.step > kSummaryWarmupSteps) {
    timedMs += s.stepTimeMs;
    ++timedSteps;
  }
  peakBytes = std::max(peakBytes, s.peakBytes);
  if (s.instrumented) {
    for (const auto& p : s.roundingPoints) (p.backward ? backward : forward).add(p.counts);
    lastZeroGradShare = zeroGradShare(s);
  }
  for (const auto& q : s.quantized) {
    if (!q.measured) continue;
    QuantTotals& totals = q.backward ? quantBackward : quantForward;
    totals.elements += q.numel;
    totals.saturated += q.saturated;
    totals.flushed += q.flushed;
  }
}

double zeroGradShare(const ModeStep& step) {
  int64_t zero = 0;
  int64_t total = 0;
  for (const auto& t : step.tensors) {
    if (!t.isParameter) continue;
    zero += t.unscaled.zero;
    total += t.unscaled.total();
  }
  return total > 0 ? static_cast<double>(zero) / static_cast<double>(total) : 0.0;
}

std::string progressLine(const StepRecord& record) {
  std::ostringstream out;
  out << "step " << std::setw(6) << record.step;
  for (const auto& s : record.modes) {
    out << "  " << modeName(s.mode) << " " << formatNumber(s.loss, 4);
    if (s.lossScale != 1.0) out << " (scale " << s.lossScale << ")";
    if (s.diverged) out << " DIVERGED";
  }
  out << "\n";
  return out.str();
}

std::string pathLine(const ModeCapability& capability) {
  if (capability.mode == PrecisionMode::FP32 || capability.pathNote.empty()) return std::string();
  std::string line = modeName(capability.mode) + " \u00b7 " + capability.pathNote;
  if (capability.nativeStepUs > 0 && capability.emulatedStepUs > 0) {
    line += " (native " + std::to_string(std::llround(capability.nativeStepUs)) + " us, emulated " +
            std::to_string(std::llround(capability.emulatedStepUs)) + " us a step)";
  }
  if (!capability.kernelNote.empty()) line += "; " + capability.kernelNote;
  return line;
}

std::string summaryTable(const std::vector<ModeSummary>& summaries) {
  std::ostringstream out;
  out << "Summary (step time: mean after " << kSummaryWarmupSteps
      << " warm-up steps; underflow: backward values flushed to zero at rounding points, summed "
         "over instrumented steps)\n";
  out << std::left << std::setw(17) << "mode" << std::right << std::setw(12) << "final loss" << std::setw(9)
      << "skipped" << std::setw(14) << "flushed(bwd)" << std::setw(11) << "flushed %" << std::setw(12)
      << "zero grad %" << std::setw(11) << "ms/step" << std::setw(12) << "first ms" << std::setw(12) << "peak"
      << "  run\n";
  for (const auto& s : summaries) {
    const double flushedPct = s.backward.elements > 0 ? 100.0 * static_cast<double>(s.backward.flushedToZero) /
                                                            static_cast<double>(s.backward.elements)
                                                      : 0.0;
    const double mean = s.timedSteps > 0 ? s.timedMs / static_cast<double>(s.timedSteps) : s.firstStepMs;
    std::string loss = formatNumber(s.last.loss, 5);
    if (s.divergedAt > 0) loss += " (diverged@" + std::to_string(s.divergedAt) + ")";
    out << std::left << std::setw(17) << modeName(s.capability.mode) << std::right << std::setw(12) << loss
        << std::setw(9) << s.skipped << std::setw(14) << s.backward.flushedToZero << std::setw(11)
        << formatNumber(flushedPct, 3) << std::setw(12) << formatNumber(100.0 * s.lastZeroGradShare, 3)
        << std::setw(11) << formatNumber(mean, 3) << std::setw(12) << formatNumber(s.firstStepMs, 3)
        << std::setw(12) << formatBytes(s.peakBytes) << "  " << (s.capability.native ? "native" : "emulated")
        << "\n";
  }
  for (const auto& s : summaries) {
    const std::string line = pathLine(s.capability);
    if (!line.empty()) out << "  " << line << "\n";
  }
  const bool anyQuantised = std::any_of(summaries.begin(), summaries.end(), [](const ModeSummary& s) {
    return s.quantForward.elements + s.quantBackward.elements > 0;
  });
  if (!anyQuantised) return out.str();
  auto share = [](int64_t part, int64_t whole) {
    return whole > 0 ? formatNumber(100.0 * static_cast<double>(part) / static_cast<double>(whole), 3) : "-";
  };
  out << "\nFP8/microscaling GEMM operands (instrumented steps; saturated: clamped to the format's max, "
         "flushed: non-zero rounded to zero, after scaling)\n";
  out << std::left << std::setw(17) << "mode" << std::right << std::setw(14) << "fwd elements" << std::setw(13)
      << "fwd sat %" << std::setw(13) << "fwd flush %" << std::setw(14) << "bwd elements" << std::setw(13)
      << "bwd sat %" << std::setw(13) << "bwd flush %" << "\n";
  for (const auto& s : summaries) {
    const auto& f = s.quantForward;
    const auto& b = s.quantBackward;
    if (f.elements + b.elements == 0) continue;
    out << std::left << std::setw(17) << modeName(s.capability.mode) << std::right << std::setw(14) << f.elements
        << std::setw(13) << share(f.saturated, f.elements) << std::setw(13) << share(f.flushed, f.elements)
        << std::setw(14) << b.elements << std::setw(13) << share(b.saturated, b.elements) << std::setw(13)
        << share(b.flushed, b.elements) << "\n";
  }
  return out.str();
}

std::string memoryLedgerTable(const std::vector<ModeLedger>& ledgers) {
  std::ostringstream out;
  out << "Memory ledger of each mode's last step (counting allocator)\n"
      << std::left << std::setw(17) << "mode" << std::right << std::setw(13) << "parameters" << std::setw(13)
      << "gradients" << std::setw(13) << "optimizer" << std::setw(13) << "activations" << std::setw(13)
      << "temporaries" << std::setw(13) << "peak" << "\n";
  for (const auto& [mode, ledger] : ledgers) {
    out << std::left << std::setw(17) << modeName(mode) << std::right;
    for (int64_t bytes : {ledger.parameters, ledger.gradients, ledger.optimizerState, ledger.activations,
                          ledger.temporaries, ledger.peak}) {
      out << std::setw(13) << formatBytes(bytes);
    }
    out << "\n";
  }
  return out.str();
}

}  // namespace ampscope
