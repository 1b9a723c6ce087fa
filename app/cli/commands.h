// The subcommands of ampscope-cli. Each takes its own arguments (argv after the subcommand name) and
// returns the process exit code: 0 success, 1 runtime failure, 2 bad arguments or configuration.
#pragma once

#include <string>
#include <vector>

namespace ampscope::cli {

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;  // an argument or a value that does not parse / validate

int runFormatsCommand(const std::vector<std::string>& args);
int runConvertCommand(const std::vector<std::string>& args);
int runTrainCommand(const std::vector<std::string>& args);
int runReproduceCommand(const std::vector<std::string>& args);  // reproduce_command.cpp
int runFollowCommand(const std::vector<std::string>& args);     // follow_command.cpp
int runKernelsCommand(const std::vector<std::string>& args);    // kernels_command.cpp
int runAdviseCommand(const std::vector<std::string>& args);     // advise_command.cpp
int runPlanCommand(const std::vector<std::string>& args);       // plan_command.cpp

}  // namespace ampscope::cli
