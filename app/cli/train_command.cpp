// `ampscope-cli train`: runs a Comparison headless and prints progress and a summary table per mode;
// --csv / --jsonl write every step of every mode.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "ampscope/engine/comparison.h"
#include "ampscope/engine/run_config.h"
#include "ampscope/engine/telemetry.h"
#include "commands.h"
#include "run_config_flags.h"
#include "json_writer.h"

namespace ampscope::cli {
namespace {

constexpr const char* kPrefix = "ampscope-cli train: ";
constexpr int64_t kWarmupSteps = 5;  // the chapter's method: never time the first iterations

void printTrainUsage(std::ostream& out) {
  out << "Usage: ampscope-cli train [OPTIONS]\n"
         "\n"
         "Trains one model in several precision modes side by side (same initial weights, same\n"
         "batches) and prints a summary per mode. Settings start from the model's preset.\n"
         "\n"
      << configFlagsHelp()
      << "\n"
         "Other options:\n"
         "  --inject-overflow-at N  put +inf into one gradient of every mode at step N\n"
         "  --op-dtypes             print which dtype each op ran in, per mode, before training\n"
         "  --csv FILE              one row per step and mode\n"
         "  --jsonl FILE            one JSON object per step and mode (histograms included)\n"
         "  --quiet                 no progress lines, only the summary\n";
}

struct Options {
  RunConfig config;
  std::string csvPath;
  std::string jsonlPath;
  bool quiet = false;
  bool opDtypes = false;
  int64_t injectAt = 0;
};

Options parseOptions(const std::vector<std::string>& args) {
  Options options;
  RunConfigFlags flags(args);
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (flags.consume(args, i)) continue;
    const bool hasValue = i + 1 < args.size();
    if (arg == "--quiet") {
      options.quiet = true;
    } else if (arg == "--op-dtypes") {
      options.opDtypes = true;
    } else if (arg == "--inject-overflow-at" || arg == "--csv" || arg == "--jsonl") {
      if (!hasValue) throw CliUsageError{"option " + arg + " needs a value"};
      const std::string& value = args[++i];
      if (arg == "--inject-overflow-at") options.injectAt = parseIntFlag(arg, value);
      if (arg == "--csv") options.csvPath = value;
      if (arg == "--jsonl") options.jsonlPath = value;
    } else {
      throw CliUsageError{"unknown option '" + arg + "' (see ampscope-cli train --help)"};
    }
  }
  options.config = flags.finish();
  return options;
}

// Per-mode totals for the summary.
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
};

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

std::string formatBytes(int64_t bytes) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  return buffer;
}

std::string formatNumber(double value, int precision = 4) {
  std::ostringstream out;
  out << std::setprecision(precision) << value;
  return out.str();
}

void writeCsvHeader(std::ostream& out) {
  out << "step,mode,loss,loss_scale,skipped,found_inf,grad_norm_before_clip,grad_norm_after_clip,"
         "clip_norm_seen,lr,step_time_ms,current_bytes,peak_bytes,diverged,instrumented,"
         "rounding_elements,flushed_to_zero,subnormal,overflowed,nan\n";
}

void writeCsvRow(std::ostream& out, const ModeStep& s) {
  out << s.step << ',' << modeName(s.mode) << ',' << std::setprecision(9) << s.loss << ','
      << s.lossScale << ',' << s.skipped << ',' << s.foundInf << ',' << s.gradNormBeforeClip << ','
      << s.gradNormAfterClip << ',' << s.clipNormSeen << ',' << s.lr << ',' << s.stepTimeMs << ','
      << s.currentBytes << ',' << s.peakBytes << ',' << s.diverged << ',' << s.instrumented << ','
      << s.rounding.elements << ',' << s.rounding.flushedToZero << ',' << s.rounding.subnormal << ','
      << s.rounding.overflowed << ',' << s.rounding.nan << '\n';
}

void writeHistogram(JsonWriter& json, const ExponentHistogram& h) {
  json.beginObject();
  json.key("exponents").beginObject();
  for (int e = ExponentHistogram::kMinExponent; e <= ExponentHistogram::kMaxExponent; ++e) {
    const int64_t count = h.countAt(e);
    if (count != 0) json.field(std::to_string(e), static_cast<long long>(count));
  }
  json.endObject();
  json.field("zero", static_cast<long long>(h.zero));
  json.field("pos_inf", static_cast<long long>(h.posInf));
  json.field("neg_inf", static_cast<long long>(h.negInf));
  json.field("nan", static_cast<long long>(h.nan));
  json.field("target_subnormal", static_cast<long long>(h.targetSubnormal));
  json.field("target_underflow", static_cast<long long>(h.targetUnderflow));
  json.endObject();
}

void writeCounts(JsonWriter& json, const RoundingCounts& c) {
  json.beginObject();
  json.field("elements", static_cast<long long>(c.elements));
  json.field("flushed_to_zero", static_cast<long long>(c.flushedToZero));
  json.field("subnormal", static_cast<long long>(c.subnormal));
  json.field("overflowed", static_cast<long long>(c.overflowed));
  json.field("nan", static_cast<long long>(c.nan));
  json.endObject();
}

void writeJsonLine(std::ostream& out, const ModeStep& s) {
  JsonWriter json(out);
  json.beginObject();
  json.field("step", static_cast<long long>(s.step));
  json.field("mode", modeName(s.mode));
  json.field("loss", s.loss);
  json.field("loss_scale", s.lossScale);
  json.field("skipped", s.skipped);
  json.field("found_inf", s.foundInf);
  json.field("grad_norm_before_clip", s.gradNormBeforeClip);
  json.field("grad_norm_after_clip", s.gradNormAfterClip);
  json.field("clip_norm_seen", s.clipNormSeen);
  json.field("lr", s.lr);
  json.field("step_time_ms", s.stepTimeMs);
  json.field("current_bytes", static_cast<long long>(s.currentBytes));
  json.field("peak_bytes", static_cast<long long>(s.peakBytes));
  json.field("diverged", s.diverged);
  json.field("instrumented", s.instrumented);
  if (s.instrumented) {
    json.key("rounding");
    writeCounts(json, s.rounding);
    json.key("rounding_points").beginArray();
    for (const auto& p : s.roundingPoints) {
      json.beginObject();
      json.field("name", p.name);
      json.field("layer", p.layer);
      json.field("backward", p.backward);
      json.key("counts");
      writeCounts(json, p.counts);
      json.endObject();
    }
    json.endArray();
    json.key("tensors").beginArray();
    for (const auto& t : s.tensors) {
      json.beginObject();
      json.field("name", t.name);
      json.field("parameter", t.isParameter);
      json.field("numel", static_cast<long long>(t.numel));
      json.key("scaled");
      writeHistogram(json, t.scaled);
      json.key("unscaled");
      writeHistogram(json, t.unscaled);
      json.endObject();
    }
    json.endArray();
  }
  json.endObject();
  out << '\n';
}

void printOpDtypes(Comparison& comparison, const RunConfig& config) {
  for (PrecisionMode mode : config.modes) {
    std::cout << "op dtypes, " << modeName(mode) << ":\n";
    for (const auto& e : comparison.opDtypeReport(mode)) {
      std::cout << "  " << std::left << std::setw(14) << e.op << std::setw(26) << e.where << e.inputDtype
                << " -> " << e.outputDtype << (e.emulated ? "  (emulated)" : "") << "\n";
    }
  }
}

void printSummary(const std::vector<ModeSummary>& summaries) {
  std::cout << "\nSummary (step time: mean after " << kWarmupSteps
            << " warm-up steps; underflow: backward values flushed to zero at rounding points, summed "
               "over instrumented steps)\n";
  std::cout << std::left << std::setw(17) << "mode" << std::right << std::setw(12) << "final loss"
            << std::setw(9) << "skipped" << std::setw(14) << "flushed(bwd)" << std::setw(11)
            << "flushed %" << std::setw(12) << "zero grad %" << std::setw(11) << "ms/step" << std::setw(12)
            << "first ms" << std::setw(12) << "peak" << "  run\n";
  for (const auto& s : summaries) {
    const double flushedPct = s.backward.elements > 0 ? 100.0 * static_cast<double>(s.backward.flushedToZero) /
                                                            static_cast<double>(s.backward.elements)
                                                      : 0.0;
    const double mean = s.timedSteps > 0 ? s.timedMs / static_cast<double>(s.timedSteps) : s.firstStepMs;
    std::string loss = formatNumber(s.last.loss, 5);
    if (s.divergedAt > 0) loss += " (diverged@" + std::to_string(s.divergedAt) + ")";
    std::cout << std::left << std::setw(17) << modeName(s.capability.mode) << std::right << std::setw(12)
              << loss << std::setw(9) << s.skipped << std::setw(14) << s.backward.flushedToZero
              << std::setw(11) << formatNumber(flushedPct, 3) << std::setw(12)
              << formatNumber(100.0 * s.lastZeroGradShare, 3) << std::setw(11) << formatNumber(mean, 3)
              << std::setw(12) << formatNumber(s.firstStepMs, 3) << std::setw(12) << formatBytes(s.peakBytes)
              << "  " << (s.capability.native ? "native" : "emulated") << "\n";
  }
}

}  // namespace

int runTrainCommand(const std::vector<std::string>& args) {
  for (const auto& arg : args) {
    if (arg == "--help" || arg == "-h") {
      printTrainUsage(std::cout);
      return kExitOk;
    }
  }
  Options options;
  try {
    options = parseOptions(args);
  } catch (const CliUsageError& error) {
    std::cerr << kPrefix << error.message << "\n";
    return kExitUsage;
  }
  const RunConfig& config = options.config;

  std::ofstream csv;
  std::ofstream jsonl;
  if (!options.csvPath.empty()) {
    csv.open(options.csvPath);
    if (!csv) {
      std::cerr << kPrefix << "cannot write --csv file '" << options.csvPath << "'\n";
      return kExitFailure;
    }
    writeCsvHeader(csv);
  }
  if (!options.jsonlPath.empty()) {
    jsonl.open(options.jsonlPath);
    if (!jsonl) {
      std::cerr << kPrefix << "cannot write --jsonl file '" << options.jsonlPath << "'\n";
      return kExitFailure;
    }
  }

  Comparison comparison(config);
  std::vector<ModeSummary> summaries;
  std::cout << "model " << modelName(config.model) << ", " << config.steps << " steps, batch "
            << config.batchSize << ", " << optimizerName(config.optimizer) << " lr " << config.lr
            << ", loss weight " << config.lossWeight << ", seed " << config.seed << "\n";
  for (const auto& capability : comparison.capabilities()) {
    ModeSummary summary;
    summary.capability = capability;
    summaries.push_back(summary);
    std::cout << "  " << std::left << std::setw(16) << modeName(capability.mode)
              << (capability.native ? "native    " : "emulated  ") << capability.detail << "\n";
  }
  if (options.opDtypes) printOpDtypes(comparison, config);

  const int64_t progressEvery = std::max<int64_t>(1, config.steps / 10);
  for (int64_t i = 1; i <= config.steps && !comparison.allDiverged(); ++i) {
    if (options.injectAt == i) comparison.injectOverflowNextStep();
    const StepRecord record = comparison.step();
    for (const auto& s : record.modes) {
      auto it = std::find_if(summaries.begin(), summaries.end(),
                             [&](const ModeSummary& m) { return m.capability.mode == s.mode; });
      ModeSummary& m = *it;
      m.last = s;
      ++m.steps;
      m.skipped += s.skipped ? 1 : 0;
      if (s.diverged && m.divergedAt == 0) m.divergedAt = s.step;
      if (s.step == 1) m.firstStepMs = s.stepTimeMs;
      if (s.step > kWarmupSteps) {
        m.timedMs += s.stepTimeMs;
        ++m.timedSteps;
      }
      m.peakBytes = std::max(m.peakBytes, s.peakBytes);
      if (s.instrumented) {
        for (const auto& p : s.roundingPoints) (p.backward ? m.backward : m.forward).add(p.counts);
        m.lastZeroGradShare = zeroGradShare(s);
      }
      if (csv.is_open()) writeCsvRow(csv, s);
      if (jsonl.is_open()) writeJsonLine(jsonl, s);
    }
    if (!options.quiet && (i % progressEvery == 0 || i == 1)) {
      std::cout << "step " << std::setw(6) << i;
      for (const auto& s : record.modes) {
        std::cout << "  " << modeName(s.mode) << " " << formatNumber(s.loss, 4);
        if (s.lossScale != 1.0) std::cout << " (scale " << s.lossScale << ")";
        if (s.diverged) std::cout << " DIVERGED";
      }
      std::cout << "\n";
    }
  }
  printSummary(summaries);
  std::cout << "\nMemory ledger of each mode's last step (counting allocator; seed-digest §9)\n"
            << std::left << std::setw(17) << "mode" << std::right << std::setw(13) << "parameters"
            << std::setw(13) << "gradients" << std::setw(13) << "optimizer" << std::setw(13)
            << "activations" << std::setw(13) << "temporaries" << std::setw(13) << "peak" << "\n";
  for (const auto& s : summaries) {
    const MemoryLedger ledger = comparison.memoryLedger(s.capability.mode);
    std::cout << std::left << std::setw(17) << modeName(s.capability.mode) << std::right;
    for (int64_t bytes : {ledger.parameters, ledger.gradients, ledger.optimizerState, ledger.activations,
                          ledger.temporaries, ledger.peak}) {
      std::cout << std::setw(13) << formatBytes(bytes);
    }
    std::cout << "\n";
  }
  if ((csv.is_open() && !csv.flush()) || (jsonl.is_open() && !jsonl.flush())) {
    std::cerr << kPrefix << "writing the output file failed\n";
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace ampscope::cli
