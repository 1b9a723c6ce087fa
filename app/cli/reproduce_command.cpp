// ampscope-cli reproduce DIR [OPTIONS]: the "Reproduce in PyTorch" export without a window. Takes the
// train subcommand's configuration flags, trains the run once (to record AmpScope's losses for
// comparison, unless --no-reference), and writes run.py, README.txt, the initial weights and the
// batches to DIR.
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "ampscope/engine/comparison.h"
#include "ampscope/engine/reproduce_export.h"
#include "ampscope/engine/run_config.h"
#include "commands.h"

namespace ampscope::cli {
namespace {

void printReproduceUsage(std::ostream& out) {
  out << "Usage: ampscope-cli reproduce DIR [OPTIONS]\n"
         "\n"
         "Writes a folder that reruns the configured comparison in plain PyTorch: run.py (torch.autocast,\n"
         "GradScaler where the mode uses one), the initial weights and every step's batch as .npy files,\n"
         "README.txt, and AmpScope's own losses (ampscope_loss.csv) so run.py prints the difference.\n"
         "Then: python3 DIR/run.py   (Debian: /usr/bin/python3 with python3-torch)\n"
         "\n"
         "Options (as for train; the model's preset fills the rest):\n"
         "  --model NAME --modes LIST --steps N --seed S --lr X --batch N --optimizer NAME --momentum X\n"
         "  --weight-decay X --adam-eps X --loss-weight X --clip MAXNORM --clip-order ORDER\n"
         "  --init-scale X --growth-interval N --growth-factor X --backoff-factor X\n"
         "  --scaler-for-fp16-pure --threads N\n"
         "  --no-reference          do not train here; skip ampscope_loss.csv\n"
         "  --quiet                 print nothing but errors\n";
}

struct UsageError {
  std::string message;
};

double number(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size()) {
    throw UsageError{"invalid " + flag + ": not a number (got '" + text + "')"};
  }
  return value;
}

int64_t integer(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  errno = 0;
  const long long value = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE) {
    throw UsageError{"invalid " + flag + ": not an integer (got '" + text + "')"};
  }
  return value;
}

struct ReproduceOptions {
  std::string directory;
  RunConfig config;
  bool reference = true;
  bool quiet = false;
};

ReproduceOptions parse(const std::vector<std::string>& args) {
  ReproduceOptions options;
  ModelKind model = ModelKind::TinyMLP;
  for (size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] == "--model") {
      const auto parsed = parseModel(args[i + 1]);
      if (!parsed) throw UsageError{"invalid --model: unknown model '" + args[i + 1] + "'"};
      model = *parsed;
    }
  }
  RunConfig& c = options.config;
  c = presetFor(model);
  bool clipGiven = false;
  bool clipOrderGiven = false;
  using Setter = std::function<void(const std::string&, const std::string&)>;
  const std::map<std::string, Setter> valued = {
      {"--model", [](const std::string&, const std::string&) {}},
      {"--modes",
       [&](const std::string&, const std::string& v) {
         c.modes.clear();
         std::stringstream list(v);
         for (std::string item; std::getline(list, item, ',');) {
           const auto mode = parseMode(item);
           if (!mode) throw UsageError{"invalid --modes: unknown mode '" + item + "'"};
           c.modes.push_back(*mode);
         }
       }},
      {"--steps", [&](const std::string& f, const std::string& v) { c.steps = integer(f, v); }},
      {"--seed",
       [&](const std::string& f, const std::string& v) {
         const int64_t seed = integer(f, v);
         if (seed < 0) throw UsageError{"invalid --seed: must be >= 0 (got " + v + ")"};
         c.seed = static_cast<uint64_t>(seed);
       }},
      {"--lr", [&](const std::string& f, const std::string& v) { c.lr = number(f, v); }},
      {"--batch", [&](const std::string& f, const std::string& v) { c.batchSize = integer(f, v); }},
      {"--optimizer",
       [&](const std::string&, const std::string& v) {
         const auto parsed = parseOptimizer(v);
         if (!parsed) throw UsageError{"invalid --optimizer: unknown optimizer '" + v + "' (sgd, adamw)"};
         c.optimizer = *parsed;
       }},
      {"--momentum", [&](const std::string& f, const std::string& v) { c.momentum = number(f, v); }},
      {"--weight-decay", [&](const std::string& f, const std::string& v) { c.weightDecay = number(f, v); }},
      {"--adam-eps", [&](const std::string& f, const std::string& v) { c.adamEps = number(f, v); }},
      {"--loss-weight", [&](const std::string& f, const std::string& v) { c.lossWeight = number(f, v); }},
      {"--clip",
       [&](const std::string& f, const std::string& v) {
         c.clipMaxNorm = number(f, v);
         clipGiven = true;
       }},
      {"--clip-order",
       [&](const std::string&, const std::string& v) {
         const auto parsed = parseClipOrder(v);
         if (!parsed) throw UsageError{"invalid --clip-order: unknown order '" + v + "'"};
         c.clipOrder = *parsed;
         clipOrderGiven = true;
       }},
      {"--init-scale",
       [&](const std::string& f, const std::string& v) { c.scaler.initScale = number(f, v); }},
      {"--growth-interval",
       [&](const std::string& f, const std::string& v) { c.scaler.growthInterval = integer(f, v); }},
      {"--growth-factor",
       [&](const std::string& f, const std::string& v) { c.scaler.growthFactor = number(f, v); }},
      {"--backoff-factor",
       [&](const std::string& f, const std::string& v) { c.scaler.backoffFactor = number(f, v); }},
      {"--threads",
       [&](const std::string& f, const std::string& v) {
         const int64_t threads = integer(f, v);
         if (threads < 1 || threads > 256) {
           throw UsageError{"invalid --threads: must be in [1, 256] (got " + v + ")"};
         }
         c.threadsPerMode = static_cast<int>(threads);
       }},
  };
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--no-reference") {
      options.reference = false;
    } else if (arg == "--quiet") {
      options.quiet = true;
    } else if (arg == "--scaler-for-fp16-pure") {
      c.scalerForPureFp16 = true;
    } else if (auto it = valued.find(arg); it != valued.end()) {
      if (i + 1 >= args.size()) throw UsageError{"option " + arg + " needs a value"};
      it->second(arg, args[++i]);
    } else if (arg.rfind("--", 0) == 0) {
      throw UsageError{"unknown option '" + arg + "' (see ampscope-cli reproduce --help)"};
    } else if (options.directory.empty()) {
      options.directory = arg;
    } else {
      throw UsageError{"one folder only (got '" + options.directory + "' and '" + arg + "')"};
    }
  }
  if (options.directory.empty()) throw UsageError{"no output folder given"};
  if (clipGiven && !clipOrderGiven) c.clipOrder = ClipOrder::AfterUnscale;
  const auto errors = validate(c);
  if (!errors.empty()) throw UsageError{"invalid --" + errors.front().field + ": " + errors.front().message};
  return options;
}

}  // namespace

int runReproduceCommand(const std::vector<std::string>& args) {
  for (const auto& arg : args) {
    if (arg == "--help" || arg == "-h") {
      printReproduceUsage(std::cout);
      return kExitOk;
    }
  }
  ReproduceOptions options;
  try {
    options = parse(args);
  } catch (const UsageError& e) {
    std::cerr << "ampscope-cli reproduce: " << e.message << "\n";
    return kExitUsage;
  }
  const RunConfig& config = options.config;
  std::vector<StepRecord> records;
  if (options.reference) {
    if (!options.quiet) std::cout << "training " << config.steps << " steps to record AmpScope's losses...\n";
    Comparison comparison(config);
    records.reserve(static_cast<size_t>(config.steps));
    for (int64_t s = 0; s < config.steps && !comparison.allDiverged(); ++s) {
      records.push_back(comparison.step());
    }
  }
  const auto result = exportReproduction(config, config.steps, options.directory, records);
  if (!result.ok) {
    std::cerr << "ampscope-cli reproduce: " << result.error << "\n";
    return kExitFailure;
  }
  if (!options.quiet) {
    std::cout << "wrote " << result.files.size() << " files (" << result.bytes << " bytes) to "
              << options.directory << "\n"
              << "run it with: python3 " << options.directory << "/run.py\n";
  }
  return kExitOk;
}

}  // namespace ampscope::cli
