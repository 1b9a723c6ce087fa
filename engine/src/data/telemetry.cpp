#include "ampscope/engine/telemetry.h"

namespace ampscope {

int64_t ExponentHistogram::total() const {
  int64_t sum = zero + posInf + negInf + nan;
  for (const int64_t count : counts) sum += count;
  return sum;
}

void ExponentHistogram::add(const ExponentHistogram& other) {
  for (size_t i = 0; i < counts.size(); ++i) counts[i] += other.counts[i];
  zero += other.zero;
  posInf += other.posInf;
  negInf += other.negInf;
  nan += other.nan;
  targetSubnormal += other.targetSubnormal;
  targetUnderflow += other.targetUnderflow;
}

void RoundingCounts::add(const RoundingCounts& other) {
  elements += other.elements;
  flushedToZero += other.flushedToZero;
  subnormal += other.subnormal;
  overflowed += other.overflowed;
  nan += other.nan;
}

}  // namespace ampscope
