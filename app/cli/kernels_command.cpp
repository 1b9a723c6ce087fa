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
  out << "Usage: ampscope-cli kernels [--model tiny-mlp|deep-mlp|tiny-transformer] [--json]\n"
         "\n"
         "Checks each native LibTorch kernel AmpScope would use (BF16/FP16/FP32 GEMMs on the models'\n"
         "layer shapes, FP32 conv1d, the GradScaler's CPU kernels, float8 casts) against an exact\n"
         "reference, and prints which path `--precision-path auto` takes for each low-precision mode on\n"
         "the model: native, or the emulation where it trains bit-identically and faster. A native\n"
         "kernel that fails its check is not used; its mode runs the emulation.\n";
}

}  // namespace

int runKernelsCommand(const std::vector<std::string>& args) {
  bool json = false;
  ModelKind model = ModelKind::TinyMLP;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      printHelp(std::cout);
      return kExitOk;
    }
    if (a == "--json") {
      json = true;
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
  const std::vector<KernelCheck>& checks = nativeKernelChecks();
  const std::vector<PrecisionMode> modes = {PrecisionMode::BF16Amp, PrecisionMode::BF16Pure, PrecisionMode::FP16Amp,
                                            PrecisionMode::FP16AmpScaled, PrecisionMode::FP16Pure};
  const std::vector<ModeCapability> caps = probeCapabilities(modes, PrecisionPath::Auto, 1, model);

  if (json) {
    std::string text;
    JsonWriter w(text, JsonWriter::Layout::Pretty);
    w.beginObject().field("libtorch", libtorchVersion()).field("model", modelName(model));
    w.key("kernels").beginArray();
    for (const KernelCheck& c : checks) {
      w.beginObject()
          .field("kernel", c.kernel)
          .field("used-by", c.usedBy)
          .field("available", c.available)
          .field("correct", c.correct)
          .field("outputs", static_cast<long long>(c.outputs))
          .field("differing-share", c.differingShare)
          .field("max-ulps", c.maxUlps)
          .field("worst-bound-ratio", c.worstBoundRatio);
      if (c.comparedWithEmulation) {
        w.field("emulation-differing-share", c.emulationDifferingShare).field("emulation-max-ulps", c.emulationMaxUlps);
      }
      w.field("note", c.note).endObject();
    }
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

  std::cout << "LibTorch " << libtorchVersion() << ": native kernels checked against an exact reference\n";
  for (const KernelCheck& c : checks) std::cout << "  " << kernelCheckLine(c) << "\n";
  std::cout << "\nPaths with --precision-path auto on " << modelName(model) << ":\n";
  for (const ModeCapability& c : caps) {
    std::cout << "  " << (c.native ? "native    " : "emulated  ") << pathLine(c) << "\n";
  }
  return kExitOk;
}

}  // namespace ampscope::cli
