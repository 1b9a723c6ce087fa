// `ampscope-cli follow FILE|HOST:PORT`: follows a record stream while a training run writes it (a
// growing JSON Lines file, or a probe's TCP port), printing one compact line per record (rate-limited
// with --every-seconds) and a summary at the end. Connection changes and skipped lines go to stderr.
// --jsonl copies the stream's accepted lines (the header included) to a file.
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "ampscope/engine/follow_summary.h"
#include "ampscope/engine/number_text.h"
#include "ampscope/engine/stream_follower.h"
#include "commands.h"
#include "run_config_flags.h"

namespace ampscope::cli {
namespace {

constexpr const char* kPrefix = "ampscope-cli follow: ";

volatile std::sig_atomic_t stopRequested = 0;
void requestStop(int) { stopRequested = 1; }

void printFollowUsage(std::ostream& out) {
  out << "Usage: ampscope-cli follow FILE|HOST:PORT [OPTIONS]\n"
         "\n"
         "Follows a record stream while a training run writes it: a JSON Lines file that grows (opened\n"
         "when it appears, read again from the start when it is truncated or replaced), or the TCP port\n"
         "of a training script's probe (HOST:PORT or [IPv6]:PORT; reconnects when the connection drops).\n"
         "Prints a line per record: run, rank, step, mode, loss, loss scale, skipped, gradient norm, the\n"
         "tensor with the largest FP16 underflow share, the first parameter with non-finite gradients.\n"
         "Ctrl-C (or the end of the file with --once) prints a summary. Connection changes and skipped\n"
         "lines are reported on stderr.\n"
         "\n"
         "Options:\n"
         "  --jsonl OUT             copy the stream's lines (header included) to OUT as they arrive\n"
         "  --force                 overwrite an existing --jsonl file\n"
         "  --every-seconds S       at most one record line per S seconds (the newest); 0 prints every\n"
         "                          record (default: 0.25, with --once 0)\n"
         "  --once                  read FILE to its end, print the summary and exit (files only)\n";
}

struct FollowOptions {
  FollowTarget target;
  std::string jsonlPath;
  bool force = false;
  bool once = false;
  std::optional<double> everySeconds;
};

FollowOptions parse(const std::vector<std::string>& args) {
  FollowOptions options;
  std::set<std::string> seen;
  std::optional<std::string> targetText;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg.rfind("--", 0) == 0) refuseRepeatedFlag(seen, arg, arg);
    if (arg == "--once") {
      options.once = true;
    } else if (arg == "--force") {
      options.force = true;
    } else if (arg == "--jsonl" || arg == "--every-seconds") {
      if (i + 1 >= args.size()) throw CliUsageError{"option " + arg + " needs a value"};
      const std::string& value = args[++i];
      if (arg == "--jsonl") {
        refuseEmptyPath(arg, value);
        options.jsonlPath = value;
      } else {
        const auto seconds = parseNumberText(value);
        if (!seconds || !(*seconds >= 0) || *seconds > 86400) {
          throw CliUsageError{"option --every-seconds: expected seconds from 0 to 86400, got '" + value + "'"};
        }
        options.everySeconds = *seconds;
      }
    } else if (arg.rfind("--", 0) == 0 || (arg.size() > 1 && arg[0] == '-')) {
      throw CliUsageError{"unknown option '" + arg + "' (see ampscope-cli follow --help)"};
    } else if (!targetText) {
      targetText = arg;
    } else {
      throw CliUsageError{"one FILE|HOST:PORT only (got '" + *targetText + "' and '" + arg + "')"};
    }
  }
  if (!targetText) throw CliUsageError{"no FILE|HOST:PORT given (see ampscope-cli follow --help)"};
  std::string error;
  const auto target = parseFollowTarget(*targetText, &error);
  if (!target) throw CliUsageError{"FILE|HOST:PORT: " + error};
  options.target = *target;
  if (options.once && options.target.kind == FollowTarget::Kind::Tcp) {
    throw CliUsageError{"option --once reads a file to its end; it cannot follow HOST:PORT"};
  }
  if (options.once && !std::filesystem::exists(options.target.path)) {
    throw CliUsageError{"FILE|HOST:PORT: " + options.target.path + " does not exist"};
  }
  if (!options.jsonlPath.empty()) {
    std::error_code ignored;
    if (options.target.kind == FollowTarget::Kind::File &&
        std::filesystem::exists(options.jsonlPath, ignored) &&
        std::filesystem::equivalent(options.jsonlPath, options.target.path, ignored)) {
      throw CliUsageError{"option --jsonl: '" + options.jsonlPath + "' is the file being followed"};
    }
    if (!options.force && std::filesystem::exists(options.jsonlPath, ignored)) {
      throw CliUsageError{"option --jsonl: '" + options.jsonlPath + "' exists (add --force to overwrite it)"};
    }
  }
  return options;
}

void describeHeader(const RecordStream& header) {
  const StreamSource& s = header.source;
  std::cerr << kPrefix << "stream version " << header.version << " from " << (header.app.empty() ? "?" : header.app);
  if (s.source == "probe") {
    std::cerr << ": run " << s.run << " (run-id " << s.runId << "), rank " << s.rank << " of " << s.worldSize
              << " (" << s.ranks << "), " << s.device << ", torch " << s.torch << ", every " << s.every
              << " steps, " << s.parameters.size() << " parameters";
  }
  std::cerr << "\n";
}

}  // namespace

int runFollowCommand(const std::vector<std::string>& args) {
  for (const auto& arg : args) {
    if (arg == "--help" || arg == "-h") {
      printFollowUsage(std::cout);
      return kExitOk;
    }
  }
  FollowOptions options;
  try {
    options = parse(args);
  } catch (const CliUsageError& error) {
    std::cerr << kPrefix << error.message << "\n";
    return kExitUsage;
  }

  std::ofstream copy;
  bool copyFailed = false;
  if (!options.jsonlPath.empty()) {
    copy.open(options.jsonlPath, std::ios::binary | std::ios::trunc);
    if (!copy) {
      std::cerr << kPrefix << "cannot write --jsonl file '" << options.jsonlPath << "'\n";
      return kExitFailure;
    }
  }

  StreamFollower follower(options.target);
  if (copy.is_open()) {
    follower.reader().setAcceptedLineObserver([&](std::string_view line) {
      copy.write(line.data(), static_cast<std::streamsize>(line.size()));
      copy.put('\n');
      copy.flush();  // a reader of the copy sees whole lines as they come
      if (!copy) copyFailed = true;
    });
  }

  stopRequested = 0;
  std::signal(SIGINT, requestStop);
  std::signal(SIGTERM, requestStop);

  const double every = options.everySeconds.value_or(options.once ? 0.0 : 0.25);
  using Clock = std::chrono::steady_clock;
  Clock::time_point lastPrint{};
  std::optional<ModeStep> unprinted;  // the newest record held back by --every-seconds
  FollowTotals totals;
  std::string lastState;
  bool headerDescribed = false;
  int64_t bytesBefore = -1;
  int code = kExitOk;
  while (!stopRequested) {
    const bool changed = follower.poll();
    const std::string state = follower.stateText();
    if (state != lastState) {
      std::cerr << kPrefix << state << "\n";
      lastState = state;
    }
    RecordStreamReader& reader = follower.reader();
    if (reader.headerChanged()) {
      std::cerr << kPrefix << "a new run started on this stream\n";
      headerDescribed = false;
    }
    if (reader.hasHeader() && !headerDescribed) {
      describeHeader(reader.header());
      headerDescribed = true;
    }
    for (const auto& error : reader.takeErrors()) std::cerr << kPrefix << "skipped " << error.text() << "\n";
    for (auto& step : reader.takeSteps()) {
      totals.add(step);
      const auto now = Clock::now();
      if (every <= 0 || now - lastPrint >= std::chrono::duration<double>(every)) {
        std::cout << followLine(reader.header().source, step) << std::flush;
        lastPrint = now;
        unprinted.reset();
      } else {
        unprinted = std::move(step);
      }
    }
    if (unprinted && Clock::now() - lastPrint >= std::chrono::duration<double>(every)) {
      std::cout << followLine(reader.header().source, *unprinted) << std::flush;
      lastPrint = Clock::now();
      unprinted.reset();
    }
    if (copyFailed) {
      std::cerr << kPrefix << "writing --jsonl file '" << options.jsonlPath << "' failed\n";
      code = kExitFailure;
      break;
    }
    if (options.once) {
      // The file's end: a poll that read nothing more once the file is open.
      const bool open = follower.state() == StreamFollower::State::Connected;
      if (open && follower.bytesReceived() == bytesBefore) break;
      if (!open && follower.reconnects() == 0 && !follower.lastError().empty() &&
          follower.lastError() != "not there yet") {
        std::cerr << kPrefix << "cannot read " << options.target.path << ": " << follower.lastError() << "\n";
        code = kExitFailure;
        break;
      }
      bytesBefore = follower.bytesReceived();
      continue;
    }
    if (!changed) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  if (unprinted) std::cout << followLine(follower.reader().header().source, *unprinted);
  const RecordStreamReader& reader = follower.reader();
  if (options.once && reader.bufferedBytes() > 0) {
    std::cerr << kPrefix << "the last line has no end (" << reader.bufferedBytes()
              << " bytes); it may still be being written\n";
  }
  std::cout << "\n"
            << followSummary(options.target.text(), totals, reader.dropped(), reader.malformed(), reader.oversized(),
                             follower.reconnects());
  follower.close();
  if (copy.is_open()) {
    copy.close();
    if (!copy && code == kExitOk) {
      std::cerr << kPrefix << "writing --jsonl file '" << options.jsonlPath << "' failed\n";
      code = kExitFailure;
    }
  }
  return code;
}

}  // namespace ampscope::cli
