// ampscope-cli: the engine without a window. Subcommands: formats, convert, train, reproduce, follow,
// kernels, advise, plan.
#include <unistd.h>

#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "ampscope/engine/version.h"
#include "commands.h"
#include "stdout_buffer.h"

namespace {

void printUsage(std::ostream& out) {
  out << "Usage: ampscope-cli COMMAND [OPTIONS]\n"
         "\n"
         "Commands:\n"
         "  formats [--json]              finfo table of FP64, FP32, TF32, FP16, BF16, FP8 E4M3FN, FP8 E5M2\n"
         "                                (--elements 1e9 adds the memory table; formats --help)\n"
         "  convert [--json] VALUE...     bits, stored value, rounding error and class of each VALUE\n"
         "                                in every dtype (VALUE: 1e-8, 65504, -0, inf, nan, 0x3c00;\n"
         "                                --dtypes fp16,bf16 to choose; convert --help)\n"
         "  train [OPTIONS]               train precision modes side by side (train --help)\n"
         "  reproduce DIR [OPTIONS]       write run.py + weights + batches to rerun it in PyTorch\n"
         "  follow FILE|HOST:PORT         follow a training run's record stream as it is written\n"
         "                                (a growing .jsonl file or a probe's TCP port; follow --help)\n"
         "  kernels [--model M] [--json]  check this LibTorch's native kernels against an exact reference\n"
         "                                and show the path auto takes per mode (kernels --help)\n"
         "  advise RUN [--plan FILE]      which layers hold which formats in a recorded run (a probe or\n"
         "                                train --jsonl stream, or a session), and a precision plan\n"
         "                                (advise --help)\n"
         "  plan --model M --target MODE  find by training the fewest layers to keep in higher precision\n"
         "                                so that MODE trains like FP32 (plan --help)\n"
         "\n"
         "Options:\n"
         "  --version                     print the version of AmpScope and LibTorch\n"
         "  --help                        print this help\n";
}

// Everything the command printed reaches stdout here or never: a full disk or a closed pipe makes a
// write fail, and the command's success is then a failure.
int finishStdout(ampscope::cli::StdoutBuffer& out, int code) {
  std::cout.flush();
  if (out.flushAll() && std::cout) return code;
  const int reason = out.firstError();
  std::cerr << "ampscope-cli: cannot write to standard output" << (reason != 0 ? ": " : "")
            << (reason != 0 ? std::strerror(reason) : "") << "\n";
  return code == ampscope::cli::kExitOk ? ampscope::cli::kExitFailure : code;
}

int runCommand(const std::string& command, const std::vector<std::string>& rest, bool* known) {
  *known = true;
  if (command == "formats") return ampscope::cli::runFormatsCommand(rest);
  if (command == "convert") return ampscope::cli::runConvertCommand(rest);
  if (command == "train") return ampscope::cli::runTrainCommand(rest);
  if (command == "reproduce") return ampscope::cli::runReproduceCommand(rest);
  if (command == "follow") return ampscope::cli::runFollowCommand(rest);
  if (command == "kernels") return ampscope::cli::runKernelsCommand(rest);
  if (command == "advise") return ampscope::cli::runAdviseCommand(rest);
  if (command == "plan") return ampscope::cli::runPlanCommand(rest);
  *known = false;
  return ampscope::cli::kExitUsage;
}

int run(int argc, char** argv, ampscope::cli::StdoutBuffer& out) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    printUsage(std::cerr);
    return ampscope::cli::kExitUsage;
  }
  const std::string command = args.front();
  std::vector<std::string> rest(args.begin() + 1, args.end());
  if (command == "--help" || command == "-h" || command == "help") {
    printUsage(std::cout);
    return finishStdout(out, ampscope::cli::kExitOk);
  }
  if (command == "--version") {
    std::cout << "ampscope-cli " << ampscope::ampscopeVersion() << " (LibTorch "
              << ampscope::libtorchVersion() << ", " << ampscope::licenseName() << ")\n";
    return finishStdout(out, ampscope::cli::kExitOk);
  }
  try {
    bool known = false;
    const int code = runCommand(command, rest, &known);
    if (known) return finishStdout(out, code);
  } catch (const std::exception& e) {
    std::cerr << "ampscope-cli: " << e.what() << "\n";
    return ampscope::cli::kExitFailure;
  }
  std::cerr << "ampscope-cli: unknown command '" << command << "'\n\n";
  printUsage(std::cerr);
  return ampscope::cli::kExitUsage;
}

}  // namespace

int main(int argc, char** argv) {
  ampscope::cli::StdoutBuffer out(STDOUT_FILENO);
  std::streambuf* const stdioBuffer = std::cout.rdbuf(&out);
  const int code = run(argc, argv, out);
  std::cout.rdbuf(stdioBuffer);  // `out` dies before std::cout is flushed at exit
  return code;
}
