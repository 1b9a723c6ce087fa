#include <iostream>

#include "commands.h"

namespace ampscope::cli {

int runFormatsCommand(const std::vector<std::string>&) {
  std::cerr << "ampscope-cli formats: not built yet\n";
  return kExitFailure;
}

int runConvertCommand(const std::vector<std::string>&) {
  std::cerr << "ampscope-cli convert: not built yet\n";
  return kExitFailure;
}

}  // namespace ampscope::cli
