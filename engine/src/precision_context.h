// PrecisionContext: the ops a model's forward pass is written in, executed the way one precision mode
// executes them. Models call ctx.linear(...), ctx.gelu(...), ctx.crossEntropy(...) instead of torch
// directly, so one model definition runs in all six modes.
//
// How each kind of mode runs:
// - FP32: plain float32 ops.
// - AmpNative (bf16-amp on CPU; fp16 autocast where the LibTorch/device has it): plain torch ops inside
//   a real autocast region (the ModeTrainer enables it on the training thread); autocast does the casts.
// - AmpEmulated (fp16-amp, fp16-amp-scaled without native FP16 autocast): float32 storage, with an exact
//   RNE rounding to FP16 at every place autocast would cast, in forward and backward (RoundToFormat, a
//   custom autograd function: its backward rounds the incoming gradient too). The op policy follows
//   PyTorch's CUDA FP16 autocast lists:
//     low precision (inputs, weights, bias and output rounded): linear, matmul (attention's Q·K^T and
//       P·V);
//     float32 (inputs used as float32, output float32): softmax, log_softmax, layer_norm,
//       cross_entropy / nll_loss;
//     pass-through (run in the dtype of their inputs; output rounded when the inputs are FP16): gelu,
//       add (FP16 + FP16 stays FP16, FP16 + FP32 promotes to FP32), scalar multiply, masked_fill,
//       views and reshapes (no arithmetic, no rounding), embedding (not on any list: its FP32 weight
//       gives an FP32 output).
//   Gradients: the gradient arriving at a rounded output is rounded (it is an FP16 tensor natively),
//   and the gradients of a rounded input/weight/bias are rounded (an FP16 kernel produced them) before
//   the exact cast back to the FP32 master.
// - PureNative (bf16-pure on CPU): parameters and inputs stored in the low dtype, every op native.
// - PureEmulated (fp16-pure, model.half() on CPU): every op's output is rounded, parameters hold
//   FP16 values (the optimizer rounds each of its in-place ops: rounded_adamw.h, rounded_sgd.h), and
//   every parameter gradient is rounded.
//
// Instruments (only in a pass begun with instrument=true, so plain steps pay nothing):
// - rounding points: per layer and direction, counts of elements / flushed to zero / subnormal /
//   overflowed / NaN. Emulated modes count exactly at each rounding. Native modes count what can be
//   seen from outside the kernels: casts of FP32 tensors into an op (weights, bias, FP32 inputs) are
//   counted exactly by rounding the FP32 values the same way; outputs are classified as the
//   low-precision tensors they are (subnormal/inf/NaN). In backward, every op's gradient for each
//   low-precision operand is classified where the op's backward made it, and a flush inside the
//   native kernel is found by computing the same gradient again in float64 from the same operands:
//   a native 0 where that is not 0 was flushed (native_backward_counts.cpp, run()).
// - activation taps: exponent histograms of the gradient at each linear layer's output (scaled, and
//   unscaled with 1/scale), "act:<layer>.out".
// - Quantized (fp8-delayed, fp8-current, mxfp8, nvfp4): every linear's GEMM inputs are quantised by the
//   mode's recipe (fp8/quantized_linear.h) around an FP32 GEMM; everything else runs as in FP32 (the
//   attention matmuls too, as Transformer Engine keeps them in higher precision unless asked).
//   endStep() rolls the delayed-scaling amax histories once per optimizer step.
// - fp8.spike-step (every mode): that step's float inputs and embedding outputs are multiplied by
//   fp8.spike-factor, an amax spike for the scaling experiment.
// - fp8.outlier-factor (every mode, every step): the first linear layer of the pass (the MLPs' fc1, the
//   Transformer's block0.attn.qkv) multiplies feature 0 of its input by the factor and divides column 0
//   of its weight by it, so the layer computes the same function and only the GEMM inputs change: an
//   outlier feature, as LLM activations have them next to the small weights trained on them. The
//   product is an op of its own (rounded where a pure emulated mode rounds every op's output).
//
// - op record: each op's input and output dtype, read from the real tensors (emulated: the format the
//   values hold).
#pragma once

#include <torch/torch.h>

#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "ampscope/engine/run_config.h"
#include "ampscope/engine/telemetry.h"
#include "fp8/recipe_quantizer.h"
#include "low_precision.h"
#include "tensor_rounding_cost.h"

namespace ampscope::detail {

// An activation and whether its values are in a low-precision format, and which (a plan lane mixes
// FP16 and BF16 layers; a uniform lane's low activations are all in its format()).
struct Act {
  torch::Tensor t;
  bool low = false;
  LowFormat format = LowFormat::FP16;
};

enum class ExecKind { FP32, AmpNative, AmpEmulated, PureNative, PureEmulated, Quantized };

class PrecisionContext {
 public:
  // mode Plan: each GEMM layer (linear, matmul) runs as plan->layers' mode for it runs, every other op
  // as plan->defaultMode runs it, all emulated (`native` is ignored; docs/precision-plans.md). A layer
  // in an AMP mode other than an AMP default returns FP32 (its output is cast back, exactly, as
  // `layer(x).float()` does), so that the ops around it see what the default gives them.
  PrecisionContext(PrecisionMode mode, bool native, const Fp8Config& fp8 = Fp8Config{},
                   const PlanConfig* plan = nullptr);
  ~PrecisionContext();
  PrecisionContext(const PrecisionContext&) = delete;
  PrecisionContext& operator=(const PrecisionContext&) = delete;
  struct GradientWatch;  // native_backward_counts.cpp

  ExecKind kind() const { return kind_; }
  LowFormat format() const { return format_; }
  torch::ScalarType lowDtype() const;
  bool emulated() const { return kind_ == ExecKind::AmpEmulated || kind_ == ExecKind::PureEmulated; }
  // A plan lane (its layers may run in other modes than kind() says).
  bool hasPlan() const { return planLane_; }

  // Starts a forward pass. invScale: 1/loss scale, for the unscaled activation-gradient histograms.
  void beginPass(bool instrument, bool recordOps, float invScale);
  bool instrumenting() const { return instrument_; }
  std::vector<RoundingPointStats> roundingPoints() const;
  std::vector<TensorStats> activationTaps() const;
  std::vector<OpDtypeEntry> takeOpRecord();
  // After the optimizer step: the quantised tensors' statistics of this step (empty in other modes).
  std::vector<QuantTensorStats> endStep();

  Act input(const torch::Tensor& x);
  Act linear(const std::string& layer, const Act& x, const torch::Tensor& weight,
             const torch::Tensor& bias);
  Act matmul(const std::string& layer, const Act& a, const Act& b);
  Act gelu(const std::string& layer, const Act& x);
  Act softmax(const std::string& layer, const Act& x, int64_t dim);
  Act layerNorm(const std::string& layer, const Act& x, const torch::Tensor& weight,
                const torch::Tensor& bias);
  Act add(const std::string& layer, const Act& a, const Act& b);
  Act mulScalar(const std::string& layer, const Act& x, double factor);
  Act maskedFill(const Act& x, const torch::Tensor& mask, double value);
  Act embedding(const std::string& layer, const torch::Tensor& weight, const torch::Tensor& ids);
  // The mean cross entropy of logits [N, C] against targets [N], as the mode computes it.
  torch::Tensor crossEntropy(const std::string& layer, const Act& logits, const torch::Tensor& targets);
  // The loss times a weight, rounded in pure emulated modes (the product is an FP16 tensor there).
  torch::Tensor weightLoss(const torch::Tensor& loss, double weight);
  // One operand of an op run through run(): its role names the point where its gradient's rounding
  // is counted when no op of this context produced it ("<layer>.grad_<role>").
  struct Operand {
    const char* role;
    torch::Tensor t;
  };
  using OpFunction = std::function<torch::Tensor(const std::vector<torch::Tensor>&)>;

  // Pure emulated modes: where the rounding of parameter p's gradient is counted in this pass (null when
  // not instrumenting, or when no op consumed p). The trainer rounds the gradients as it gathers them
  // into the flat buffer (FlatParameters::gatherGradients), after backward.
  RoundingCounts* parameterGradientCounts(const torch::Tensor& p) const;

  // Where an op's values are rounded and counted, in the emulated modes (and a linear output's gradient
  // tap, in FP32 too). The ops above round through these; models/mlp_direct_pass.h runs an MLP's pass
  // from them without autograd, so both passes round, count and name alike. Asking for a site creates
  // its rounding points (when instrumenting) in the order the records list them: the gradient's first.
  struct Site {
    bool round = false;                  // the values are rounded to format() here
    RoundingCounts* forward = nullptr;   // where that rounding is counted (null: not counted)
    RoundingCounts* backward = nullptr;  // where the rounding of the gradient flowing back is counted
    TensorStats* tap = nullptr;          // the gradient's exponent histograms (linear outputs)
  };
  // An activation going into a low-precision op (AMP emulated rounds an FP32 one).
  Site inputSite(const std::string& layer, const char* role, bool inputLow);
  // A parameter consumed by an op (AMP emulated rounds it; pure emulated notes where the gather rounds
  // its gradient, parameterGradientCounts).
  Site parameterSite(const std::string& layer, const char* role, const torch::Tensor& p);
  // A linear layer's output (emulated: rounded; FP32: only the tap).
  Site linearOutputSite(const std::string& layer);
  // The output of an op that runs in the dtype of its inputs (emulated, low inputs: rounded).
  Site passThroughSite(const std::string& layer, bool inputsLow);
  // What a tap's hook does with the gradient arriving at its tensor (nothing for a null tap).
  void accumulateGradientTap(TensorStats* stats, const torch::Tensor& grad) const;
  // The taps also keep what rounding their gradients would cost (RunConfig::roundingCost, FP32 lane).
  void setRoundingCost(bool on) { roundingCost_ = on; }
  // fp8.outlier-factor is set: the first linear layer has an extra product and quotient.
  bool outlierActive() const { return fp8_.outlierFactor != 1.0; }

 private:
  // A parameter consumed by an op: rounded in emulated modes (forward counts only under AMP, where
  // the FP32 master is cast); its gradient is rounded.
  torch::Tensor consumeParam(const std::string& layer, const char* role, const torch::Tensor& p);
  // An activation consumed by a low-precision op: rounded when it is not low yet.
  torch::Tensor consumeLow(const std::string& layer, const char* role, const Act& x);
  // The output of an op that ran in low precision (emulated: rounded; native: observed).
  Act lowOutput(const std::string& layer, const torch::Tensor& y, bool tap);
  // inputsLow: the op's inputs are all low, in `inputFormat` (its output is too: rounded to it).
  Act passThrough(const std::string& layer, const torch::Tensor& y, bool inputsLow, LowFormat inputFormat);
  void observeNativeCast(const std::string& layer, const char* role, const torch::Tensor& fp32);
  void tapGradient(const std::string& layer, const torch::Tensor& y);
  // Runs op on the operands' tensors. In a native low-precision mode's instrumented pass it also counts
  // the rounding the op's backward does to each low-precision operand's gradient (flushes included,
  // against a float64 recomputation); castToLow: autocast casts the op's float32 operands to the low
  // dtype (linear, matmul), which is then done here, so that the cast's own gradient is the one seen.
  // Elsewhere it is op(tensors) and nothing else (native_backward_counts.cpp).
  torch::Tensor run(const std::string& layer, std::vector<Operand> operands, bool castToLow,
                    const OpFunction& op);
  // Where the gradient of a low-precision operand is counted: at its producer's "grad_output" point
  // (as the emulation counts it) when an op of this pass made it, else at "<layer>.grad_<role>".
  RoundingCounts* nativeGradientPoint(const std::string& layer, const char* role, const torch::Tensor& t);
  // The watch of a low-precision operand's gradient, made (with its hook) on the tensor's first use.
  std::shared_ptr<GradientWatch> watchGradient(const std::string& layer, const char* role,
                                               const torch::Tensor& t);
  // Forgets this pass's watches and takes the parameters' hooks off (they outlive the graph).
  void clearNativeWatches();
  // y, a low-precision tensor, was made by `layer` (its gradient is counted at layer's grad_output).
  void noteProducer(const torch::Tensor& y, const std::string& layer);
  bool countingNativeBackward() const {
    return instrument_ && (kind_ == ExecKind::AmpNative || kind_ == ExecKind::PureNative);
  }

  // The point named layer + "." + prefix + role, made on first use (a pass's points are found in the
  // order the previous pass asked for them, without building or hashing a name: see point()).
  RoundingCounts* point(const std::string& layer, const char* role, bool backward, const char* prefix = "");
  TensorStats* tap(const std::string& layer);  // named "act:" + layer + ".out"
  void record(const char* op, const std::string& where, const torch::Tensor& in, bool inLow,
              const torch::Tensor& out, bool outLow);

  // How one mode runs its ops: a uniform lane has one; a plan lane switches to its layer's for a GEMM.
  struct Regime {
    PrecisionMode mode = PrecisionMode::FP32;
    ExecKind kind = ExecKind::FP32;
    LowFormat format = LowFormat::FP16;
    fp8::RecipeQuantizer* quantizer = nullptr;
  };
  Regime regimeFor(PrecisionMode mode, bool native);
  // Runs a GEMM op of `layer` in the regime the plan gives it (a uniform lane: op() as it is).
  template <typename Op>
  Act inLayerRegime(const std::string& layer, Op op);
  // x is in the low format the current regime computes in (a uniform lane: x.low).
  bool lowIn(const Act& x) const { return x.low && (!planLane_ || x.format == format_); }

  PrecisionMode mode_;
  ExecKind kind_;
  LowFormat format_;
  bool planLane_ = false;
  Regime default_;                                   // a plan lane's default (a uniform lane's own)
  std::unordered_map<std::string, Regime> regimes_;  // a plan lane's named layers
  std::vector<std::unique_ptr<fp8::RecipeQuantizer>> quantizers_;  // one per quantised mode used
  bool instrument_ = false;
  bool recordOps_ = false;
  float invScale_ = 1.0f;
  Fp8Config fp8_;
  fp8::RecipeQuantizer* quantizer_ = nullptr;  // the current regime's
  int64_t stepsEnded_ = 0;
  double inputFactor_ = 1.0;  // fp8.spike-factor on the spike step's pass
  bool firstLinear_ = true;   // no linear has run in this pass yet (fp8.outlier-factor applies to it)
  Act linearOp(const std::string& layer, const Act& x, const torch::Tensor& weight, const torch::Tensor& bias);
  Act matmulOp(const std::string& layer, const Act& a, const Act& b);
  // Stable addresses: the autograd function and hooks hold pointers into these during backward.
  std::deque<RoundingPointStats> points_;
  std::unordered_map<std::string, size_t> pointIndex_;
  std::deque<TensorStats> taps_;
  bool roundingCost_ = false;
  mutable std::unordered_map<const TensorStats*, TensorRoundingCost> tapCosts_;  // this pass's
  std::unordered_map<std::string, size_t> tapIndex_;
  size_t nextPoint_ = 0, nextTap_ = 0;  // where this pass's next point and tap are expected
  std::vector<OpDtypeEntry> opRecord_;
  std::vector<std::pair<const c10::TensorImpl*, RoundingCounts*>> parameterGradients_;  // this pass's
  // This pass's low-precision op outputs (native counting): which layer made each. The weak pointer
  // keeps the TensorImpl's address from being reused while it is a key; the data is not kept.
  struct Producer {
    c10::weak_intrusive_ptr<c10::TensorImpl> impl;
    std::string layer;
  };
  std::unordered_map<const c10::TensorImpl*, Producer> producers_;
  struct Watched {
    c10::weak_intrusive_ptr<c10::TensorImpl> impl;
    std::shared_ptr<GradientWatch> watch;
  };
  std::unordered_map<const c10::TensorImpl*, Watched> watches_;  // this pass's, by operand
  std::vector<std::pair<torch::Tensor, unsigned>> leafHooks_;     // parameters' hooks, until next pass
};

// Rounds x (float32) to `format` in forward and the incoming gradient in backward (exact RNE).
// Counts and the tap are optional (null); they must outlive the backward pass.
torch::Tensor roundToFormat(const torch::Tensor& x, LowFormat format, RoundingCounts* forwardCounts,
                            RoundingCounts* backwardCounts, TensorStats* gradientTap = nullptr,
                            float invScale = 1.0f);
// The same rounding without autograd, for parameters and optimizer state (in place, float32).
void roundInPlace(torch::Tensor& x, LowFormat format, RoundingCounts* counts);
// ... and into a new contiguous float32 tensor.
torch::Tensor roundedCopy(const torch::Tensor& x, LowFormat format, RoundingCounts* counts);

// The torch dtype a LowFormat is stored in natively (float16, bfloat16).
torch::ScalarType dtypeOf(LowFormat format);

// Counts of an FP16/BF16 tensor's stored values (subnormal, inf as overflowed, NaN; flushes cannot be
// seen after the fact).
void classifyLowTensor(const torch::Tensor& t, LowFormat format, RoundingCounts* counts);

std::string dtypeName(torch::ScalarType type);  // "float32", "float16", "bfloat16", "int64"

}  // namespace ampscope::detail
