// The hand-over point between the training thread and whoever displays the data. The producer appends
// under a short lock; the consumer takes everything pending in one swap. `setNotify` installs a callback
// the producer calls (on its own thread) when the buffer goes from empty to non-empty: the UI turns it
// into one queued wake-up, never one signal per step. The buffer is bounded: when `capacity` records are
// pending the producer waits (back-pressure) rather than dropping telemetry.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <vector>

#include "ampscope/engine/telemetry.h"

namespace ampscope {

class TelemetrySink {
 public:
  explicit TelemetrySink(std::size_t capacity = 4096);

  void setNotify(std::function<void()> notify);
  // Returns false if the sink was closed while waiting for room.
  bool append(StepRecord record);
  std::vector<StepRecord> drain();
  std::size_t pending() const;
  // Wakes a producer blocked in append(); later appends are dropped. Used at shutdown.
  void close();
  void reopen();

 private:
  mutable std::mutex mutex_;
  std::condition_variable room_;
  std::vector<StepRecord> pending_;
  std::function<void()> notify_;
  std::size_t capacity_;
  bool closed_ = false;
};

}  // namespace ampscope
