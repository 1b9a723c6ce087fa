// Runs a parameterised test once under each instruction set this CPU has (engine/src/kernel_isa.h),
// so that the loops a narrower CPU takes are checked on a wider one (UnderIsaVariant and
// AMPSCOPE_UNDER_EACH_ISA_VARIANT: x86-64-v4 with and without GFNI/BITALG/VBMI as well):
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

// An instruction set and, under x86-64-v4, whether GFNI/BITALG/VBMI may be used (kernelIsaHasGfni), for
// the loops that have a path with and without them (the exponent histogram's).
struct IsaVariant {
  detail::KernelIsa isa;
  bool gfni;
};

class UnderIsaVariant : public ::testing::TestWithParam<IsaVariant> {
 protected:
  void SetUp() override {
    ASSERT_TRUE(detail::setKernelIsa(GetParam().isa)) << detail::kernelIsaName(GetParam().isa);
    detail::setKernelIsaGfni(GetParam().gfni);  // false, and no change, where the CPU lacks them
  }
  void TearDown() override {
    detail::setKernelIsa(saved_);
    detail::setKernelIsaGfni(savedGfni_);
  }

 private:
  detail::KernelIsa saved_ = detail::kernelIsa();
  bool savedGfni_ = detail::kernelIsaGfniAllowed();
};

// Every instruction set of this CPU; x86-64-v4 twice where the CPU has GFNI/BITALG/VBMI, with and without.
inline std::vector<IsaVariant> isaVariantsOfThisCpu() {
  std::vector<IsaVariant> variants;
  for (auto isa : isasOfThisCpu()) {
    variants.push_back({isa, true});
    if (isa == detail::KernelIsa::X86_64_V4 && detail::cpuHasKernelGfni()) variants.push_back({isa, false});
  }
  return variants;
}

inline std::string isaVariantTestName(const ::testing::TestParamInfo<IsaVariant>& info) {
  std::string name = isaTestName({info.param.isa, info.index});
  if (info.param.isa == detail::KernelIsa::X86_64_V4 && detail::cpuHasKernelGfni()) {
    name += info.param.gfni ? "_gfni" : "_without_gfni";
  }
  return name;
}

}  // namespace ampscope::support

#define AMPSCOPE_UNDER_EACH_ISA_VARIANT(suite)                                                            \
  INSTANTIATE_TEST_SUITE_P(Isa, suite, ::testing::ValuesIn(::ampscope::support::isaVariantsOfThisCpu()), \
                           ::ampscope::support::isaVariantTestName)

#define AMPSCOPE_UNDER_EACH_ISA(suite)                                                             \
  INSTANTIATE_TEST_SUITE_P(Isa, suite, ::testing::ValuesIn(::ampscope::support::isasOfThisCpu()), \
                           ::ampscope::support::isaTestName)
