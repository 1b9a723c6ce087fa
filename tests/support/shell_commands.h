// Scratch folders and shell commands for the tests that run Python against what AmpScope wrote (numpy
// reading NPY files, run.py under Debian's python3-torch).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#ifndef AMPSCOPE_TORCH_PYTHON
#define AMPSCOPE_TORCH_PYTHON "/usr/bin/python3"
#endif

namespace ampscope::test {

// The interpreter that has numpy and torch (Debian's python3-torch), not whatever python3 is on PATH.
inline const std::string kPython = AMPSCOPE_TORCH_PYTHON;

// An empty folder "ampscope_<name>" in GoogleTest's temporary folder; what an earlier run left is removed.
inline std::filesystem::path scratchDir(const std::string& name) {
  const std::filesystem::path dir = std::filesystem::path(testing::TempDir()) / ("ampscope_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

inline std::string readFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Runs a shell command, returns its exit status and fills `output` with stdout + stderr. The output goes
// through a log file named after the running test: ctest runs each test as its own process, in parallel.
inline int runCommand(const std::string& command, std::string* output) {
  const testing::TestInfo* test = testing::UnitTest::GetInstance()->current_test_info();
  std::string name = test ? std::string(test->test_suite_name()) + "." + test->name() : "outside_a_test";
  std::replace(name.begin(), name.end(), '/', '_');
  const std::filesystem::path log =
      std::filesystem::path(testing::TempDir()) / ("ampscope_cmd_" + name + ".log");
  const int status = std::system((command + " > '" + log.string() + "' 2>&1").c_str());
  *output = readFile(log);
  return status;
}

// Whether kPython can import `modules` (a comma-separated list, as Python's import statement takes).
inline bool pythonHas(const std::string& modules) {
  std::string output;
  return runCommand("'" + kPython + "' -c 'import " + modules + "'", &output) == 0;
}

}  // namespace ampscope::test
