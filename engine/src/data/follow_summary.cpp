#include "ampscope/engine/follow_summary.h"

#include <cmath>
#include <iomanip>
#include <sstream>
#include <utility>

#include "ampscope/engine/follow_budget.h"
#include "ampscope/engine/number_text.h"

namespace ampscope {

namespace {

// A value rounded for reading (the stream keeps every digit); non-finite as numberText spells it.
std::string readable(double value, int precision) {
  if (!std::isfinite(value)) return numberText(value);
  std::ostringstream out;
  out << std::setprecision(precision) << value;
  return out.str();
}

std::string percent(double share) { return readable(100.0 * share, 3) + "%"; }

}  // namespace

std::optional<UnderflowLeader> worstFp16Underflow(const ModeStep& step) {
  std::optional<UnderflowLeader> worst;
  const auto fp16 = static_cast<std::size_t>(RangeFormat::FP16);
  for (const auto& t : step.tensors) {
    const ExponentHistogram& h = t.scaled;
    if (!h.formatsMeasured) continue;
    const int64_t values = h.total();
    if (values <= 0) continue;
    const double share =
        static_cast<double>(h.formats[fp16].flushed + h.formats[fp16].subnormal) / static_cast<double>(values);
    if (!worst || share > worst->share) worst = UnderflowLeader{t.name, share};
  }
  return worst;
}

std::string followLine(const StreamSource& source, const ModeStep& step) {
  std::ostringstream out;
  if (!source.run.empty()) out << "run " << source.run << " ";
  if (source.worldSize > 1) out << "r" << source.rank << "/" << source.worldSize << "  ";
  out << "step " << step.step << "  " << modeName(step.mode) << "  loss " << readable(step.loss, 5);
  if (step.lossScale != 1.0) out << "  scale " << readable(step.lossScale, 6);
  if (step.skipped) out << "  SKIPPED";
  out << "  grad-norm " << readable(step.gradNormBeforeClip, 4);
  if (const auto worst = worstFp16Underflow(step)) {
    out << "  underflow " << worst->name << " " << percent(worst->share);
  }
  if (!step.nonFinite.empty()) {
    out << "  nonfinite " << step.nonFinite.front();
    if (step.nonFinite.size() > 1) out << " (+" << step.nonFinite.size() - 1 << ")";
  }
  if (step.diverged) out << "  DIVERGED";
  const FoldedEntries& folded = step.folded;
  if (folded.any()) {
    out << "  folded";
    const char* sep = " ";
    const std::pair<int64_t, const char*> lists[] = {{folded.tensors, "tensors"},
                                                     {folded.roundingPoints, "rounding-points"},
                                                     {folded.quantized, "quantized"},
                                                     {folded.names, "nonfinite-names"}};
    for (const auto& [count, what] : lists) {
      if (count == 0) continue;
      out << sep << count << " " << what;
      sep = ", ";
    }
  }
  out << "\n";
  return out.str();
}

void FollowTotals::add(const ModeStep& step) {
  if (records == 0) firstStep = step.step;
  ++records;
  lastStep = step.step;
  skipped += step.skipped ? 1 : 0;
  if (step.folded.any()) {
    ++foldedRecords;
    folded.addCounts(step.folded);
  }
  last = step;
  last.tensors.clear();  // the totals keep no histograms
  last.roundingPoints.clear();
  if (firstNonFiniteStep == 0 && !step.nonFinite.empty()) {
    firstNonFiniteStep = step.step;
    firstNonFiniteName = step.nonFinite.front();
  }
  auto worst = worstFp16Underflow(step);
  if (worst && (!worstUnderflow || worst->share > worstUnderflow->share)) {
    worstUnderflow = std::move(worst);
    worstUnderflowStep = step.step;
  }
}

std::string followSummary(const std::string& target, const FollowTotals& totals, int64_t dropped,
                          int64_t malformed, int64_t oversized, int64_t reconnects) {
  std::ostringstream out;
  out << "followed " << target << ": " << totals.records << (totals.records == 1 ? " record" : " records");
  if (totals.records > 0) out << " (steps " << totals.firstStep << "-" << totals.lastStep << ")";
  out << ", " << totals.skipped << " skipped, " << dropped << " dropped, " << malformed << " malformed, "
      << oversized << " oversized, " << reconnects << (reconnects == 1 ? " reconnect" : " reconnects") << "\n";
  if (totals.foldedRecords > 0) {
    const RecordBudget budget;
    const FoldedEntries& f = totals.folded;
    out << "record budget: " << totals.foldedRecords << (totals.foldedRecords == 1 ? " record" : " records")
        << " over it (kept per record: the first " << budget.tensors << " tensors, " << budget.roundingPoints
        << " rounding points, " << budget.quantized << " quantized, " << budget.names
        << " nonfinite names); folded " << f.tensors << " tensor entries (" << f.parameters
        << " parameter gradients, histograms summed), " << f.roundingPoints << " rounding points (counts summed), "
        << f.quantized << " quantized entries, " << f.names << " nonfinite names\n";
  }
  if (totals.records == 0) return out.str();
  out << "last: step " << totals.last.step << " " << modeName(totals.last.mode) << " loss "
      << readable(totals.last.loss, 5) << " scale " << readable(totals.last.lossScale, 6) << "\n";
  if (totals.firstNonFiniteStep > 0) {
    out << "first non-finite gradient: step " << totals.firstNonFiniteStep << ", " << totals.firstNonFiniteName
        << "\n";
  } else {
    out << "first non-finite gradient: none named\n";
  }
  if (totals.worstUnderflow) {
    out << "worst FP16 underflow: step " << totals.worstUnderflowStep << ", " << totals.worstUnderflow->name << ", "
        << percent(totals.worstUnderflow->share) << " of its gradient values flush or are subnormal in FP16"
        << (totals.folded.tensors > 0 ? " (ranked among the kept tensors)" : "") << "\n";
  }
  return out.str();
}

}  // namespace ampscope
