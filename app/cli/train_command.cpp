#include <iostream>

#include "commands.h"

namespace ampscope::cli {

int runTrainCommand(const std::vector<std::string>&) {
  std::cerr << "ampscope-cli train: not built yet\n";
  return kExitFailure;
}

}  // namespace ampscope::cli
