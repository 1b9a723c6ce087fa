// The counting CPU allocator: exact byte counts for tensor storage (a float is 4 bytes, IEEE-754
// binary32), peak tracking, and safe frees of memory allocated before the install.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <c10/core/CPUAllocator.h>

#include <cstdint>
#include <thread>
#include <vector>

#include "counting_allocator.h"

namespace ampscope::detail {
namespace {

// Defined first: run alone (as CTest runs each test) it sees a process without the allocator.
TEST(CountingAllocator, MemoryAllocatedBeforeInstallIsFreedWithoutTouchingTheCounts) {
  if (countingAllocatorInstalled()) GTEST_SKIP() << "another test in this process installed it first";
  torch::Tensor early = torch::ones({256, 256});
  installCountingAllocator();
  const AllocatorCounters before = allocatorCounters();
  early = torch::Tensor();  // freed by the default allocator's own deleter
  const AllocatorCounters after = allocatorCounters();
  EXPECT_EQ(after.currentBytes, before.currentBytes);
  EXPECT_EQ(after.allocations, before.allocations);
}

TEST(CountingAllocator, A1000x1000FloatTensorCountsExactly4000000Bytes) {
  installCountingAllocator();
  resetAllocatorPeak();
  const AllocatorCounters before = allocatorCounters();
  torch::Tensor t = torch::empty({1000, 1000}, torch::kFloat);
  const AllocatorCounters during = allocatorCounters();
  EXPECT_EQ(during.currentBytes - before.currentBytes, 4'000'000);
  EXPECT_EQ(during.peakBytes - before.currentBytes, 4'000'000);
  EXPECT_EQ(during.allocations - before.allocations, 1);
  t = torch::Tensor();
  const AllocatorCounters after = allocatorCounters();
  EXPECT_EQ(after.currentBytes, before.currentBytes);
  EXPECT_EQ(after.peakBytes, during.peakBytes) << "the peak remembers";
  resetAllocatorPeak();
  EXPECT_EQ(allocatorCounters().peakBytes, after.currentBytes);
}

TEST(CountingAllocator, PeakSeesTemporariesOfAMatmul) {
  // (1000x1000) @ (1000x1000) in float32: two inputs and one output of 4,000,000 bytes each.
  installCountingAllocator();
  const int64_t base = allocatorCounters().currentBytes;
  resetAllocatorPeak();
  {
    const torch::Tensor a = torch::ones({1000, 1000});
    const torch::Tensor b = torch::ones({1000, 1000});
    const torch::Tensor c = torch::matmul(a, b);
    EXPECT_EQ(allocatorCounters().currentBytes - base, 12'000'000);
  }
  EXPECT_EQ(allocatorCounters().currentBytes, base);
  EXPECT_GE(allocatorCounters().peakBytes - base, 12'000'000);
}

TEST(CountingAllocator, InstallIsIdempotent) {
  installCountingAllocator();
  c10::Allocator* first = c10::GetCPUAllocator();
  installCountingAllocator();
  EXPECT_EQ(c10::GetCPUAllocator(), first);
  const int64_t base = allocatorCounters().currentBytes;
  torch::Tensor t = torch::empty({1000}, torch::kDouble);
  EXPECT_EQ(allocatorCounters().currentBytes - base, 8000) << "counted once, not twice";
}

TEST(CountingAllocator, KeepsSixtyFourByteAlignmentAndRawAllocation) {
  installCountingAllocator();
  const int64_t base = allocatorCounters().currentBytes;
  torch::Tensor t = torch::empty({3}, torch::kByte);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(t.data_ptr()) % 64, 0u);
  // raw_allocate requires data == context, which the header layout keeps.
  c10::Allocator* allocator = c10::GetCPUAllocator();
  void* raw = allocator->raw_allocate(100);
  ASSERT_NE(raw, nullptr);
  EXPECT_EQ(allocatorCounters().currentBytes - base, 103);
  allocator->raw_deallocate(raw);
  EXPECT_EQ(allocatorCounters().currentBytes - base, 3);
}

TEST(CountingAllocator, EmptyTensorsCountNothing) {
  installCountingAllocator();
  const AllocatorCounters before = allocatorCounters();
  torch::Tensor t = torch::empty({0, 5});
  EXPECT_EQ(allocatorCounters().currentBytes, before.currentBytes);
  t = torch::Tensor();
  EXPECT_EQ(allocatorCounters().currentBytes, before.currentBytes);
}

TEST(CountingAllocator, ConcurrentAllocationsBalance) {
  // Process-global atomics: threads allocating and freeing at once leave the count where it was.
  installCountingAllocator();
  const int64_t base = allocatorCounters().currentBytes;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([] {
      for (int i = 0; i < 500; ++i) {
        torch::Tensor x = torch::empty({1 + i % 97}, torch::kFloat);
        x.fill_(1.0f);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(allocatorCounters().currentBytes, base);
}

}  // namespace
}  // namespace ampscope::detail
