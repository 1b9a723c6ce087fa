#include "run_config_flags.h"

#include <cerrno>
#include <cstdlib>
#include <functional>
#include <map>
#include <sstream>

namespace ampscope::cli {

double parseDoubleFlag(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size()) {
    throw CliUsageError{"invalid " + flag + ": not a number (got '" + text + "')"};
  }
  return value;
}

int64_t parseIntFlag(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  errno = 0;
  const long long value = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE) {
    throw CliUsageError{"invalid " + flag + ": not an integer (got '" + text + "')"};
  }
  return value;
}

namespace {

std::string knownModes() {
  std::string text;
  for (PrecisionMode mode : allPrecisionModes()) text += (text.empty() ? "" : ", ") + modeName(mode);
  return text;
}

std::vector<PrecisionMode> parseModes(const std::string& text) {
  std::vector<PrecisionMode> modes;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) {
    const auto mode = parseMode(item);
    if (!mode) {
      throw CliUsageError{"invalid --modes: unknown mode '" + item + "' (known: " + knownModes() + ")"};
    }
    modes.push_back(*mode);
  }
  return modes;
}

}  // namespace

RunConfigFlags::RunConfigFlags(const std::vector<std::string>& args) {
  ModelKind model = ModelKind::TinyMLP;
  for (std::size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] == "--model") {
      const auto parsed = parseModel(args[i + 1]);
      if (!parsed) {
        throw CliUsageError{"invalid --model: unknown model '" + args[i + 1] +
                            "' (known: tiny-mlp, deep-mlp, tiny-transformer)"};
      }
      model = *parsed;
    }
  }
  config_ = presetFor(model);
}

bool RunConfigFlags::consume(const std::vector<std::string>& args, std::size_t& i) {
  const std::string& flag = args[i];
  if (flag == "--scaler-for-fp16-pure") {
    config_.scalerForPureFp16 = true;
    return true;
  }
  RunConfig& c = config_;
  using Setter = std::function<void(const std::string&)>;
  const std::map<std::string, Setter> valued = {
      {"--model", [](const std::string&) {}},  // already applied as the preset
      {"--modes", [&](const std::string& v) { c.modes = parseModes(v); }},
      {"--steps", [&](const std::string& v) { c.steps = parseIntFlag(flag, v); }},
      {"--seed",
       [&](const std::string& v) {
         const int64_t seed = parseIntFlag(flag, v);
         if (seed < 0) throw CliUsageError{"invalid --seed: must be >= 0 (got " + v + ")"};
         c.seed = static_cast<uint64_t>(seed);
       }},
      {"--lr", [&](const std::string& v) { c.lr = parseDoubleFlag(flag, v); }},
      {"--batch", [&](const std::string& v) { c.batchSize = parseIntFlag(flag, v); }},
      {"--optimizer",
       [&](const std::string& v) {
         const auto parsed = parseOptimizer(v);
         if (!parsed) throw CliUsageError{"invalid --optimizer: unknown optimizer '" + v + "' (sgd, adamw)"};
         c.optimizer = *parsed;
       }},
      {"--momentum", [&](const std::string& v) { c.momentum = parseDoubleFlag(flag, v); }},
      {"--weight-decay", [&](const std::string& v) { c.weightDecay = parseDoubleFlag(flag, v); }},
      {"--adam-eps", [&](const std::string& v) { c.adamEps = parseDoubleFlag(flag, v); }},
      {"--loss-weight", [&](const std::string& v) { c.lossWeight = parseDoubleFlag(flag, v); }},
      {"--clip",
       [&](const std::string& v) {
         c.clipMaxNorm = parseDoubleFlag(flag, v);
         clipGiven_ = true;
       }},
      {"--clip-order",
       [&](const std::string& v) {
         const auto parsed = parseClipOrder(v);
         if (!parsed) {
           throw CliUsageError{"invalid --clip-order: unknown order '" + v +
                               "' (off, after-unscale, before-unscale)"};
         }
         c.clipOrder = *parsed;
         clipOrderGiven_ = true;
       }},
      {"--init-scale", [&](const std::string& v) { c.scaler.initScale = parseDoubleFlag(flag, v); }},
      {"--growth-interval", [&](const std::string& v) { c.scaler.growthInterval = parseIntFlag(flag, v); }},
      {"--growth-factor", [&](const std::string& v) { c.scaler.growthFactor = parseDoubleFlag(flag, v); }},
      {"--backoff-factor", [&](const std::string& v) { c.scaler.backoffFactor = parseDoubleFlag(flag, v); }},
      {"--instrument-every", [&](const std::string& v) { c.instrumentEvery = parseIntFlag(flag, v); }},
      {"--threads",
       [&](const std::string& v) {
         const int64_t threads = parseIntFlag(flag, v);
         if (threads < 1 || threads > 256) {
           throw CliUsageError{"invalid --threads: must be in [1, 256] (got " + v + ")"};
         }
         c.threadsPerMode = static_cast<int>(threads);
       }},
  };
  const auto it = valued.find(flag);
  if (it == valued.end()) return false;
  if (i + 1 >= args.size()) throw CliUsageError{"option " + flag + " needs a value"};
  it->second(args[++i]);
  return true;
}

RunConfig RunConfigFlags::finish() {
  if (clipGiven_ && !clipOrderGiven_) config_.clipOrder = ClipOrder::AfterUnscale;
  const auto errors = validate(config_);
  if (!errors.empty()) {
    throw CliUsageError{"invalid --" + errors.front().field + ": " + errors.front().message};
  }
  return config_;
}

}  // namespace ampscope::cli
