// ampscope-cli reproduce DIR [OPTIONS]: the "Reproduce in PyTorch" export without a window. Takes the
// train subcommand's configuration flags, trains the run once (to record AmpScope's losses for
// comparison, unless --no-reference), and writes run.py, README.txt, the initial weights and the
// batches to DIR.
#include <cstdint>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "ampscope/engine/comparison.h"
#include "ampscope/engine/reproduce_export.h"
#include "ampscope/engine/run_config.h"
#include "commands.h"
#include "run_config_flags.h"

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
      << configFlagsHelp()
      << "\n"
         "Other options:\n"
         "  --force                 write into a folder that holds files no earlier export wrote; its\n"
         "                          files are kept, only the export's own names are replaced\n"
         "                          (never \"/\", never through a link)\n"
         "  --no-reference          do not train here; skip ampscope_loss.csv\n"
         "  --quiet                 print nothing but errors\n";
}

struct ReproduceOptions {
  std::string directory;
  RunConfig config;
  bool reference = true;
  bool quiet = false;
  bool force = false;
};

ReproduceOptions parse(const std::vector<std::string>& args) {
  ReproduceOptions options;
  RunConfigFlags flags(args);
  std::set<std::string> seen;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (flags.consume(args, i)) continue;
    if (arg.rfind("--", 0) == 0) refuseRepeatedFlag(seen, arg, arg);
    if (arg == "--no-reference") {
      options.reference = false;
    } else if (arg == "--force") {
      options.force = true;
    } else if (arg == "--quiet") {
      options.quiet = true;
    } else if (arg.rfind("--", 0) == 0) {
      throw CliUsageError{"unknown option '" + arg + "' (see ampscope-cli reproduce --help)"};
    } else if (options.directory.empty()) {
      options.directory = arg;
    } else {
      throw CliUsageError{"one folder only (got '" + options.directory + "' and '" + arg + "')"};
    }
  }
  if (options.directory.empty()) throw CliUsageError{"no output folder given"};
  options.config = flags.finish();
  for (const auto& warning : flags.warnings()) std::cerr << "ampscope-cli reproduce: warning: " << warning << "\n";
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
  } catch (const CliUsageError& e) {
    std::cerr << "ampscope-cli reproduce: " << e.message << "\n";
    return kExitUsage;
  }
  const RunConfig& config = options.config;
  if (const std::string tooLarge = reproduceSizeProblem(config, config.steps); !tooLarge.empty()) {
    std::cerr << "ampscope-cli reproduce: --steps: " << tooLarge << "\n";
    return kExitUsage;
  }
  // The folder is checked before training, which may take long, and again when the files are written.
  auto refuse = [&](const ReproduceExportResult& result) {
    std::cerr << "ampscope-cli reproduce: " << result.error << "\n";
    if (!options.force && result.foreignCount > 0) {
      std::cerr << "ampscope-cli reproduce: it holds";
      for (const auto& name : result.foreignEntries) std::cerr << " '" << name << "'";
      const int64_t more = result.foreignCount - static_cast<int64_t>(result.foreignEntries.size());
      if (more > 0) std::cerr << " and " << more << " more";
      std::cerr << "; --force writes into it anyway (keeping them)\n";
    }
    return kExitFailure;
  };
  const auto folderCheck = checkReproduceFolder(options.directory, options.force);
  if (!folderCheck.ok) return refuse(folderCheck);
  std::vector<StepRecord> records;
  if (options.reference) {
    if (!options.quiet) std::cout << "training " << config.steps << " steps to record AmpScope's losses...\n";
    Comparison comparison(config);
    records.reserve(static_cast<size_t>(config.steps));
    for (int64_t s = 0; s < config.steps && !comparison.allDiverged(); ++s) {
      records.push_back(comparison.step());
    }
  }
  const auto result = exportReproduction(config, config.steps, options.directory, records, options.force);
  if (!result.ok) return refuse(result);
  if (!options.quiet) {
    std::cout << "wrote " << result.files.size() << " files (" << result.bytes << " bytes) to "
              << options.directory << "\n"
              << "run it with: python3 " << options.directory << "/run.py\n";
  }
  return kExitOk;
}

}  // namespace ampscope::cli
