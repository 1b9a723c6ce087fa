#include "fp8/recipe_quantizer.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include "ampscope/engine/mode_formats.h"
#include "exponent_histogram_builder.h"
#include "fp8/block_quantizer.h"
#include "fp8/element_quantizer.h"

namespace ampscope::detail::fp8 {

RecipeQuantizer::RecipeQuantizer(Recipe recipe, const Fp8Config& settings)
    : recipe_(recipe), settings_(settings) {}

namespace {

// The mode a recipe runs (precision_context.cpp picks the recipe from the mode).
PrecisionMode modeOf(Recipe recipe) {
  switch (recipe) {
    case Recipe::Delayed: return PrecisionMode::Fp8Delayed;
    case Recipe::Current: return PrecisionMode::Fp8Current;
    case Recipe::MxBlock: return PrecisionMode::MXFP8;
    case Recipe::Nvfp4Block: return PrecisionMode::NVFP4;
  }
  return PrecisionMode::Fp8Delayed;
}

}  // namespace

// The formats are the mode's (mode_formats.h, the one place they are written down).
QuantFormat RecipeQuantizer::forwardFormat() const {
  return *quantFormatOf(modeFormats(modeOf(recipe_)).forward);
}

QuantFormat RecipeQuantizer::backwardFormat() const {
  return *quantFormatOf(modeFormats(modeOf(recipe_)).gradient);
}

RecipeQuantizer::TensorState& RecipeQuantizer::state(const std::string& name, const std::string& layer,
                                                     bool backward) {
  auto it = index_.find(name);
  if (it != index_.end()) return states_[it->second];
  TensorState s{QuantTensorStats{}, AmaxHistory(settings_.amaxHistoryLen)};
  s.stats.name = name;
  s.stats.layer = layer;
  s.stats.backward = backward;
  s.stats.format = backward ? backwardFormat() : forwardFormat();
  switch (recipe_) {
    case Recipe::Delayed: s.stats.scaling = settings_.scaling ? ScalingKind::Delayed : ScalingKind::None; break;
    case Recipe::Current: s.stats.scaling = settings_.scaling ? ScalingKind::Current : ScalingKind::None; break;
    case Recipe::MxBlock: s.stats.scaling = ScalingKind::MxBlock; break;
    case Recipe::Nvfp4Block: s.stats.scaling = ScalingKind::Nvfp4Block; break;
  }
  states_.push_back(std::move(s));
  index_.emplace(name, states_.size() - 1);
  return states_.back();
}

torch::Tensor RecipeQuantizer::quantize(const torch::Tensor& x, const std::string& name,
                                        const std::string& layer, bool backward) {
  TORCH_CHECK(x.scalar_type() == torch::kFloat, "FP8 emulation quantises float32 tensors");
  TensorState& s = state(name, layer, backward);
  const torch::Tensor in = x.contiguous();
  torch::Tensor out = torch::empty_like(in, torch::MemoryFormat::Contiguous);
  const float* src = in.data_ptr<float>();
  float* dst = out.data_ptr<float>();
  const int64_t n = in.numel();
  const QuantFormat format = s.stats.format;
  QuantCounts counts;
  // Per tensor, the scale needs the amax first; the block passes find it as they go.
  BlockStats blocks;
  if (!perTensor()) {
    const int64_t cols = in.dim() == 0 ? 1 : in.size(-1);
    const int64_t rows = cols == 0 ? 0 : n / cols;
    if (recipe_ == Recipe::MxBlock) {
      quantizeMxBlocks(src, dst, rows, cols, modeFormats(PrecisionMode::MXFP8).blockSize, format,
                       instrument_ ? &counts : nullptr, &blocks);
    } else {
      quantizeNvfp4Blocks(src, dst, rows, cols, instrument_ ? &counts : nullptr, &blocks);
    }
  }
  const float amax = perTensor() ? absMax(src, n) : blocks.tensorAmax;

  QuantTensorStats& st = s.stats;
  if (!s.used) {
    // The first use this step resets the step's fields (a second use adds to them).
    st.numel = 0;
    st.measured = instrument_;
    st.saturated = st.flushed = 0;
    st.histogram.reset();
    s.stepAmax = 0.0f;
    s.used = true;
  }
  s.stepAmax = std::isnan(amax) || std::isnan(s.stepAmax) ? NAN : std::max(s.stepAmax, amax);
  st.amax = s.stepAmax;
  st.numel += n;
  QuantCounts* countsOut = instrument_ ? &counts : nullptr;

  if (perTensor()) {
    float scale = 1.0f;
    if (st.scaling == ScalingKind::Delayed) {
      scale = s.scale;
      st.amaxHistoryMax = s.history.max();
    } else if (st.scaling == ScalingKind::Current) {
      scale = perTensorScale(amax, elementSpec(format).maxValue, settings_.margin, 1.0f);
      st.amaxHistoryMax = amax;
    } else {
      st.amaxHistoryMax = amax;
    }
    st.scale = scale;
    // Dequantisation multiplies by the float32 reciprocal, as a GEMM's scale_inv does.
    fp8::quantize(src, dst, n, format, scale, 1.0f / scale, countsOut);
  } else {
    st.scale = blocks.tensorScale;
    st.amaxHistoryMax = amax;
    st.blockScaleExpMin = blocks.minExp;
    st.blockScaleExpMax = blocks.maxExp;
  }
  if (instrument_) {
    st.saturated += counts.saturated;
    st.flushed += counts.flushed;
    auto histogram = st.histogram ? std::make_shared<ExponentHistogram>(*st.histogram)
                                  : std::make_shared<ExponentHistogram>();
    accumulateHistogram(src, n, 1.0f, LowFormat::BF16, *histogram);
    st.histogram = std::move(histogram);
  }
  return out;
}

torch::Tensor RecipeQuantizer::quantizeColumns(const torch::Tensor& x2d, bool backward) const {
  // The result is laid out as the rows of the contiguous transpose would be ([cols, rows] row-major,
  // returned as its transposed view): the backward GEMMs read it in that layout, and the BLAS's
  // summation order depends on it (run.py builds the same).
  const torch::Tensor in = x2d.contiguous();
  const int64_t rows = in.size(0), cols = in.size(1);
  torch::Tensor out = torch::empty({cols, rows}, in.options());
  const QuantFormat format = backward ? backwardFormat() : forwardFormat();
  if (recipe_ == Recipe::MxBlock) {
    quantizeMxColumnBlocks(in.data_ptr<float>(), out.data_ptr<float>(), rows, cols,
                           modeFormats(PrecisionMode::MXFP8).blockSize, format);
  } else {
    quantizeNvfp4ColumnBlocks(in.data_ptr<float>(), out.data_ptr<float>(), rows, cols);
  }
  return out.t();
}

std::vector<QuantTensorStats> RecipeQuantizer::endStep() {
  std::vector<QuantTensorStats> out;
  out.reserve(states_.size());
  for (TensorState& s : states_) {
    if (!s.used) continue;
    out.push_back(s.stats);
    if (s.stats.scaling == ScalingKind::Delayed) {
      s.history.push(s.stepAmax);
      s.scale = perTensorScale(s.history.max(), elementSpec(s.stats.format).maxValue, settings_.margin, s.scale);
    }
    s.used = false;
  }
  return out;
}

}  // namespace ampscope::detail::fp8
