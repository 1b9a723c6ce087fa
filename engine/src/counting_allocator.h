// A counting CPU allocator: wraps c10::GetDefaultCPUAllocator() and is installed with
// c10::SetCPUAllocator(&allocator, /*priority=*/100), so every CPU tensor allocation after the
// install is counted (current bytes, peak bytes, number of allocations).
//
// The counters are process-global atomics: two trainers running concurrently share them, so a
// per-step peak is only meaningful for a process that trains one comparison at a time (a Comparison
// runs its modes in lock-step on one thread, which is fine).
//
// Install early in process life. Memory allocated before the install keeps its original deleter
// and is freed by it, never through the counting path, so it neither counts nor corrupts the counts;
// only allocations made through this allocator are subtracted when they die.
#pragma once

#include <cstdint>

namespace ampscope::detail {

// Idempotent and thread-safe.
void installCountingAllocator();
bool countingAllocatorInstalled();

struct AllocatorCounters {
  int64_t currentBytes;  // requested bytes of live allocations made through the counting allocator
  int64_t peakBytes;     // the maximum of currentBytes since install or the last resetAllocatorPeak()
  int64_t allocations;   // allocations made through it since install (monotonic)
};
AllocatorCounters allocatorCounters();
void resetAllocatorPeak();  // peak := current

// While one is alive, the calling thread's allocations are not counted (neither now nor when they are
// freed): for instruments' own scratch tensors, which the training would not hold without them.
class UncountedAllocations {
 public:
  UncountedAllocations();
  ~UncountedAllocations();
  UncountedAllocations(const UncountedAllocations&) = delete;
  UncountedAllocations& operator=(const UncountedAllocations&) = delete;

 private:
  bool previous_;
};

}  // namespace ampscope::detail
