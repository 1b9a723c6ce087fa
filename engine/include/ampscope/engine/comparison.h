// A comparison: N precision modes trained in lock-step from the SAME initial weights on the SAME batches,
// so any difference between them is caused by precision alone. Synchronous and single-threaded: call
// step() from one thread (the one that will own autocast's thread-local state). TrainingRunner wraps it
// in a thread with pause/resume/stop.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ampscope/engine/run_config.h"
#include "ampscope/engine/telemetry.h"

namespace ampscope {

class Comparison {
 public:
  // Throws std::invalid_argument when validate(config) is not empty.
  explicit Comparison(const RunConfig& config);
  ~Comparison();
  Comparison(const Comparison&) = delete;
  Comparison& operator=(const Comparison&) = delete;

  const RunConfig& config() const;
  // One lock-step over every mode that has not diverged. A diverged mode is reported once with
  // diverged=true and then left out of later records.
  StepRecord step();
  int64_t stepsDone() const;
  bool allDiverged() const;

  std::vector<ModeCapability> capabilities() const;  // native or emulated, per configured mode
  std::vector<OpDtypeEntry> opDtypeReport(PrecisionMode mode);  // runs one forward pass, no update
  MemoryLedger memoryLedger(PrecisionMode mode) const;          // from the last step of that mode

  // The lesson's "inject overflow": the next step's gradients of every mode get an inf in one element
  // after backward (before unscale_), so the scaler skips and backs off while scaler-less modes diverge.
  void injectOverflowNextStep();

  // For the "reproduce in PyTorch" export: initial parameters (name, shape, values) and the batches.
  struct NamedTensor {
    std::string name;
    std::vector<int64_t> shape;
    std::vector<float> values;        // float data (inputs, weights)
    std::vector<int64_t> intValues;   // integer data (labels, token ids); one of the two is filled
  };
  std::vector<NamedTensor> initialParameters() const;
  std::vector<NamedTensor> batch(int64_t step) const;  // inputs and targets of a 1-based step

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// What the running LibTorch can do natively (probed once per process, its GEMMs self-checked against an
// exact reference: kernel_check.h), and the path each mode takes under `path` with `threads` intra-op
// threads: Auto trains `model` on both paths where both exist and path timing is on, and takes the
// emulation only where it is bit-identical and faster (path_timing.h); it keeps native otherwise.
std::vector<ModeCapability> probeCapabilities(const std::vector<PrecisionMode>& modes,
                                              PrecisionPath path = PrecisionPath::Auto, int threads = 1,
                                              ModelKind model = ModelKind::TinyMLP);

}  // namespace ampscope
