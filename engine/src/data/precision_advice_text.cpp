// adviceText(): the readable report of `ampscope-cli advise` (precision_advice.h).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "ampscope/engine/number_text.h"
#include "ampscope/engine/precision_advice.h"

namespace ampscope {

namespace {

std::string cell(Verdict verdict) {
  switch (verdict) {
    case Verdict::Ok: return "ok";
    case Verdict::Caution: return "caution";
    case Verdict::Unsafe: return "UNSAFE";
    case Verdict::TooFewSteps: return "few";
  }
  return "?";
}

std::string pad(const std::string& text, size_t width) {
  return text.size() >= width ? text + " " : text + std::string(width - text.size(), ' ');
}

std::string percent(double share) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g%%", share * 100);
  return buffer;
}

std::string db(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f", value);
  return buffer;
}

std::string pow2(int log2) { return "2^" + std::to_string(log2); }

}  // namespace

std::string adviceText(const PrecisionAdvice& a) {
  std::string out;
  const RunIdentity& r = a.run;
  out += "advice for " + r.file + " (" + r.kind;
  if (!r.run.empty()) out += ", run " + r.run;
  if (!r.runId.empty()) out += ", run-id " + r.runId;
  out += "): judged mode " + r.mode + ", steps " + std::to_string(r.firstStep) + "-" + std::to_string(r.lastStep) +
         ", " + std::to_string(r.instrumentedSteps) + " instrumented\n";
  const AdviceThresholds& t = a.thresholds;
  out += "thresholds: judged from " + std::to_string(t.minSteps) + " instrumented steps; unsafe: flushed > " +
         percent(t.unsafeFlushShare) + " or overflowed > " + percent(t.unsafeOverflowShare) +
         " of the non-zero values at a step, or SQNR more than " + db(t.sqnrMarginDb) +
         " dB below the format's own (floors:";
  for (const char* column : {"fp16", "bf16", "fp8-e4m3", "fp8-e5m2", "mxfp8", "nvfp4"})
    out += std::string(" ") + column + " " + db(*formatSqnrDb(column) - t.sqnrMarginDb);
  out += " dB); caution: flushed > " + percent(t.cautionFlushShare) + " or subnormal > " +
         percent(t.cautionSubnormalShare) + "\n";

  if (a.tooShort) {
    out += "\ntoo short to judge: the most instrumented steps of any tensor is " + std::to_string(a.mostSteps) +
           ", at least " + std::to_string(t.minSteps) +
           " are needed (record more steps, instrument more often, or lower --min-steps)\n";
    return out;
  }

  // The verdict table: one row per (layer, role), one column per format seen.
  std::vector<std::string> columns;
  std::vector<std::pair<std::string, std::string>> rows;
  for (const auto& e : a.evidence) {
    if (std::find(columns.begin(), columns.end(), e.column) == columns.end()) columns.push_back(e.column);
    const std::pair<std::string, std::string> row{e.layer, e.role};
    if (std::find(rows.begin(), rows.end(), row) == rows.end()) rows.push_back(row);
  }
  // The what-if formats first, then the as-run modes.
  std::vector<std::string> ordered;
  {
    const std::vector<std::string> whatIf = {"fp16", "fp16+scaler", "bf16", "fp8-e4m3", "fp8-e5m2", "mxfp8", "nvfp4"};
    for (const auto& c : whatIf)
      if (std::find(columns.begin(), columns.end(), c) != columns.end()) ordered.push_back(c);
    for (const auto& c : columns)
      if (std::find(ordered.begin(), ordered.end(), c) == ordered.end()) ordered.push_back(c);
  }
  size_t layerWidth = 6, roleWidth = 5;
  for (const auto& [layer, role] : rows) {
    layerWidth = std::max(layerWidth, layer.size() + 2);
    roleWidth = std::max(roleWidth, role.size() + 2);
  }
  out += "\nper layer and role (ok, caution, UNSAFE, few = too few steps, - = no evidence):\n";
  out += "  " + pad("layer", layerWidth) + pad("role", roleWidth);
  for (const auto& c : ordered) out += pad(c, std::max<size_t>(c.size() + 2, 9));
  while (!out.empty() && out.back() == ' ') out.pop_back();
  out += "\n";
  for (const auto& [layer, role] : rows) {
    out += "  " + pad(layer, layerWidth) + pad(role, roleWidth);
    for (const auto& c : ordered) {
      std::string text = "-";
      for (const auto& e : a.evidence)
        if (e.layer == layer && e.role == role && e.column == c) text = cell(e.verdict);
      out += pad(text, std::max<size_t>(c.size() + 2, 9));
    }
    // No trailing blanks.
    while (!out.empty() && out.back() == ' ') out.pop_back();
    out += "\n";
  }

  bool header = false;
  for (const auto& e : a.evidence) {
    if (e.verdict != Verdict::Unsafe && e.verdict != Verdict::Caution) continue;
    if (!header) out += "\nevidence (unsafe and caution):\n";
    header = true;
    out += "  " + e.layer + " " + e.role + " " + e.column + ": " + cell(e.verdict) + ": " + e.reason + "\n";
  }

  const ScalerAdvice& s = a.scaler;
  out += "\nGradScaler for FP16 (gradients and activation gradients):\n";
  if (s.steps == 0) {
    out += "  no backward values recorded\n";
  } else {
    out += std::string("  ") + (s.needed ? "needed" : "not needed") +
           ": without a scale " + (s.needed ? "some" : "no") + " layer's gradients flush more than " +
           percent(t.unsafeFlushShare) + "\n";
    out += "  the smallest gradients need a scale of at least " + pow2(s.neededLog2) + " (step " +
           std::to_string(s.neededStep) + "), flushing at most " + percent(t.unsafeFlushShare) + " of them " +
           pow2(s.neededForShareLog2) + " (step " + std::to_string(s.neededForShareStep) +
           "); the largest allow at most " + pow2(s.ceilingLog2) + " (step " + std::to_string(s.ceilingStep) +
           ")\n";
    if (s.noScaleFitsSteps > 0) {
      out += "  no single scale fits at " + std::to_string(s.noScaleFitsSteps) + " of " + std::to_string(s.steps) +
             " steps (first " + std::to_string(s.firstNoScaleFitsStep) +
             "): the gradients span more binades than FP16 holds; keep such layers in bf16 or fp32\n";
    }
    for (const auto& c : s.covers) {
      out += "  " + c.label + ": ";
      if (c.uncoveredSteps == 0) {
        out += "covers the smallest gradients at every step\n";
      } else {
        out += "leaves the smallest gradients below 2^-24 at " + std::to_string(c.uncoveredSteps) + " of " +
               std::to_string(c.steps) + " steps (" + std::to_string(c.firstUncoveredStep) + " to " +
               std::to_string(c.lastUncoveredStep) + "); ";
        out += c.coveredFromStep > 0 ? "covers them from step " + std::to_string(c.coveredFromStep) + " on\n"
                                     : "does not cover them at the last step\n";
      }
      out += "    more than " + percent(t.unsafeFlushShare) + " flush at " + std::to_string(c.overShareSteps) + " of " +
             std::to_string(c.steps) + " steps";
      if (c.overShareSteps > 0) {
        out += " (first " + std::to_string(c.firstOverShareStep) + "); " +
               (c.shareCoveredFromStep > 0 ? "within it from step " + std::to_string(c.shareCoveredFromStep) + " on"
                                           : "over it at the last step");
      }
      out += "\n";
    }
  }

  out += "\nplan (target " + a.target + "):\n";
  size_t modeWidth = 6;
  for (const auto& p : a.plan) layerWidth = std::max(layerWidth, p.layer.size() + 2);
  for (const auto& p : a.plan) modeWidth = std::max(modeWidth, p.mode.size() + 2);
  for (const auto& p : a.plan) {
    out += "  " + pad(p.layer, layerWidth) + pad(p.mode, modeWidth) + (p.keptHigher ? "kept higher  " : "") +
           p.reason + "\n";
  }
  std::string kept;
  for (const auto& p : a.plan)
    if (p.keptHigher) kept += (kept.empty() ? "" : ", ") + p.layer + " (" + p.mode + ")";
  out += "keep in higher precision: " + (kept.empty() ? std::string("none") : kept) + "\n";
  return out;
}

}  // namespace ampscope
