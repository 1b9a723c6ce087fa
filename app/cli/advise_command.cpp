// `ampscope-cli advise RUN`: reads a probe stream, an engine stream (`train --jsonl`) or a saved session
// with the record and session codecs, and prints per layer and tensor role which formats hold the tensor
// safely, the evidence, whether FP16 needs a GradScaler, and a per-layer precision plan
// (precision_advice.h); --plan writes the plan file (precision_plan.h), --json the whole advice.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ampscope/engine/json.h"
#include "ampscope/engine/number_text.h"
#include "ampscope/engine/precision_advice.h"
#include "ampscope/engine/precision_plan.h"
#include "ampscope/engine/record_stream_reader.h"
#include "ampscope/engine/session_codec.h"
#include "commands.h"
#include "run_config_flags.h"

namespace ampscope::cli {
namespace {

constexpr const char* kPrefix = "ampscope-cli advise: ";
// A session is decoded from memory; one larger than this is not one AmpScope wrote for a run it can show.
constexpr std::uintmax_t kMaxSessionBytes = std::uintmax_t{1} << 30;
constexpr std::size_t kChunkBytes = std::size_t{1} << 20;

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
  std::string target = "auto";
  std::optional<PrecisionMode> mode;
  int64_t followed = 1;
  AdviceThresholds thresholds;
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
        o.target = value;
      } else if (arg == "--mode") {
        o.mode = parseMode(value);
        if (!o.mode) throw CliUsageError{"option --mode: unknown mode '" + value + "'"};
      } else if (arg == "--followed") {
        o.followed = parseIntFlag(arg, value);
        if (o.followed < 1) throw CliUsageError{"option --followed: expected a run number >= 1, got '" + value + "'"};
      } else if (arg == "--min-steps") {
        o.thresholds.minSteps = parseIntFlag(arg, value);
        if (o.thresholds.minSteps < 1 || o.thresholds.minSteps > 1000000)
          throw CliUsageError{"option --min-steps: expected a count from 1 to 1000000, got '" + value + "'"};
      } else if (arg == "--unsafe-flush-share") {
        o.thresholds.unsafeFlushShare = parseShareFlag(arg, value);
      } else if (arg == "--caution-flush-share") {
        o.thresholds.cautionFlushShare = parseShareFlag(arg, value);
      } else if (arg == "--caution-subnormal-share") {
        o.thresholds.cautionSubnormalShare = parseShareFlag(arg, value);
      } else if (arg == "--unsafe-overflow-share") {
        o.thresholds.unsafeOverflowShare = parseShareFlag(arg, value);
      } else {
        const auto number = parseNumberText(value);
        if (!number || !(*number >= 0 && *number <= 200))
          throw CliUsageError{"option --sqnr-margin-db: expected decibels from 0 to 200, got '" + value + "'"};
        o.thresholds.sqnrMarginDb = *number;
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
  if (run->empty()) throw CliUsageError{"RUN: an empty file name"};
  o.run = *run;
  namespace fs = std::filesystem;
  std::error_code ignored;
  if (!fs::exists(o.run, ignored)) throw CliUsageError{"RUN: '" + o.run + "' does not exist"};
  if (fs::is_directory(o.run, ignored)) throw CliUsageError{"RUN: '" + o.run + "' is a folder, not a file"};
  if (!o.planPath.empty()) {
    if (fs::exists(o.planPath, ignored) && fs::equivalent(o.planPath, o.run, ignored))
      throw CliUsageError{"option --plan: '" + o.planPath + "' is RUN itself"};
    if (!o.force && fs::exists(o.planPath, ignored))
      throw CliUsageError{"option --plan: '" + o.planPath + "' exists (add --force to overwrite it)"};
  }
  return o;
}

// What was read: the steps went to the builder as they came; these say what the run was.
struct ReadResult {
  RunIdentity identity;
  std::vector<PrecisionMode> modes;  // the modes seen, in order
  std::optional<AdviceBuilder> builder;
  std::optional<PrecisionMode> judged;
};

void feedStep(ReadResult& r, const AdviseOptions& o, const RunConfig* config, const ModeStep& step) {
  if (std::find(r.modes.begin(), r.modes.end(), step.mode) == r.modes.end()) r.modes.push_back(step.mode);
  if (!r.builder) {
    PrecisionMode judged = step.mode;
    if (o.mode) {
      judged = *o.mode;
    } else if (config && !config->modes.empty()) {
      const auto& modes = config->modes;
      const bool hasFp32 = std::find(modes.begin(), modes.end(), PrecisionMode::FP32) != modes.end();
      judged = hasFp32 ? PrecisionMode::FP32 : modes.front();
    }
    r.judged = judged;
    r.builder.emplace(judged, o.thresholds);
    if (config) r.builder->setEngineModel(config->model);
  }
  r.builder->add(step);
}

// Throws CliUsageError naming what does not read.
ReadResult readStream(const AdviseOptions& o) {
  ReadResult r;
  std::ifstream in(o.run, std::ios::binary);
  if (!in) throw CliUsageError{"RUN: cannot open '" + o.run + "'"};
  RecordStreamReader reader;
  std::vector<char> buffer(kChunkBytes);
  std::optional<RunConfig> config;
  bool configRead = false;
  const auto drain = [&] {
    for (const auto& error : reader.takeErrors()) throw CliUsageError{"RUN: " + error.text()};
    if (reader.headerChanged()) throw CliUsageError{"RUN: a second run starts in the stream; advise reads one run"};
    if (reader.hasHeader() && !configRead) {
      configRead = true;
      config = reader.header().config;
    }
    for (const auto& step : reader.takeSteps()) feedStep(r, o, config ? &*config : nullptr, step);
  };
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    const std::streamsize n = in.gcount();
    if (n > 0) reader.feed(std::string_view(buffer.data(), static_cast<size_t>(n)));
    drain();
  }
  if (in.bad()) throw CliUsageError{"RUN: reading '" + o.run + "' failed"};
  if (reader.bufferedBytes() > 0) {
    std::cerr << kPrefix << "the last line of " << o.run << " has no end (" << reader.bufferedBytes()
              << " bytes); it may still be being written and is left out\n";
  }
  if (!reader.hasHeader()) throw CliUsageError{"RUN: '" + o.run + "' has no record stream header"};
  const RecordStream& header = reader.header();
  r.identity.kind = header.source.source == "probe" ? "probe-stream" : "engine-stream";
  r.identity.run = header.source.run;
  r.identity.runId = header.source.runId;
  return r;
}

ReadResult readSession(const AdviseOptions& o) {
  namespace fs = std::filesystem;
  std::error_code sizeError;
  const auto size = fs::file_size(o.run, sizeError);
  if (sizeError) throw CliUsageError{"RUN: cannot read '" + o.run + "': " + sizeError.message()};
  if (size > kMaxSessionBytes) {
    throw CliUsageError{"RUN: '" + o.run + "' is neither a record stream nor a session AmpScope reads (" +
                        std::to_string(size) + " bytes, sessions up to " + std::to_string(kMaxSessionBytes) + ")"};
  }
  std::ifstream in(o.run, std::ios::binary);
  if (!in) throw CliUsageError{"RUN: cannot open '" + o.run + "'"};
  std::string text(static_cast<size_t>(size), '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.gcount() != static_cast<std::streamsize>(text.size())) throw CliUsageError{"RUN: reading '" + o.run + "' failed"};
  SessionError error;
  const auto session = decodeSession(text, &error);
  if (!session) {
    throw CliUsageError{"RUN: '" + o.run + "' is neither a record stream nor a session: " + error.text()};
  }
  ReadResult r;
  r.identity.kind = "session";
  r.identity.run = session->lesson;
  if (!session->records.empty()) {
    for (const auto& record : session->records)
      for (const auto& step : record.modes) feedStep(r, o, &session->config, step);
  } else if (!session->followed.empty()) {
    if (o.followed > static_cast<int64_t>(session->followed.size())) {
      throw CliUsageError{"option --followed: the session holds " + std::to_string(session->followed.size()) +
                          " followed runs, not " + std::to_string(o.followed)};
    }
    const FollowedRun& followed = session->followed[static_cast<size_t>(o.followed - 1)];
    r.identity.run = followed.source.run;
    r.identity.runId = followed.source.runId;
    for (const auto& step : followed.steps) feedStep(r, o, nullptr, step);
  }
  return r;
}

// Whether the file's first non-blank line is a JSON object: a record stream (a header, or an old
// headerless record); a session's first line is not a JSON value on its own.
bool looksLikeStream(const std::string& path, bool* empty) {
  std::ifstream in(path, std::ios::binary);
  std::string line;
  *empty = true;
  constexpr std::size_t kMaxProbeLine = 64u << 20;
  while (in) {
    line.clear();
    char c = 0;
    while (in.get(c) && c != '\n') {
      if (line.size() >= kMaxProbeLine) return false;
      line.push_back(c);
    }
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    *empty = false;
    JsonParseError error;
    const auto value = parseJson(line, &error);
    return value && value->isObject();
  }
  return false;
}

bool writePlan(const std::string& path, const std::string& text) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) return false;
    out << text;
    out.flush();
    if (!out) {
      out.close();
      std::remove(temporary.c_str());
      return false;
    }
  }
  std::error_code error;
  std::filesystem::rename(temporary, path, error);
  if (error) std::remove(temporary.c_str());
  return !error;
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
  ReadResult read;
  try {
    options = parse(args);
    bool empty = true;
    const bool stream = looksLikeStream(options.run, &empty);
    if (empty) throw CliUsageError{"RUN: '" + options.run + "' is empty"};
    read = stream ? readStream(options) : readSession(options);
    if (options.mode && std::find(read.modes.begin(), read.modes.end(), *options.mode) == read.modes.end()) {
      std::string modes;
      for (PrecisionMode m : read.modes) modes += (modes.empty() ? "" : ", ") + modeName(m);
      throw CliUsageError{"option --mode: the run has no " + modeName(*options.mode) + " records (it has: " +
                          (modes.empty() ? std::string("none") : modes) + ")"};
    }
  } catch (const CliUsageError& error) {
    std::cerr << kPrefix << error.message << "\n";
    return kExitUsage;
  }
  read.identity.file = options.run;
  AdviceBuilder empty(options.mode.value_or(PrecisionMode::FP32), options.thresholds);
  AdviceBuilder& builder = read.builder ? *read.builder : empty;
  const PrecisionAdvice advice = builder.finish(read.identity, options.target);

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
    if (!writePlan(options.planPath, encodePrecisionPlan(planOf(advice)))) {
      std::cerr << kPrefix << "writing --plan file '" << options.planPath << "' failed\n";
      return kExitFailure;
    }
    if (!options.json) std::cout << "plan written to " << options.planPath << "\n";
  }
  return kExitOk;
}

}  // namespace ampscope::cli
