// Runs a parameterised test once under each instruction set this CPU has (engine/src/kernel_isa.h),
// so that the loops a narrower CPU takes are checked on a wider one:
//   class MySuite : public support::UnderIsa {};
//   AMPSCOPE_UNDER_EACH_ISA(MySuite);
//   TEST_P(MySuite, Something) { ... }
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernel_isa.h"

namespace ampscope::support {

// Selects the parameter's instruction set for the test and restores the one in use afterwards.
class UnderIsa : public ::testing::TestWithParam<detail::KernelIsa> {
 protected:
  void SetUp() override { ASSERT_TRUE(detail::setKernelIsa(GetParam())) << detail::kernelIsaName(GetParam()); }
  void TearDown() override { detail::setKernelIsa(saved_); }

 private:
  detail::KernelIsa saved_ = detail::kernelIsa();
};

inline std::vector<detail::KernelIsa> isasOfThisCpu() {
  std::vector<detail::KernelIsa> isas;
  for (auto isa : {detail::KernelIsa::Baseline, detail::KernelIsa::X86_64_V3, detail::KernelIsa::X86_64_V4}) {
    if (isa <= detail::bestKernelIsa()) isas.push_back(isa);
  }
  return isas;
}

inline std::string isaTestName(const ::testing::TestParamInfo<detail::KernelIsa>& info) {
  std::string name = detail::kernelIsaName(info.param);
  for (char& c : name) c = c == '-' ? '_' : c;
  return name;
}

}  // namespace ampscope::support

#define AMPSCOPE_UNDER_EACH_ISA(suite)                                                             \
  INSTANTIATE_TEST_SUITE_P(Isa, suite, ::testing::ValuesIn(::ampscope::support::isasOfThisCpu()), \
                           ::ampscope::support::isaTestName)
