// Counting, per class, how many values of an array fall in it, at vector speed: each class has one
// narrow counter per lane (Lane: uint8_t or uint16_t, kLanes of them), which the compiler keeps in a
// vector register and adds a compare's 0/1 to, and which is summed into 64-bit totals before it could
// wrap. The classes are given as predicates on one value; the function is inlined into a loop compiled
// per instruction set (AMPSCOPE_VECTOR_CLONES), where it vectorises: kLanes = one register's worth of
// Lanes in the widest clone (64 bytes, 32 uint16_t), so that the loop over a group is one vector op.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>

#include "kernel_isa.h"

namespace ampscope::detail {

// counts[j] += how many of in[0, n) satisfy inClass[j].
template <typename Lane, int kLanes, typename T, typename... Classes>
AMPSCOPE_ALWAYS_INLINE void countInLanes(const T* __restrict in, int64_t n, uint64_t* counts,
                                         Classes... inClass) {
  constexpr int kClasses = sizeof...(Classes);
  constexpr int64_t kChunk = int64_t{kLanes} * std::numeric_limits<Lane>::max();
  for (int64_t start = 0; start < n; start += kChunk) {
    const int64_t end = std::min(n, start + kChunk);
    Lane lanes[kClasses][kLanes] = {};
    int64_t i = start;
    for (; i + kLanes <= end; i += kLanes) {
      for (int l = 0; l < kLanes; ++l) {
        const T v = in[i + l];
        int j = 0;
        ((lanes[j][l] = static_cast<Lane>(lanes[j][l] + inClass(v)), ++j), ...);
      }
    }
    for (; i < end; ++i) {
      int j = 0;
      ((counts[j] += inClass(in[i]), ++j), ...);
    }
    for (int j = 0; j < kClasses; ++j) {
      for (int l = 0; l < kLanes; ++l) counts[j] += lanes[j][l];
    }
  }
}

}  // namespace ampscope::detail
