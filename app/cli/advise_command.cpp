// `ampscope-cli advise RUN`: reads a probe stream, an engine stream (`train --jsonl`) or a saved session
// through adviseFile (advice_run.h; the GUI's advice panel reads through it too), and prints per layer and
// tensor role which formats hold the tensor safely, the evidence, whether FP16 needs a GradScaler, and a
// per-layer precision plan (precision_advice.h); --plan writes the plan file (precision_plan.h), --json
// the whole advice.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ampscope/engine/advice_run.h"
#include "ampscope/engine/json.h"
#include "ampscope/engine/number_text.h"
#include "ampscope/engine/precision_advice.h"
#include "ampscope/engine/precision_plan.h"
#include "commands.h"
#include "run_config_flags.h"

namespace ampscope::cli {
namespace {

constexpr const char* kPrefix = "ampscope-cli advise: ";

void printAdviseUsage(std::ostream& out) {
  const AdviceThresholds d;
  out << "Usage: ampscope-cli advise RUN [OPTIONS]\n"
         "\n"
         "Reads a run's records (a probe's record stream, an engine stream written by train --jsonl, or a\n"
         "saved .ampscope session) and says, per layer and tensor role, which formats hold the tensor\n"
         "safely and which do not, with the evidence: the worst flushed, overflowed and subnormal shares,\n"
         "the lowest SQNR and the steps they were seen at. Then whether FP16 needs a GradScaler and from\n"
         "which step a scale covers the smallest gradients, and a per-layer precision plan. docs/advice.md\n"
         "explains every rule and threshold.\n"
         "\n"
         "Options:\n"
         "  --plan FILE                  write the precision plan (JSON) to FILE\n"
         "  --force                      overwrite an existing --plan file\n"
         "  --json                       print the advice as JSON instead of the table\n"
         "  --target MODE                the plan's target: auto (the cheapest safe mode per layer, default)\n"
         "                               or nvfp4, mxfp8, fp8-current, fp8-delayed, fp16-amp,\n"
         "                               fp16-amp-scaled, bf16-amp, fp32\n"
         "  --mode MODE                  whose tensors to judge (default: fp32 when the run has it, else\n"
         "                               its first mode)\n"
         "  --followed N                 a session without engine records: its N-th followed run (default 1)\n"
         "\n"
         "Thresholds (printed in the output's header):\n"
         "  --min-steps N                instrumented steps needed to judge (default "
      << d.minSteps
      << ")\n"
         "  --unsafe-flush-share S       unsafe above this flushed share at a step (default "
      << numberText(d.unsafeFlushShare)
      << ")\n"
         "  --caution-flush-share S      caution above this flushed share (default "
      << numberText(d.cautionFlushShare)
      << ")\n"
         "  --caution-subnormal-share S  caution above this subnormal share (default "
      << numberText(d.cautionSubnormalShare)
      << ")\n"
         "  --unsafe-overflow-share S    unsafe above this overflowed share (default "
      << numberText(d.unsafeOverflowShare)
      << ")\n"
         "  --sqnr-margin-db DB          unsafe this far below the format's own SQNR (default "
      << numberText(d.sqnrMarginDb)
      << ")\n"
         "\n"
         "Exit status: 0 advice given, 1 the run is too short to judge (no plan written) or a file could\n"
         "not be written, 2 bad arguments or a file that does not read.\n";
}

struct AdviseOptions {
  std::string run;
  std::string planPath;
  bool force = false;
  bool json = false;
  AdviceRequest request;  // --target, --mode, --followed and the thresholds
};

double parseShareFlag(const std::string& flag, const std::string& value) {
  const auto number = parseNumberText(value);
  if (!number || !(*number >= 0 && *number <= 1))
    throw CliUsageError{"option " + flag + ": expected a share from 0 to 1, got '" + value + "'"};
  return *number;
}

AdviseOptions parse(const std::vector<std::string>& args) {
  AdviseOptions o;
  std::set<std::string> seen;
  std::optional<std::string> run;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg.rfind("--", 0) == 0) refuseRepeatedFlag(seen, arg, arg);
    if (arg == "--force") {
      o.force = true;
    } else if (arg == "--json") {
      o.json = true;
    } else if (arg == "--plan" || arg == "--target" || arg == "--mode" || arg == "--followed" ||
               arg == "--min-steps" || arg == "--unsafe-flush-share" || arg == "--caution-flush-share" ||
               arg == "--caution-subnormal-share" || arg == "--unsafe-overflow-share" || arg == "--sqnr-margin-db") {
      if (i + 1 >= args.size()) throw CliUsageError{"option " + arg + " needs a value"};
      const std::string& value = args[++i];
      if (arg == "--plan") {
        refuseEmptyPath(arg, value);
        o.planPath = value;
      } else if (arg == "--target") {
        try {
          adviceChain(value);
        } catch (const std::invalid_argument&) {
          throw CliUsageError{"option --target: unknown mode '" + value +
                              "' (auto, nvfp4, mxfp8, fp8-current, fp8-delayed, fp16-amp, fp16-amp-scaled, "
                              "bf16-amp, fp32)"};
        }
        const auto& order = adviceModeOrder();
        const auto mode = parseMode(value);
        if (value != "auto" && std::find(order.begin(), order.end(), *mode) == order.end())
          throw CliUsageError{"option --target: '" + value + "' is not a mode a plan advises"};
        o.request.target = value;
      } else if (arg == "--mode") {
        o.request.mode = parseMode(value);
        if (!o.request.mode) throw CliUsageError{"option --mode: unknown mode '" + value + "'"};
      } else if (arg == "--followed") {
        o.request.followed = parseIntFlag(arg, value);
        if (o.request.followed < 1) throw CliUsageError{"option --followed: expected a run number >= 1, got '" + value + "'"};
      } else if (arg == "--min-steps") {
        o.request.thresholds.minSteps = parseIntFlag(arg, value);
        if (o.request.thresholds.minSteps < 1 || o.request.thresholds.minSteps > 1000000)
          throw CliUsageError{"option --min-steps: expected a count from 1 to 1000000, got '" + value + "'"};
      } else if (arg == "--unsafe-flush-share") {
        o.request.thresholds.unsafeFlushShare = parseShareFlag(arg, value);
      } else if (arg == "--caution-flush-share") {
        o.request.thresholds.cautionFlushShare = parseShareFlag(arg, value);
      } else if (arg == "--caution-subnormal-share") {
        o.request.thresholds.cautionSubnormalShare = parseShareFlag(arg, value);
      } else if (arg == "--unsafe-overflow-share") {
        o.request.thresholds.unsafeOverflowShare = parseShareFlag(arg, value);
      } else {
        const auto number = parseNumberText(value);
        if (!number || !(*number >= 0 && *number <= 200))
          throw CliUsageError{"option --sqnr-margin-db: expected decibels from 0 to 200, got '" + value + "'"};
        o.request.thresholds.sqnrMarginDb = *number;
      }
    } else if (arg.rfind("--", 0) == 0 || (arg.size() > 1 && arg[0] == '-')) {
      throw CliUsageError{"unknown option '" + arg + "' (see ampscope-cli advise --help)"};
    } else if (!run) {
      run = arg;
    } else {
      throw CliUsageError{"one RUN only (got '" + *run + "' and '" + arg + "')"};
    }
  }
  if (!run) throw CliUsageError{"no RUN given (see ampscope-cli advise --help)"};
  o.run = *run;  // whether it reads is adviseFile's to say (advice_run.h)
  namespace fs = std::filesystem;
  std::error_code ignored;
  if (!o.planPath.empty()) {
    if (fs::exists(o.planPath, ignored) && fs::equivalent(o.planPath, o.run, ignored))
      throw CliUsageError{"option --plan: '" + o.planPath + "' is RUN itself"};
    if (!o.force && fs::exists(o.planPath, ignored))
      throw CliUsageError{"option --plan: '" + o.planPath + "' exists (add --force to overwrite it)"};
  }
  return o;
}

}  // namespace

int runAdviseCommand(const std::vector<std::string>& args) {
  for (const auto& arg : args) {
    if (arg == "--help" || arg == "-h") {
      printAdviseUsage(std::cout);
      return kExitOk;
    }
  }
  AdviseOptions options;
  try {
    options = parse(args);
  } catch (const CliUsageError& error) {
    std::cerr << kPrefix << error.message << "\n";
    return kExitUsage;
  }
  AdviceInputError inputError;
  std::string note;
  const auto read = adviseFile(options.run, options.request, &inputError, &note);
  if (!note.empty()) std::cerr << kPrefix << note << "\n";
  if (!read) {
    const char* field = inputError.field == AdviceInputError::Field::Mode       ? "option --mode: "
                        : inputError.field == AdviceInputError::Field::Followed ? "option --followed: "
                                                                                : "RUN: ";
    std::cerr << kPrefix << field << inputError.message << "\n";
    return kExitUsage;
  }
  const PrecisionAdvice& advice = *read;

  if (options.json) {
    std::string text;
    JsonWriter w(text, JsonWriter::Layout::Pretty);
    writeAdviceJson(w, advice);
    std::cout << text << "\n";
  } else {
    std::cout << adviceText(advice);
  }
  if (advice.tooShort) {
    std::cerr << kPrefix << "the run is too short to judge";
    if (!options.planPath.empty()) std::cerr << "; no plan written to " << options.planPath;
    std::cerr << "\n";
    return kExitFailure;
  }
  if (!options.planPath.empty()) {
    if (!writePrecisionPlanFile(options.planPath, planOf(advice))) {
      std::cerr << kPrefix << "writing --plan file '" << options.planPath << "' failed\n";
      return kExitFailure;
    }
    if (!options.json) std::cout << "plan written to " << options.planPath << "\n";
  }
  return kExitOk;
}

}  // namespace ampscope::cli
