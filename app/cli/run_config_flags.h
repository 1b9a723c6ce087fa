// The configuration flags that `train` and `reproduce` share, derived from the RunConfig schema
// (config_schema.h): each field's flag, its deprecated spelling, and --no-X for switches. The model's
// preset comes first, whatever the flag order, so the other flags refine it. Every problem is a
// CliUsageError whose message names the flag and the key; the commands print it and exit with code 2.
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "ampscope/engine/run_config.h"

namespace ampscope::cli {

struct CliUsageError {
  std::string message;
};

int64_t parseIntFlag(const std::string& flag, const std::string& text);

// A flag given twice is refused rather than the last one silently winning: records `key` (the flag, or
// the configuration key it sets) in `seen` and throws a CliUsageError naming `flag` when it is there.
void refuseRepeatedFlag(std::set<std::string>& seen, const std::string& key, const std::string& flag);
// A value that names a file: an empty one is refused (it would write nothing and say nothing).
void refuseEmptyPath(const std::string& flag, const std::string& value);

class RunConfigFlags {
 public:
  // Reads --model from anywhere in `args` and starts from that model's preset.
  explicit RunConfigFlags(const std::vector<std::string>& args);

  // If args[i] is a configuration flag, applies it (with its value, advancing i) and returns true.
  bool consume(const std::vector<std::string>& args, std::size_t& i);
  // The finished configuration: --clip without --clip-order means the chapter's order; --plan-file's
  // plan becomes plan.default and plan.layers, and adds the plan mode to the modes; validated.
  RunConfig finish();
  // Notes for stderr about what was accepted but should change (a deprecated flag spelling).
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  std::vector<std::string> warnings_;
  RunConfig config_;
  std::set<std::string> seen_;  // the keys set so far
  bool clipGiven_ = false;
  bool clipOrderGiven_ = false;
  std::string planFile_;  // --plan-file, read in finish()
};

// The configuration part of `train --help` and `reproduce --help`, one entry per schema field: flag,
// value name, help, bounds and the tiny-mlp preset's value; deprecated spellings are listed as such.
std::string configFlagsHelp();

}  // namespace ampscope::cli
