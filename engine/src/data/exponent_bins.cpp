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

void ExponentBins::add(const Dense& dense) {
  const auto nonZero = [](int64_t c) { return c != 0; };
  const auto first = std::find_if(dense.begin(), dense.end(), nonZero);
  if (first == dense.end()) return;
  const auto last = std::find_if(dense.rbegin(), dense.rend(), nonZero);
  const int lo = kMinExponent + static_cast<int>(first - dense.begin());
  const int hi = kMaxExponent - static_cast<int>(last - dense.rbegin());
  cover(empty() ? lo : std::min(lo, lowest()), empty() ? hi : std::max(hi, highest()));
  const std::size_t offset = static_cast<std::size_t>(lo - first_);
  for (int e = lo; e <= hi; ++e) {
    counts_[offset + static_cast<std::size_t>(e - lo)] += dense[static_cast<std::size_t>(e - kMinExponent)];
  }
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
