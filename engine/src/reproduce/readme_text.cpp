#include "reproduce/readme_text.h"

#include <algorithm>
#include <sstream>

#include "ampscope/engine/version.h"

namespace ampscope::reproduce {

// The lr is streamed with printf's %g (0.0003, six significant digits), not numberText(): the README is
// prose for a reader, and run.py's CONFIG holds the exact value.
std::string readmeText(const RunConfig& config, int64_t steps, bool withReference) {
  std::ostringstream text;
  text << "Reproduce in PyTorch - exported by AmpScope " << ampscopeVersion() << "\n"
       << std::string(60, '=') << "\n\n"
       << "This folder reruns an AmpScope experiment in plain PyTorch: the same model, the same initial\n"
       << "weights, the same batches, the same optimizer and precision modes.\n\n"
       << "  model      " << modelName(config.model) << "\n"
       << "  modes      ";
  for (size_t i = 0; i < config.modes.size(); ++i) text << (i ? ", " : "") << modeName(config.modes[i]);
  text << "\n  steps      " << steps << " (batch " << config.batchSize << ", seed " << config.seed << ")\n"
       << "  optimizer  " << optimizerName(config.optimizer) << " lr " << config.lr << "\n\n"
       << "Run it\n------\n"
       << "  python3 run.py                 every exported step and mode, on the CPU\n"
       << "  python3 run.py --steps 50      fewer steps\n"
       << "  python3 run.py --modes fp32    some of the modes\n"
       << "  python3 run.py --device cuda   on a GPU: real FP16 autocast and GradScaler\n\n"
       << "It needs Python 3, numpy and PyTorch (1.13 or newer; on Debian: apt install python3-torch,\n"
       << "then use /usr/bin/python3). It prints each step's loss and writes pytorch_loss.csv\n"
       << "(step,mode,loss,loss_scale,skipped).";
  if (withReference) {
    text << " ampscope_loss.csv holds the losses AmpScope recorded; run.py\n"
         << "prints per mode whether its losses are identical to them, or the first step that differs\n"
         << "and the largest difference.";
  }
  text << "\n\nFiles\n-----\n"
       << "  run.py                the script (the configuration is the CONFIG dict at its top)\n"
       << "  weights/NAME.npy      initial value of each parameter, float32, named as in state_dict()\n"
       << "  batches/NAME.npy      every step's batch, stacked: the first axis is the step (0 = step 1)\n";
  if (withReference) text << "  ampscope_loss.csv     AmpScope's loss per step and mode\n";
  text << "\nThe .npy files are NumPy's NPY format 1.0: np.load() reads them.\n\n"
       << "How each precision mode runs\n----------------------------\n"
       << "  fp32             float32 everywhere.\n"
       << "  bf16-amp         torch.autocast(device, dtype=torch.bfloat16) around forward and loss.\n"
       << "  bf16-pure        model.to(torch.bfloat16): parameters, gradients and update in bfloat16.\n"
       << "  fp16-amp         torch.autocast(dtype=torch.float16), no GradScaler.\n"
       << "  fp16-amp-scaled  the same plus GradScaler (init_scale, growth/backoff factors and interval\n"
       << "                   as configured in AmpScope).\n"
       << "  fp16-pure        model.half(): parameters, gradients and update in float16.\n"
       << "  fp8-delayed, fp8-current, mxfp8, nvfp4: EMULATED in float32, as AmpScope does (below).\n";
  if (std::find(config.modes.begin(), config.modes.end(), PrecisionMode::Plan) != config.modes.end()) {
    // Only where the plan is trained: the README of any other export keeps its bytes.
    text << "  plan             a precision plan: each Linear and attention matmul in its mode from\n"
         << "                   CONFIG['plan_layers'], the rest as CONFIG['plan_default'] runs it (FP32\n"
         << "                   master weights and optimizer). An AMP default: the pass inside\n"
         << "                   torch.autocast(dtype=D), each other AMP layer in a nested\n"
         << "                   torch.autocast(dtype=D'), an fp32 layer with autocast disabled on\n"
         << "                   x.float(). An fp32 or quantised default: no outer region; an AMP layer\n"
         << "                   runs in its own and its output leaves as .float(). Quantised layers as\n"
         << "                   their mode does (below; the attention matmuls stay unquantised). Always\n"
         << "                   EMULATED, as AmpScope runs it (one autocast region cannot switch its\n"
         << "                   dtype per layer), --device cuda too.\n";
  }
  text << "  Each FP16/BF16 mode runs the way AmpScope ran it: natively where the app used PyTorch's\n"
       << "  own kernels (and this PyTorch has them: run.py tries each at start), EMULATED where the app\n"
       << "  emulated it (CONFIG['emulated_modes']: no native kernels on its LibTorch, or its precision\n"
       << "  path chose the emulation), so the losses can agree to the last bit.\n\n"
       << "FP16 on a CPU: PyTorch 1.13's CPU autocast supports bfloat16 only, and FP16 matrix products,\n"
       << "GELU, log_softmax and AdamW have no FP16 CPU kernels there (PyTorch 2.x has both, and\n"
       << "torch.amp.GradScaler('cpu')). Where a mode is emulated, run.py does what AmpScope does:\n"
       << "float32 arithmetic, with values rounded exactly (round-to-nearest-even, via Tensor.half() or\n"
       << "Tensor.bfloat16()) wherever a real run holds low-precision data, and the gradients flowing\n"
       << "back through those points rounded too.\n"
       << "  fp16-amp(-scaled), bf16-amp: the casts of CUDA autocast - inputs, weight and bias of Linear\n"
       << "    and matmul and their outputs are low-precision; softmax, layer_norm and cross_entropy run\n"
       << "    in float32; GELU, additions and scalar products stay low-precision when their inputs are.\n"
       << "  fp16-pure, bf16-pure: every op's output is low-precision, and so is every in-place op of the\n"
       << "    optimizer's update (as torch.optim does on float16 tensors: AdamW's eps = 1e-8 rounds to 0).\n"
       << "The GradScaler there is a small class in run.py with torch's rule (torch's own GradScaler\n"
       << "refuses FP16 gradients, and works on a CPU only from PyTorch 2.x). run.py says for each mode\n"
       << "what it uses when it starts. Pass --no-emulation to run every mode natively or not at all;\n"
       << "--device cuda runs them natively on a GPU.\n"
       << "AdamW: LibTorch's C++ AdamW and PyTorch 1.13's update exp_avg with mul_ and add_, PyTorch 2.x's\n"
       << "torch.optim.AdamW with lerp_, which rounds differently in the last bit; where torch.optim.AdamW\n"
       << "differs, run.py uses the same update in LibTorch's order (RoundedAdamW without rounding).\n"
       << "On float16/bfloat16 parameters (model.half() run natively) both optimizers follow LibTorch's\n"
       << "C++: its mul_(0.9) rounds 0.9 to the tensor's dtype first, PyTorch 2.x's Python t.mul_(0.9)\n"
       << "does not; run.py calls the same overload (torch.ops.aten.mul_.Scalar).\n\n"
       << "FP8 and microscaling modes: PyTorch 1.13 has no FP8 or FP4 types and no scaled GEMMs, so\n"
       << "run.py emulates them exactly as AmpScope does. Only the two inputs of every Linear's matrix\n"
       << "product are quantised (a torch.autograd.Function, QuantizedLinearFunction); bias, attention,\n"
       << "softmax, LayerNorm, GELU, the loss and the optimizer stay float32. Quantising multiplies by\n"
       << "the scale in float32, rounds to the element format (nearest, ties to even, at the format's\n"
       << "mantissa width; below its smallest normal, at its subnormal spacing), clamps a magnitude above\n"
       << "its largest value to that value, and multiplies back by the dequantisation factor in float32.\n"
       << "The rounding works on float32 bit patterns with integer tensor ops; where PyTorch has float8\n"
       << "dtypes (2.x), E4M3 and E5M2 are rounded by a clamp to the largest value and a cast to\n"
       << "torch.float8_e4m3fn / float8_e5m2 instead (the cast alone gives NaN / inf past the largest\n"
       << "value, where the recipes saturate), after run.py has checked at start that the two give the\n"
       << "same bits; it says which it uses. E2M1 always uses the bit patterns. The scales are computed\n"
       << "in float32 (numpy.float32) in AmpScope's order. The product sums the dequantised values in\n"
       << "float32.\n"
       << "  fp8-current      E4M3 x and W, E5M2 for the gradient at the Linear's output; one scale\n"
       << "                   per tensor, (format max / amax) / 2^fp8_margin from its own amax.\n"
       << "  fp8-delayed      the same, with amax the largest of the previous amax_history_len steps'\n"
       << "                   (scale 1 on step 1; the history rolls after each optimizer step).\n"
       << "  mxfp8            E4M3 everywhere, a power-of-two scale per 32 values along each matrix\n"
       << "                   product's reduction dimension (OCP MX spec 1.0; the exponent is\n"
       << "                   floor(log2(block amax)) - 8, so values above 448 after scaling clamp).\n"
       << "  nvfp4            E2M1 everywhere, blocks of 16 with an E4M3 block scale times one float32\n"
       << "                   tensor scale (2688 / tensor amax); round to nearest even, 1x16 blocks\n"
       << "                   for every operand (no stochastic rounding, Hadamard transforms or 2-D\n"
       << "                   weight blocks).\n"
       << "Backward: the per-tensor modes multiply the quantised gradient with the forward's quantised\n"
       << "x and W; the block modes quantise x, W and the gradient again with blocks along the backward\n"
       << "products' own reduction dimensions. With fp8_scaling False every per-tensor scale is 1.\n"
       << "spike_step / spike_factor multiply that step's float inputs and embedding outputs, in every\n"
       << "mode. outlier_factor (1 = off): on every step, in every mode, the first Linear of the\n"
       << "forward pass multiplies feature 0 of its input by it and divides column 0 of its weight by\n"
       << "it (the same x W^T up to rounding): an outlier feature for the block-scaling comparison.\n\n"
       << "How close to AmpScope?\n----------------------\n"
       << "On a CPU run.py does what AmpScope does, op for op, with the same weights and batches. With\n"
       << "the python3-torch of the LibTorch AmpScope was built with (Debian 12: 1.13, Debian 13: 2.6)\n"
       << "the losses come out identical to the last bit; run.py's last lines say so per mode, or name\n"
       << "the first step that differs.\n"
       << "With another PyTorch, BLAS or thread count the kernels round and sum differently in the\n"
       << "last bits (PyTorch 2.6's GELU already differs from 1.13's): expect fp32 to agree to about\n"
       << "1e-6, and low-precision modes to drift further over many steps, because training amplifies\n"
       << "each rounding change.\n"
       << "On CUDA the FP16 modes are real FP16 kernels: close to, not identical with, the emulation.\n";
  return text.str();
}

}  // namespace ampscope::reproduce
