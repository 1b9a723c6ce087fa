#include "ampscope/engine/telemetry_sink.h"

#include <stdexcept>
#include <utility>

namespace ampscope {

TelemetrySink::TelemetrySink(std::size_t capacity) : capacity_(capacity) {
  if (capacity == 0) throw std::invalid_argument("TelemetrySink: capacity must be at least 1");
  pending_.reserve(capacity < 256 ? capacity : 256);
}

void TelemetrySink::setNotify(std::function<void()> notify) {
  std::lock_guard<std::mutex> lock(mutex_);
  notify_ = std::move(notify);
}

bool TelemetrySink::append(StepRecord record) {
  std::function<void()> notify;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    room_.wait(lock, [this] { return closed_ || pending_.size() < capacity_; });
    if (closed_) return false;
    const bool wasEmpty = pending_.empty();
    pending_.push_back(std::move(record));
    if (wasEmpty) notify = notify_;
  }
  // Outside the lock: the callback may post to another thread, which may drain() at once.
  if (notify) notify();
  return true;
}

std::vector<StepRecord> TelemetrySink::drain() {
  std::vector<StepRecord> taken;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    taken.swap(pending_);
  }
  room_.notify_all();
  return taken;
}

std::size_t TelemetrySink::pending() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return pending_.size();
}

void TelemetrySink::close() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
  }
  room_.notify_all();
}

void TelemetrySink::reopen() {
  std::lock_guard<std::mutex> lock(mutex_);
  closed_ = false;
}

}  // namespace ampscope
