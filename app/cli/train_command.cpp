// `ampscope-cli train`: runs a Comparison headless and prints progress and a summary table per mode;
// --csv / --jsonl write every step of every mode through the record codec (record_codec.h).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "ampscope/engine/comparison.h"
#include "ampscope/engine/kernel_check.h"
#include "ampscope/engine/path_timing.h"
#include "ampscope/engine/record_codec.h"
#include "ampscope/engine/run_config.h"
#include "ampscope/engine/run_summary.h"
#include "ampscope/engine/telemetry.h"
#include "commands.h"
#include "run_config_flags.h"

namespace ampscope::cli {
namespace {

constexpr const char* kPrefix = "ampscope-cli train: ";

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
         "  --jsonl FILE            the record stream: a header line (format, version, config), then\n"
         "                          one JSON object per step and mode, histograms included\n"
         "                          (docs/record-format.md)\n"
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
  std::set<std::string> seen;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (flags.consume(args, i)) continue;
    const bool hasValue = i + 1 < args.size();
    if (arg.rfind("--", 0) == 0) refuseRepeatedFlag(seen, arg, arg);
    if (arg == "--quiet") {
      options.quiet = true;
    } else if (arg == "--op-dtypes") {
      options.opDtypes = true;
    } else if (arg == "--inject-overflow-at" || arg == "--csv" || arg == "--jsonl") {
      if (!hasValue) throw CliUsageError{"option " + arg + " needs a value"};
      const std::string& value = args[++i];
      if (arg == "--inject-overflow-at") options.injectAt = parseIntFlag(arg, value);
      if (arg == "--csv" || arg == "--jsonl") refuseEmptyPath(arg, value);
      if (arg == "--csv") options.csvPath = value;
      if (arg == "--jsonl") options.jsonlPath = value;
    } else {
      throw CliUsageError{"unknown option '" + arg + "' (see ampscope-cli train --help)"};
    }
  }
  options.config = flags.finish();
  for (const auto& warning : flags.warnings()) std::cerr << kPrefix << "warning: " << warning << "\n";
  return options;
}



// Whether two paths name one file: the same canonical path, or (both existing) the same inode, so
// "run.out", "./run.out" and a hard link are all caught.
bool sameFile(const std::string& a, const std::string& b) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (fs::exists(a, error) && fs::exists(b, error)) return fs::equivalent(a, b, error);
  const auto canonical = [](const std::string& path) {
    std::error_code ignored;
    const fs::path absolute = fs::absolute(path, ignored);
    const fs::path resolved = fs::weakly_canonical(absolute, ignored);
    return (resolved.empty() ? absolute : resolved).lexically_normal();
  };
  return canonical(a) == canonical(b);
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
  if (!options.csvPath.empty() && !options.jsonlPath.empty() && sameFile(options.csvPath, options.jsonlPath)) {
    std::cerr << kPrefix << "--csv '" << options.csvPath << "' and --jsonl '" << options.jsonlPath
              << "' name the same file; give each its own\n";
    return kExitUsage;
  }

  // Each step's rows are encoded into these buffers and written at once (one write per step, not per field).
  std::ofstream csv;
  std::ofstream jsonl;
  std::string buffer;
  if (!options.csvPath.empty()) {
    csv.open(options.csvPath, std::ios::binary);
    if (!csv) {
      std::cerr << kPrefix << "cannot write --csv file '" << options.csvPath << "'\n";
      return kExitFailure;
    }
    csv << csvHeader();
  }
  if (!options.jsonlPath.empty()) {
    jsonl.open(options.jsonlPath, std::ios::binary);
    if (!jsonl) {
      std::cerr << kPrefix << "cannot write --jsonl file '" << options.jsonlPath << "'\n";
      return kExitFailure;
    }
    jsonl << recordStreamHeader(config, newRunId());  // a viewer that re-follows the file continues this run
  }

  // auto's timing of native against emulated and the kernels' self-check, kept per machine in the
  // user's cache folder.
  enablePathTiming({defaultPathTimingFile(), nullptr});
  useKernelCheckCache(defaultKernelCheckFile());
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
    const std::string path = pathLine(capability);
    if (!path.empty()) std::cout << "  " << std::string(16, ' ') << path << "\n";
  }
  if (options.opDtypes) printOpDtypes(comparison, config);

  const int64_t progressEvery = std::max<int64_t>(1, config.steps / 10);
  for (int64_t i = 1; i <= config.steps && !comparison.allDiverged(); ++i) {
    if (options.injectAt == i) comparison.injectOverflowNextStep();
    const StepRecord record = comparison.step();
    for (const auto& s : record.modes) {
      auto it = std::find_if(summaries.begin(), summaries.end(),
                             [&](const ModeSummary& m) { return m.capability.mode == s.mode; });
      it->add(s);
    }
    if (csv.is_open()) {
      buffer.clear();
      for (const auto& s : record.modes) appendCsvRow(buffer, s);
      csv << buffer;
    }
    if (jsonl.is_open()) {
      buffer.clear();
      for (const auto& s : record.modes) appendRecordStreamLine(buffer, s);
      jsonl << buffer;
    }
    if (!options.quiet && (i % progressEvery == 0 || i == 1)) {
      std::cout << progressLine(record);
    }
  }
  std::cout << "\n" << summaryTable(summaries);
  std::vector<ModeLedger> ledgers;
  for (const auto& s : summaries) ledgers.push_back({s.capability.mode, comparison.memoryLedger(s.capability.mode)});
  std::cout << "\n" << memoryLedgerTable(ledgers);
  if ((csv.is_open() && !csv.flush()) || (jsonl.is_open() && !jsonl.flush())) {
    std::cerr << kPrefix << "writing the output file failed\n";
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace ampscope::cli
