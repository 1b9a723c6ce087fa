#include "ampscope/engine/exponent_bins.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

namespace ampscope {

int64_t ExponentBins::sum() const { return std::accumulate(counts_.begin(), counts_.end(), int64_t{0}); }

void ExponentBins::set(int exponent, int64_t count) {
  if (exponent < kMinExponent || exponent > kMaxExponent) {
    throw std::out_of_range("exponent " + std::to_string(exponent) + " is outside [" +
                            std::to_string(kMinExponent) + ", " + std::to_string(kMaxExponent) + "]");
  }
  if (count == 0) {
    if (exponent < lowest() || exponent > highest()) return;
    counts_[static_cast<std::size_t>(exponent - first_)] = 0;
    trim();
    return;
  }
  if (empty()) {
    cover(exponent, exponent);
  } else {
    cover(std::min(exponent, lowest()), std::max(exponent, highest()));
  }
  counts_[static_cast<std::size_t>(exponent - first_)] = count;
}

void ExponentBins::add(const ExponentBins& other) {
  if (other.empty()) return;
  if (empty()) {
    *this = other;
    return;
  }
  cover(std::min(lowest(), other.lowest()), std::max(highest(), other.highest()));
  const std::size_t offset = static_cast<std::size_t>(other.first_ - first_);
  for (std::size_t i = 0; i < other.counts_.size(); ++i) counts_[offset + i] += other.counts_[i];
  trim();
}

void ExponentBins::add(const Dense& dense) { add(kMinExponent, dense.data(), dense.size()); }

void ExponentBins::add(int firstExponent, const int64_t* counts, std::size_t n) {
  std::size_t first = 0, end = n;
  while (first < end && counts[first] == 0) ++first;
  if (first == end) return;
  while (counts[end - 1] == 0) --end;
  const int lo = firstExponent + static_cast<int>(first);
  const int hi = firstExponent + static_cast<int>(end) - 1;
  if (lo < kMinExponent || hi > kMaxExponent) {
    throw std::out_of_range("exponents " + std::to_string(lo) + " .. " + std::to_string(hi) +
                            " are outside [" + std::to_string(kMinExponent) + ", " +
                            std::to_string(kMaxExponent) + "]");
  }
  cover(empty() ? lo : std::min(lo, lowest()), empty() ? hi : std::max(hi, highest()));
  const std::size_t offset = static_cast<std::size_t>(lo - first_);
  for (std::size_t i = first; i < end; ++i) counts_[offset + (i - first)] += counts[i];
  trim();
}

ExponentBins::Dense ExponentBins::dense() const {
  Dense all{};
  std::copy(counts_.begin(), counts_.end(), all.begin() + (first_ - kMinExponent));
  return all;
}

void ExponentBins::cover(int lo, int hi) {
  if (!empty() && lo >= lowest() && hi <= highest()) return;
  std::vector<int64_t> wider(static_cast<std::size_t>(hi - lo + 1), 0);
  if (!empty()) std::copy(counts_.begin(), counts_.end(), wider.begin() + (first_ - lo));
  counts_.swap(wider);
  first_ = lo;
}

void ExponentBins::trim() {
  if (empty() || (counts_.front() != 0 && counts_.back() != 0)) return;
  const auto nonZero = [](int64_t c) { return c != 0; };
  const auto first = std::find_if(counts_.begin(), counts_.end(), nonZero);
  if (first == counts_.end()) {
    std::vector<int64_t>().swap(counts_);
    first_ = 0;
    return;
  }
  const auto last = std::find_if(counts_.rbegin(), counts_.rend(), nonZero).base();
  first_ += static_cast<int32_t>(first - counts_.begin());
  std::vector<int64_t>(first, last).swap(counts_);
}

}  // namespace ampscope
