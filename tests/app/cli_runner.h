// CliRunner: runs the built ampscope-cli (or another program) through the shell and captures its
// stdout, stderr and exit code, for tests that check the CLI from the outside.
//
// The path comes from the AMPSCOPE_CLI_PATH compile definition ($<TARGET_FILE:ampscope-cli>, set by
// ampscope_add_cli_test in tests/app/CMakeLists.txt). Arguments are single-quoted for /bin/sh, so
// any text (spaces, quotes, an empty string) reaches the program unchanged. stderr goes to a temporary
// file so the two streams stay apart. Optional: extra environment variables and a timeout (coreutils
// `timeout`; exit code 124 when it fires), for commands such as `train` that may run long.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace ampscope::testing {

struct CliResult {
  int exitCode = -1;  // the program's exit status; 128 + N when killed by signal N
  std::string out;    // everything written to stdout
  std::string err;    // everything written to stderr
};

class CliRunner {
 public:
#ifdef AMPSCOPE_CLI_PATH
  CliRunner() : executable_(AMPSCOPE_CLI_PATH) {}
#endif
  explicit CliRunner(std::string executable) : executable_(std::move(executable)) {}

  // Environment entries as "NAME=value"; timeoutSeconds 0 means none.
  CliRunner& setEnvironment(std::vector<std::string> environment) {
    environment_ = std::move(environment);
    return *this;
  }
  CliRunner& setTimeoutSeconds(int seconds) {
    timeoutSeconds_ = seconds;
    return *this;
  }

  CliResult run(const std::vector<std::string>& args) const {
    char errPath[] = "/tmp/ampscope-cli-test-XXXXXX";
    const int fd = mkstemp(errPath);
    if (fd < 0) throw std::runtime_error("CliRunner: cannot create a temporary file");
    close(fd);

    std::string command;
    if (!environment_.empty()) {
      command += "env";
      for (const std::string& entry : environment_) command += " " + quote(entry);
      command += " ";
    }
    if (timeoutSeconds_ > 0) command += "timeout --kill-after=5 " + std::to_string(timeoutSeconds_) + " ";
    command += quote(executable_);
    for (const std::string& arg : args) command += " " + quote(arg);
    command += " 2>" + quote(errPath);

    CliResult result;
    FILE* pipe = popen(command.c_str(), "r");
    if (pipe == nullptr) {
      std::remove(errPath);
      throw std::runtime_error("CliRunner: popen failed for " + command);
    }
    char buffer[4096];
    std::size_t n;
    while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) result.out.append(buffer, n);
    const int status = pclose(pipe);
    if (WIFEXITED(status)) {
      result.exitCode = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
      result.exitCode = 128 + WTERMSIG(status);
    }
    std::ifstream errFile(errPath, std::ios::binary);
    std::ostringstream errText;
    errText << errFile.rdbuf();
    result.err = errText.str();
    std::remove(errPath);
    return result;
  }

  // Splits output into lines (without the '\n'), e.g. for JSON Lines.
  static std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> result;
    std::istringstream stream(text);
    for (std::string line; std::getline(stream, line);) result.push_back(line);
    return result;
  }

 private:
  static std::string quote(const std::string& text) {
    std::string quoted = "'";
    for (const char c : text) {
      if (c == '\'') {
        quoted += "'\\''";
      } else {
        quoted += c;
      }
    }
    return quoted + "'";
  }

  std::string executable_;
  std::vector<std::string> environment_;
  int timeoutSeconds_ = 0;
};

}  // namespace ampscope::testing
