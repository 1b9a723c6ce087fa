// `ampscope-cli kernels`: what the running LibTorch has natively on this CPU, each native kernel's
// self-check against an exact reference, and the path `auto` takes for each low-precision mode on a
// model (trained both ways here, so it takes a few seconds the first time; the result is cached).
#include <iostream>
#include <string>
#include <vector>

#include "ampscope/engine/comparison.h"
#include "ampscope/engine/json.h"
#include "ampscope/engine/kernel_check.h"
#include "ampscope/engine/path_timing.h"
#include "ampscope/engine/run_summary.h"
#include "ampscope/engine/version.h"
#include "commands.h"

namespace ampscope::cli {

namespace {

void printHelp(std::ostream& out) {
  out << "Usage: ampscope-cli kernels [--model tiny-mlp|deep-mlp|tiny-transformer] [--recheck] [--json]\n"
         "\n"
         "Checks each native LibTorch kernel AmpScope would use (BF16/FP16/FP32 GEMMs on the models'\n"
         "layer shapes, FP32 conv1d, the GradScaler's CPU kernels, float8 casts) against an exact\n"
         "reference, and prints which path `--precision-path auto` takes for each low-precision mode on\n"
         "the model: native, or the emulation where it trains bit-identically and faster. A native\n"
         "kernel that fails its check is not used; its mode runs the emulation.\n"
         "\n"
         "The checks run at the first start on a machine and are kept in the user's cache folder\n"
         "(kernel-checks.json beside precision-paths.json); --recheck runs them again and replaces them.\n";
}

}  // namespace

int runKernelsCommand(const std::vector<std::string>& args) {
  bool json = false;
  bool recheck = false;
  ModelKind model = ModelKind::TinyMLP;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      printHelp(std::cout);
      return kExitOk;
    }
    if (a == "--json") {
      json = true;
    } else if (a == "--recheck") {
      recheck = true;
    } else if (a == "--model") {
      if (i + 1 >= args.size()) {
        std::cerr << "ampscope-cli kernels: --model needs a value (tiny-mlp, deep-mlp, tiny-transformer)\n";
        return kExitUsage;
      }
      const auto parsed = parseModel(args[++i]);
      if (!parsed) {
        std::cerr << "ampscope-cli kernels: --model: unknown model '" << args[i]
                  << "' (tiny-mlp, deep-mlp, tiny-transformer)\n";
        return kExitUsage;
      }
      model = *parsed;
    } else {
      std::cerr << "ampscope-cli kernels: unexpected argument '" << a << "'\n";
      return kExitUsage;
    }
  }

  enablePathTiming({defaultPathTimingFile(), nullptr});
  useKernelCheckCache(defaultKernelCheckFile(), recheck);
  const std::vector<KernelCheck>& checks = nativeKernelChecks();
  const std::string source = nativeKernelChecksSource();
  const std::string cacheProblem = kernelCheckCacheProblem();
  const std::vector<PrecisionMode> modes = {PrecisionMode::BF16Amp, PrecisionMode::BF16Pure, PrecisionMode::FP16Amp,
                                            PrecisionMode::FP16AmpScaled, PrecisionMode::FP16Pure};
  const std::vector<ModeCapability> caps = probeCapabilities(modes, PrecisionPath::Auto, 1, model);

  if (json) {
    std::string text;
    JsonWriter w(text, JsonWriter::Layout::Pretty);
    w.beginObject().field("libtorch", libtorchVersion()).field("model", modelName(model));
    w.field("checks-from", source.empty() ? std::string("run now") : source).field("cache-problem", cacheProblem);
    w.key("kernels").beginArray();
    for (const KernelCheck& c : checks) writeKernelCheck(w, c);
    w.endArray().key("modes").beginArray();
    for (const ModeCapability& c : caps) {
      w.beginObject()
          .field("mode", modeName(c.mode))
          .field("path", c.native ? "native" : "emulated")
          .field("native-available", c.nativeAvailable)
          .field("native-failed-check", c.nativeFailedCheck)
          .field("compared-steps", static_cast<long long>(c.comparedSteps))
          .field("first-differing-step", static_cast<long long>(c.firstDifferingStep))
          .field("native-us", c.nativeStepUs)
          .field("emulated-us", c.emulatedStepUs)
          .field("why", c.pathNote)
          .field("kernel-note", c.kernelNote)
          .endObject();
    }
    w.endArray().endObject();
    std::cout << text << "\n";
    return kExitOk;
  }

  std::cout << "LibTorch " << libtorchVersion() << ": native kernels checked against an exact reference"
            << (source.empty() ? std::string(" (run now)") : " (kept from the first start in " + source + ")") << "\n";
  if (!cacheProblem.empty()) std::cout << "  (cache file not used: " << cacheProblem << ")\n";
  for (const KernelCheck& c : checks) std::cout << "  " << kernelCheckLine(c) << "\n";
  std::cout << "\nPaths with --precision-path auto on " << modelName(model) << ":\n";
  for (const ModeCapability& c : caps) {
    std::cout << "  " << (c.native ? "native    " : "emulated  ") << pathLine(c) << "\n";
  }
  return kExitOk;
}

}  // namespace ampscope::cli
