// The finite non-zero bins of an exponent histogram (ExponentHistogram in telemetry.h), stored as their
// occupied range only: the lowest non-empty exponent and one count per exponent from there up to the
// highest non-empty one. A tensor's values span a few dozen of float32's 277 binades, and a long
// session holds two histograms per instrumented tensor per step, so a dense array of every bin was most
// of the memory an opened session took.
//
// The stored form is canonical: no bins means nothing stored, otherwise the first and the last stored
// counts are non-zero (empty bins between them are stored as 0). Equal bins therefore compare equal
// member by member, whatever sequence of set() and add() built them.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ampscope {

class ExponentBins {
 public:
  static constexpr int kMinExponent = -149;  // float32's smallest subnormal is 2^-149
  static constexpr int kMaxExponent = 127;
  static constexpr int kBins = kMaxExponent - kMinExponent + 1;
  // Every bin, index exponent - kMinExponent: the scratch a builder counts into before adding it here.
  using Dense = std::array<int64_t, kBins>;

  // 0 for any exponent outside the occupied range (also outside [kMinExponent, kMaxExponent]).
  int64_t at(int exponent) const {
    const int64_t i = int64_t{exponent} - first_;
    return i >= 0 && i < static_cast<int64_t>(counts_.size()) ? counts_[static_cast<std::size_t>(i)] : 0;
  }
  bool empty() const { return counts_.empty(); }
  // The lowest and highest non-empty exponents. Empty: 0 and -1, so a loop from lowest() to highest()
  // runs no times.
  int lowest() const { return first_; }
  int highest() const { return first_ + static_cast<int>(counts_.size()) - 1; }
  int64_t sum() const;

  // exponent must lie in [kMinExponent, kMaxExponent] (std::out_of_range otherwise); 0 empties the bin.
  void set(int exponent, int64_t count);
  void add(const ExponentBins& other);
  void add(const Dense& dense);
  // counts[i] into the bin of exponent firstExponent + i, for i < n (std::out_of_range where a non-zero
  // count would lie outside [kMinExponent, kMaxExponent]).
  void add(int firstExponent, const int64_t* counts, std::size_t n);
  Dense dense() const;

  // The bytes held outside the object (the bench reports what the records take).
  std::size_t heapBytes() const { return counts_.capacity() * sizeof(int64_t); }

  friend bool operator==(const ExponentBins& a, const ExponentBins& b) {
    return a.first_ == b.first_ && a.counts_ == b.counts_;
  }
  friend bool operator!=(const ExponentBins& a, const ExponentBins& b) { return !(a == b); }

 private:
  // Widens the stored range to hold [lo, hi] (with one allocation of exactly that size, so a
  // histogram's capacity never exceeds its range).
  void cover(int lo, int hi);
  // Restores the canonical form after a bin at an end became 0.
  void trim();

  int32_t first_ = 0;
  std::vector<int64_t> counts_;
};

}  // namespace ampscope
