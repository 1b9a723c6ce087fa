// PrecisionContext::run: how a native low-precision mode's backward roundings are counted.
//
// A native FP16/BF16 kernel rounds inside itself: the gradient it returns for an FP16 operand is an
// FP16 tensor, and a value that was flushed is an ordinary 0 in it. Classifying that tensor finds its
// subnormals and infinities, never its flushes. So at an instrumented step, where a native gradient
// holds a 0, the ops' gradient is computed again in float64 from the very values the kernel was given (the FP16 operands and the FP16
// gradient arriving at the op's output): float64 holds every product of two FP16 or BF16 values
// exactly, so its result is 0 only where the exact gradient is (a sum that cancels exactly aside).
// A native 0 where the float64 gradient is not 0 is a flush, counted as the emulation counts one
// ("non-zero before, zero after").
//
// Each low-precision operand that needs a gradient gets one hook, where its gradient is complete (the
// sum of what every op that consumed it gave back, as autograd sums it); the float64 gradients of those
// ops are summed the same way. Hooks only: no node is added to the graph, so autograd runs the
// backward in the same order and holds the same buffers as on a plain step. autocast's casts of
// float32 activations (linear, matmul) are made here, by autocast's own cached_cast, so that the
// FP16 gradient the kernel returns for them is seen; parameters are left to autocast and watched as
// float32 leaves (the cast's backward, FP16 to FP32, is exact). Plain steps take none of this.
#include <ATen/autocast_mode.h>
#include <c10/core/impl/LocalDispatchKeySet.h>

#include "counting_allocator.h"
#include "precision_context.h"

namespace ampscope::detail {
namespace {

bool isLowDtype(const torch::Tensor& t) {
  return t.defined() && (t.scalar_type() == torch::kHalf || t.scalar_type() == torch::kBFloat16);
}

}  // namespace

namespace {

// What one op leaves for its operands' watches: the values it was given and, once backward reached it,
// the gradient of its output; from these its float64 gradients are computed when a watch asks.
struct NativeBackwardProbe {
  std::vector<torch::Tensor> operands;  // uncounted copies
  std::vector<char> watched;            // per operand: its gradient is counted
  PrecisionContext::OpFunction op;
  torch::Tensor outputGradient;         // uncounted copy; undefined until backward reaches the op
  std::vector<torch::Tensor> reference;  // float64 per operand, computed on the first request
  bool computed = false;

  const torch::Tensor& referenceOf(size_t i) {
    if (!computed) compute();
    return reference[i];
  }

  void compute() {
    computed = true;
    reference.assign(operands.size(), torch::Tensor());
    if (!outputGradient.defined()) return;
    // float64 is never cast by autocast; the keys are excluded anyway, so the recomputation is plain
    // float64 arithmetic whatever autocast region the backward runs in.
    c10::impl::ExcludeDispatchKeyGuard noAutocast(
        c10::DispatchKeySet({c10::DispatchKey::AutocastCPU, c10::DispatchKey::AutocastCUDA}));
    torch::AutoGradMode gradients(true);
    std::vector<torch::Tensor> inputs;
    std::vector<torch::Tensor> wrt;
    std::vector<size_t> wrtIndex;
    for (size_t i = 0; i < operands.size(); ++i) {
      const torch::Tensor& v = operands[i];
      if (!v.defined() || !v.is_floating_point()) {
        inputs.push_back(v);
        continue;
      }
      torch::Tensor wide = v.to(torch::kDouble);
      if (watched[i] != 0) {
        wide.requires_grad_(true);
        wrt.push_back(wide);
        wrtIndex.push_back(i);
      }
      inputs.push_back(wide);
    }
    const torch::Tensor out = op(inputs);
    if (out.requires_grad()) {
      const auto grads = torch::autograd::grad({out}, wrt, {outputGradient.to(torch::kDouble)},
                                               /*retain_graph=*/false, /*create_graph=*/false,
                                               /*allow_unused=*/true);
      for (size_t k = 0; k < wrtIndex.size(); ++k) reference[wrtIndex[k]] = grads[k];
    }
    operands.clear();
    outputGradient = torch::Tensor();
  }
};

}  // namespace

// One low-precision operand of this pass whose gradient is counted, and the ops that consumed it.
struct PrecisionContext::GradientWatch {
  RoundingCounts* counts = nullptr;
  std::vector<std::pair<std::shared_ptr<NativeBackwardProbe>, size_t>> consumers;  // (op, operand index)

  void count(const torch::Tensor& grad, LowFormat format) {
    at::NoGradGuard noGrad;
    UncountedAllocations scratch;
    // A float32 gradient (a parameter autocast cast) holds the kernel's FP16/BF16 values exactly.
    const torch::Tensor low = grad.scalar_type() == torch::kFloat ? grad.to(dtypeOf(format)) : grad;
    classifyLowTensor(low, format, counts);
    // Only a 0 can be a flush: the float64 recomputation is made where the native gradient has one
    // (the sum of what each consuming op gives back, as autograd sums the native ones).
    const torch::Tensor zeros = low.eq(0);
    if (zeros.any().item<bool>()) {
      torch::Tensor sum;
      for (auto& [probe, index] : consumers) {
        const torch::Tensor& part = probe->referenceOf(index);
        if (part.defined()) sum = sum.defined() ? sum + part : part;  // undefined: no gradient from it
      }
      if (sum.defined()) counts->flushedToZero += zeros.logical_and(sum.ne(0)).sum().item<int64_t>();
    }
    consumers.clear();
  }
};

RoundingCounts* PrecisionContext::nativeGradientPoint(const std::string& layer, const char* role,
                                                      const torch::Tensor& t) {
  auto it = producers_.find(t.unsafeGetTensorImpl());
  if (it == producers_.end() && t.is_view()) it = producers_.find(t._base().unsafeGetTensorImpl());
  if (it != producers_.end()) return point(it->second.layer, "grad_output", true);
  return point(layer, role, true, "grad_");
}

std::shared_ptr<PrecisionContext::GradientWatch> PrecisionContext::watchGradient(
    const std::string& layer, const char* role, const torch::Tensor& t) {
  auto found = watches_.find(t.unsafeGetTensorImpl());
  if (found != watches_.end()) return found->second.watch;
  auto watch = std::make_shared<GradientWatch>();
  watch->counts = nativeGradientPoint(layer, role, t);
  const LowFormat format = format_;
  const unsigned handle =
      t.register_hook([watch, format](const torch::Tensor& grad) { watch->count(grad, format); });
  // A leaf's hooks outlive the graph: removed when the next pass begins (and with the context).
  if (t.is_leaf()) leafHooks_.emplace_back(t, handle);
  watches_.emplace(t.unsafeGetTensorImpl(),
                   Watched{c10::weak_intrusive_ptr<c10::TensorImpl>(t.getIntrusivePtr()), watch});
  return watch;
}

void PrecisionContext::clearNativeWatches() {
  for (auto& [tensor, handle] : leafHooks_) tensor.remove_hook(handle);
  leafHooks_.clear();
  watches_.clear();
}

PrecisionContext::~PrecisionContext() { clearNativeWatches(); }

void PrecisionContext::noteProducer(const torch::Tensor& y, const std::string& layer) {
  producers_.insert_or_assign(y.unsafeGetTensorImpl(),
                              Producer{c10::weak_intrusive_ptr<c10::TensorImpl>(y.getIntrusivePtr()), layer});
}

torch::Tensor PrecisionContext::run(const std::string& layer, std::vector<Operand> operands,
                                    bool castToLow, const OpFunction& op) {
  std::vector<torch::Tensor> values;
  values.reserve(operands.size());
  if (!countingNativeBackward()) {
    for (Operand& operand : operands) values.push_back(std::move(operand.t));
    return op(values);
  }
  auto probe = std::make_shared<NativeBackwardProbe>();
  probe->op = op;
  bool anyWatched = false;
  for (size_t i = 0; i < operands.size(); ++i) {
    torch::Tensor t = std::move(operands[i].t);
    torch::Tensor given = t;  // the values the op computes with
    if (castToLow && kind_ == ExecKind::AmpNative && t.defined() && t.scalar_type() == torch::kFloat) {
      // A float32 parameter is left to autocast (casting it here changes which copies autocast holds
      // when: 1 KiB more peak on TinyMLP's step); its float32 gradient is the exact upcast of the one
      // the kernel made, so it is watched there. Other float32 operands are cast here.
      if (t.is_leaf()) {
        UncountedAllocations scratch;
        given = t.detach().to(lowDtype());
      } else {
        t = given = at::autocast::cached_cast(lowDtype(), t, c10::DeviceType::CPU);
      }
    }
    if (given.defined()) {
      // A copy, uncounted: holding the operand itself until backward would keep tensors the op does
      // not save (an add's inputs, a bias), and an instrumented step's peak would grow.
      UncountedAllocations scratch;
      probe->operands.push_back(given.is_same(t) ? t.detach().clone() : given);
    } else {
      probe->operands.push_back(given);
    }
    const bool watched = isLowDtype(given) && t.requires_grad();
    probe->watched.push_back(watched ? 1 : 0);
    if (watched) {
      watchGradient(layer, operands[i].role, t)->consumers.emplace_back(probe, i);
      anyWatched = true;
    }
    values.push_back(std::move(t));
  }
  torch::Tensor y = op(values);
  if (anyWatched && y.requires_grad()) {
    y.register_hook([probe](const torch::Tensor& grad) {
      UncountedAllocations scratch;
      probe->outputGradient = grad.detach().clone();
    });
  }
  if (isLowDtype(y)) noteProducer(y, layer);
  return y;
}

}  // namespace ampscope::detail
