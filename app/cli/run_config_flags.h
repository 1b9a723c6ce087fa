// The configuration flags that `train` and `reproduce` share (--model, --modes, --lr, the GradScaler
// settings, clipping ...). The model's preset comes first, whatever the flag order, so the other flags
// refine it. Every problem is a CliUsageError whose message names the flag; the commands print it and
// exit with code 2.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ampscope/engine/run_config.h"

namespace ampscope::cli {

struct CliUsageError {
  std::string message;
};

double parseDoubleFlag(const std::string& flag, const std::string& text);
int64_t parseIntFlag(const std::string& flag, const std::string& text);

class RunConfigFlags {
 public:
  // Reads --model from anywhere in `args` and starts from that model's preset.
  explicit RunConfigFlags(const std::vector<std::string>& args);

  // If args[i] is a configuration flag, applies it (with its value, advancing i) and returns true.
  bool consume(const std::vector<std::string>& args, std::size_t& i);
  // The finished configuration: --clip without --clip-order means the chapter's order; validated.
  RunConfig finish();


 private:
  RunConfig config_;
  bool clipGiven_ = false;
  bool clipOrderGiven_ = false;
};

}  // namespace ampscope::cli
