#include "counting_allocator.h"

#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>

#include <atomic>
#include <cstddef>
#include <mutex>

#include "torch_compat.h"

namespace ampscope::detail {
namespace {

std::atomic<int64_t> gCurrentBytes{0};
std::atomic<int64_t> gPeakBytes{0};
std::atomic<int64_t> gAllocations{0};
thread_local bool tUncounted = false;

// Every counted block is preceded by this header inside the wrapped allocation, so the block's data
// pointer is also its context (raw_allocate()/raw_deleter() keep working) and the free path knows the
// size and the wrapped allocator's own deleter without a side table. kHeaderBytes keeps the data at
// the wrapped allocator's 64-byte alignment.
struct BlockHeader {
  int64_t bytes;
  void* baseContext;
  c10::DeleterFnPtr baseDeleter;
};
constexpr std::size_t kHeaderBytes = 64;
static_assert(sizeof(BlockHeader) <= kHeaderBytes, "the header must fit in front of the data");

void raisePeak(int64_t current) {
  int64_t peak = gPeakBytes.load(std::memory_order_relaxed);
  while (current > peak &&
         !gPeakBytes.compare_exchange_weak(peak, current, std::memory_order_relaxed)) {
  }
}

void countingDelete(void* data) {
  if (data == nullptr) return;
  auto* header = reinterpret_cast<BlockHeader*>(static_cast<char*>(data) - kHeaderBytes);
  const BlockHeader copy = *header;
  gCurrentBytes.fetch_sub(copy.bytes, std::memory_order_relaxed);
  if (copy.baseDeleter != nullptr) copy.baseDeleter(copy.baseContext);
}

class CountingAllocator final : public c10::Allocator {
 public:
  explicit CountingAllocator(c10::Allocator* base) : base_(base) {}

  // LibTorch 2.3 made c10::Allocator::allocate non-const (it may change the allocator's state) and added
  // the pure virtual copy_data (below); 1.13 has the const allocate and no copy_data.
#if AMPSCOPE_TORCH_AT_LEAST(2, 3)
  c10::DataPtr allocate(size_t nbytes) override {
#else
  c10::DataPtr allocate(size_t nbytes) const override {
#endif
    // Zero-byte tensors own no memory; the wrapped allocator's empty DataPtr frees nothing either.
    if (nbytes == 0) return base_->allocate(0);
    c10::DataPtr block = base_->allocate(nbytes + kHeaderBytes);
    char* raw = static_cast<char*>(block.get());
    const c10::DeleterFnPtr baseDeleter = block.get_deleter();
    void* baseContext = block.release_context();
    auto* header = reinterpret_cast<BlockHeader*>(raw);
    header->bytes = tUncounted ? 0 : static_cast<int64_t>(nbytes);  // what the free subtracts
    header->baseContext = baseContext;
    header->baseDeleter = baseDeleter;
    void* data = raw + kHeaderBytes;
    if (tUncounted) return {data, data, &countingDelete, c10::Device(c10::DeviceType::CPU)};

    const int64_t current =
        gCurrentBytes.fetch_add(static_cast<int64_t>(nbytes), std::memory_order_relaxed) +
        static_cast<int64_t>(nbytes);
    raisePeak(current);
    gAllocations.fetch_add(1, std::memory_order_relaxed);
    return {data, data, &countingDelete, c10::Device(c10::DeviceType::CPU)};
  }

  c10::DeleterFnPtr raw_deleter() const override { return &countingDelete; }

#if AMPSCOPE_TORCH_AT_LEAST(2, 3)
  // Copies between blocks of this allocator (Storage clones): plain memory, as the CPU allocator's.
  void copy_data(void* dest, const void* src, std::size_t count) const override {
    default_copy_data(dest, src, count);
  }
#endif

 private:
  c10::Allocator* base_;
};

std::once_flag gInstallOnce;
std::atomic<bool> gInstalled{false};

}  // namespace

void installCountingAllocator() {
  std::call_once(gInstallOnce, [] {
    // Never destroyed: tensors may outlive static destruction order at exit.
    static auto* allocator = new CountingAllocator(c10::GetDefaultCPUAllocator());
    c10::SetCPUAllocator(allocator, /*priority=*/100);
    gInstalled.store(true);
  });
}

bool countingAllocatorInstalled() { return gInstalled.load(); }

AllocatorCounters allocatorCounters() {
  return AllocatorCounters{gCurrentBytes.load(std::memory_order_relaxed),
                           gPeakBytes.load(std::memory_order_relaxed),
                           gAllocations.load(std::memory_order_relaxed)};
}

void resetAllocatorPeak() { gPeakBytes.store(gCurrentBytes.load(std::memory_order_relaxed)); }

UncountedAllocations::UncountedAllocations() : previous_(tUncounted) { tUncounted = true; }
UncountedAllocations::~UncountedAllocations() { tUncounted = previous_; }

}  // namespace ampscope::detail
