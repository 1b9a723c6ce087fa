// Puts the global CPU generator's state back when it goes out of scope: for work done before a run
// seeds it (building models for their shapes, training both precision paths to compare them), so a
// caller that does not seed it afterwards sees no change.
#pragma once

#include <ATen/ATen.h>

#include <mutex>

namespace ampscope::detail {

class GlobalGeneratorGuard {
 public:
  GlobalGeneratorGuard() : generator_(at::detail::getDefaultCPUGenerator()) {
    std::lock_guard<std::mutex> lock(generator_.mutex());
    state_ = generator_.get_state();
  }
  ~GlobalGeneratorGuard() {
    std::lock_guard<std::mutex> lock(generator_.mutex());
    generator_.set_state(state_);
  }
  GlobalGeneratorGuard(const GlobalGeneratorGuard&) = delete;
  GlobalGeneratorGuard& operator=(const GlobalGeneratorGuard&) = delete;

 private:
  at::Generator generator_;
  at::Tensor state_;
};

}  // namespace ampscope::detail
