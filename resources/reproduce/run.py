#!/usr/bin/env python3
"""Reproduce an AmpScope run in PyTorch.

Written by AmpScope's "Reproduce in PyTorch" export. It trains the same model from the same initial
weights on the same batches as the app did, with torch.autocast / GradScaler as the chapter writes them
(the FP8 and microscaling modes emulated in float32, exactly as AmpScope emulates them), prints the loss
of every step (and writes it as CSV), and says per mode whether it agrees with the app's losses.

Each BF16/FP16 mode runs the way AmpScope ran it: natively (torch.autocast, model.half()) where the app
used PyTorch's own kernels, emulated where the app emulated it (CONFIG['emulated_modes']), so the
losses can agree to the last bit. What this PyTorch can do natively is found by trying it at start:
torch 1.13's CPU autocast has no float16 and its CPU has no FP16 kernels; torch 2.x has both.

    python3 run.py                      # every exported step, every mode
    python3 run.py --steps 50 --modes fp32,bf16-amp
    python3 run.py --device cuda        # real FP16 autocast and GradScaler on a GPU

See README.txt next to this file for what each precision mode does on a CPU-only PyTorch.
"""
import argparse
import csv
import ctypes
import math
import os
import sys
import warnings

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch import Tensor

HERE = os.path.dirname(os.path.abspath(__file__))

# The run as AmpScope had it configured.
CONFIG = AMPSCOPE_CONFIG


# ---------------------------------------------------------------------------------------------------
# FP16 and BF16: native or emulated.
#
# Natively a mode runs as the chapter writes it: torch.autocast(device, dtype) around forward and loss
# for the AMP modes, model.half() / model.to(torch.bfloat16) for the pure ones. Where AmpScope ran a
# mode *emulated* (CONFIG["emulated_modes"]: on torch 1.13's CPU build every FP16 mode, whose CPU
# autocast accepts only bfloat16 and whose FP16 matmuls have no CPU kernel; a BF16 mode where the
# emulation was the faster path or the config forced it), run.py emulates it the same way: float32
# arithmetic, with values rounded to the nearest float16 / bfloat16 (IEEE round-to-nearest-even, through
# Tensor.half() / Tensor.bfloat16()) where a real run would hold low-precision data, and the gradients
# flowing back through the same points rounded too. A value too small for float16 becomes 0 there
# (underflow), one too large becomes inf (overflow).
#   fp16-amp(-scaled), bf16-amp: as CUDA autocast does: Linear and matmul take low-precision inputs,
#     weight and bias and give a low-precision output; softmax, layer_norm and cross_entropy run in
#     float32; GELU, additions and scalar products stay low-precision when their inputs are.
#   fp16-pure, bf16-pure: as model.half(): every op's output is low-precision, and so is every in-place
#     op of the optimizer's update (RoundedAdamW, HalfSGD below).
# A mode AmpScope ran natively that this PyTorch cannot run natively (FP16 on torch 1.13's CPU) is
# emulated too, and run.py says that its losses may then differ from the app's in the last bits.
# On a CUDA device every mode uses real torch.autocast / model.half().
# ---------------------------------------------------------------------------------------------------
class RoundToLow(torch.autograd.Function):
    """Rounds to `low` (torch.float16 or torch.bfloat16, nearest even) forward and backward."""

    @staticmethod
    def forward(ctx, x: Tensor, low) -> Tensor:
        ctx.low = low
        return x.to(low).float()

    @staticmethod
    def backward(ctx, grad: Tensor):
        return grad.to(ctx.low).float(), None


def is_low(t: Tensor) -> bool:
    return t.dtype in (torch.float16, torch.bfloat16)


class Ops:
    """The ops the models are written in. For every mode but the emulated ones these are the plain
    torch functions (autocast, if active, picks their precision); `emulation` is None, "amp" or "pure".
    Activations travel as (tensor, low) pairs: low says the values are already ones of the low format."""

    def __init__(self, emulation=None, quantizer=None, low=torch.float16):
        self.emulation = emulation
        self.low = low  # the emulated format: float16, or bfloat16 where AmpScope emulated a BF16 mode
        self.quantizer = quantizer  # a RecipeQuantizer in the FP8/microscaling modes
        self.input_factor = 1.0  # spike_factor on the spike step (CONFIG "spike_step"), else 1
        self.first_linear = True  # no Linear has run in this forward pass yet

    def _round(self, x: Tensor) -> Tensor:
        return RoundToLow.apply(x, self.low)

    def _param(self, p: Tensor) -> Tensor:
        return self._round(p) if self.emulation else p

    def _low_in(self, x, low: bool) -> Tensor:
        return self._round(x) if self.emulation == "amp" and not low else x

    def _out(self, y: Tensor, inputs_low: bool = True):
        if self.emulation and inputs_low:
            return self._round(y), True
        return y, is_low(y)

    def input(self, x: Tensor):
        if self.emulation == "pure":
            return x.to(self.low).float(), True  # model.half() callers pass x.half()
        return x, is_low(x)

    def linear(self, x, layer: nn.Linear):
        t, low = x
        weight = layer.weight
        if self.first_linear:
            # CONFIG "outlier_factor" (1 = off): the pass's first Linear gets feature 0 of its input times
            # the factor and column 0 of its weight divided by it (the same x W^T up to rounding).
            self.first_linear = False
            factors = outlier_factors(t)
            if factors is not None:
                t, low = self._out(t * factors.to(t.dtype), low)
                weight = weight / factors.to(weight.dtype)
        if self.quantizer is not None:
            return quantized_linear(self.quantizer, layer, t, weight), False
        if not self.emulation:
            return self._out(F.linear(t, weight, layer.bias))
        bias = None if layer.bias is None else self._param(layer.bias)
        return self._out(F.linear(self._low_in(t, low), self._param(weight), bias))

    def matmul(self, a, b):
        return self._out(torch.matmul(self._low_in(*a), self._low_in(*b)), self.emulation is not None)

    def gelu(self, x):
        return self._out(F.gelu(x[0]), x[1])

    def add(self, a, b):
        return self._out(a[0] + b[0], a[1] and b[1])

    def mul(self, x, factor: float):
        return self._out(x[0] * factor, x[1])

    def masked_fill(self, x, mask: Tensor, value: float):
        return x[0].masked_fill(mask, value), x[1]  # -inf is exact in every format

    def softmax(self, x, dim: int):
        if self.emulation == "pure":
            return self._out(torch.softmax(x[0], dim))
        return self._out(torch.softmax(x[0], dim), False)

    def layer_norm(self, x, ln: nn.LayerNorm):
        if self.emulation == "pure":
            return self._out(F.layer_norm(x[0], ln.normalized_shape, self._param(ln.weight),
                                          self._param(ln.bias), ln.eps))
        return self._out(F.layer_norm(x[0], ln.normalized_shape, ln.weight, ln.bias, ln.eps), False)

    def embedding(self, weight: Tensor, ids: Tensor):
        if self.emulation == "pure":
            return self._spike(F.embedding(ids, self._param(weight))), True
        out = self._spike(F.embedding(ids, weight))
        return out, is_low(out)

    def _spike(self, t: Tensor) -> Tensor:
        return t * self.input_factor if self.input_factor != 1.0 else t

    def cross_entropy(self, logits, targets: Tensor) -> Tensor:
        t, low = logits
        t = t.reshape(-1, t.size(-1))
        targets = targets.reshape(-1)
        if self.emulation == "pure":
            log_probs = self._out(F.log_softmax(t, 1))
            return self._out(F.nll_loss(log_probs[0], targets))[0]
        return F.cross_entropy(t, targets)

    def weight_loss(self, loss: Tensor, weight: float) -> Tensor:
        if weight == 1.0:
            return loss
        return self._round(loss * weight) if self.emulation == "pure" else loss * weight


PLAIN = Ops()


def outlier_factors(t: Tensor):
    """(outlier_factor, 1, 1, ...) along t's last dimension, float32 (the factor rounded once), or None
    when the outlier is off."""
    factor = float(CONFIG["outlier_factor"])
    if factor == 1.0 or t.dim() == 0 or t.size(-1) == 0:
        return None
    factors = torch.ones(t.size(-1), dtype=torch.float32, device=t.device)
    factors[0] = factor
    return factors


# ---------------------------------------------------------------------------------------------------
# FP8 and microscaling modes (fp8-delayed, fp8-current, mxfp8, nvfp4), emulated exactly as AmpScope
# does: only the GEMM inputs of every Linear are quantised; everything else is the float32 model.
# Quantising a value: multiply by the scale in float32, round to the element format (round to nearest,
# ties to even, at the format's mantissa width; below its smallest normal, at its subnormal spacing),
# saturate a magnitude beyond the largest finite value to that value (NaN stays NaN), and multiply by
# the dequantisation factor in float32. torch 1.13 has no float8 dtypes, so the rounding works on the
# float32 bit patterns with integer tensor ops (round_to_element_bits); where torch has them, E4M3 and
# E5M2 are rounded by a clamp and a cast once float8_cast_problem() has found that exact (below, with
# the other probes). E2M1 always uses the bit patterns. The scales are float32 arithmetic
# (numpy.float32), in the same order as AmpScope computes them, because a last-bit difference in a
# scale changes which values round which way.
#   element formats (OCP 8-bit FP spec; FP4 E2M1 from the OCP MX spec 1.0):
#     E4M3 max 448, smallest normal 2^-6;  E5M2 max 57344, 2^-14;  E2M1 max 6, 2^0 (subnormal 0.5)
#   fp8-current: per tensor, scale = (max / amax) / 2^margin from the tensor's own amax; E4M3 for x and
#     W, E5M2 for the gradient arriving at a Linear's output.
#   fp8-delayed: the same formula with amax the largest of the last amax_history_len steps' amaxes
#     (the current step not included: step 1 uses scale 1); the history rolls after each optimizer step.
#     An amax of 0, inf or NaN keeps the previous scale; a scale beyond float32 becomes float32's max.
#   mxfp8: E4M3 everywhere with a power-of-two scale 2^X per 32 consecutive values along each GEMM's
#     reduction dimension, X = floor(log2(block amax)) - 8 clamped to [-127, 127]; a block holding inf
#     or NaN becomes NaN.
#   nvfp4: E2M1 everywhere, blocks of 16: tensor scale 2688 / tensor amax (float32), block scale the
#     E4M3 value of (block amax / 6) * tensor scale, elements round(v * (tensor scale / block scale))
#     * (block scale / tensor scale); a block whose block scale rounds to 0 becomes 0.
# The GEMMs multiply and sum the dequantised values in float32. Backward: the per-tensor recipes
# quantise the incoming gradient and reuse the forward's quantised x and W; the block recipes quantise
# x, W and the gradient again with blocks along the backward GEMMs' reduction dimensions.
# ---------------------------------------------------------------------------------------------------
QUANTIZED_MODES = ("fp8-delayed", "fp8-current", "mxfp8", "nvfp4")

# (mantissa bits, exponent of the smallest normal, largest finite value, floor(log2(largest)))
ELEMENT_FORMATS = {"e4m3": (3, -6, 448.0, 8), "e5m2": (2, -14, 57344.0, 15), "e2m1": (1, 0, 6.0, 2)}
F32 = np.float32


def f32_bits(value: float) -> int:
    return int(np.array(value, dtype=np.float32).view(np.uint32))


def round_to_element(y: Tensor, fmt: str) -> Tensor:
    """Rounds float32 `y` to the element format `fmt` (RNE, saturating, NaN kept); float32 result:
    torch's float8 cast after a clamp where float8_cast_problem() found it exact, else the bit patterns."""
    dtype = ELEMENT_CASTS.get(fmt)
    if dtype is not None:
        largest = ELEMENT_FORMATS[fmt][2]
        return y.clamp(-largest, largest).to(dtype).float()
    return round_to_element_bits(y, fmt)


def round_to_element_bits(y: Tensor, fmt: str) -> Tensor:
    """round_to_element() on the float32 bit patterns with integer tensor ops (any torch)."""
    mantissa, min_normal_exp, max_value, _ = ELEMENT_FORMATS[fmt]
    shift = 23 - mantissa
    bits = y.contiguous().view(torch.int32).to(torch.int64) & 0xFFFFFFFF
    sign = bits & 0x80000000
    a = bits ^ sign
    # Normal range: add half an ulp minus one plus the lowest kept bit, then truncate (ties to even).
    normal = (a + ((1 << (shift - 1)) - 1) + ((a >> shift) & 1)) & ~((1 << shift) - 1)
    # Subnormal range: adding and subtracting 2^(q+23), q the subnormal exponent, rounds to 2^q (RNE).
    magic = torch.tensor(2.0 ** (min_normal_exp - mantissa + 23), dtype=torch.float32)
    fa = a.to(torch.int32).view(torch.float32)
    sub = ((fa + magic) - magic).view(torch.int32).to(torch.int64) & 0xFFFFFFFF
    r = torch.where(a < ((min_normal_exp + 127) << 23), sub, normal)
    r = torch.where(a > f32_bits(max_value), torch.full_like(r, f32_bits(max_value)), r)
    r = torch.where(a > 0x7F800000, a, r)  # NaN stays NaN
    out = r | sign
    out = torch.where(out >= 0x80000000, out - (1 << 32), out)
    return out.to(torch.int32).view(torch.float32)


def abs_max(x: Tensor) -> float:
    """max |x| as a float32 value (NaN if any element is NaN)."""
    return F32(x.abs().max().item()) if x.numel() else F32(0.0)


def quantize_scaled(x: Tensor, fmt: str, scale, inv_scale) -> Tensor:
    """round(x * scale) * inv_scale, each product in float32 (scales: float32 scalars or tensors)."""
    if not torch.is_tensor(scale):
        scale = torch.tensor(scale, dtype=torch.float32)
        inv_scale = torch.tensor(inv_scale, dtype=torch.float32)
    return round_to_element(x * scale, fmt) * inv_scale


def per_tensor_scale(amax, fmt: str, margin: int, previous):
    """(format max / amax) / 2^margin in float32; amax 0/inf/NaN keeps `previous`; overflow -> max."""
    if not (amax > 0) or not math.isfinite(amax):
        return previous
    with np.errstate(over="ignore"):
        scale = (F32(ELEMENT_FORMATS[fmt][2]) / F32(amax)) / F32(2.0 ** margin)
    return np.finfo(np.float32).max if math.isinf(scale) else F32(scale)


def pow2_f32(e: Tensor) -> Tensor:
    """2^e as float32 for integer e in [-149, 127], built from the bit pattern (exact)."""
    normal = (e + 127).clamp(min=0) << 23
    subnormal = torch.ones_like(e) << (e + 149).clamp(min=0, max=22)
    return torch.where(e >= -126, normal, subnormal).to(torch.int32).view(torch.float32)


def blocks_of(x: Tensor, size: int):
    """[rows, cols] float32 -> [rows, blocks, size] (zero padding; zeros change no block's amax)."""
    rows, cols = x.shape
    pad = (-cols) % size
    if pad:
        x = torch.cat([x, x.new_zeros(rows, pad)], 1)
    return x.reshape(rows, -1, size), cols


def quantize_mx(x: Tensor, fmt: str) -> Tensor:
    """MX blocks of 32 along the last dimension of 2-D `x` (OCP MX spec 1.0, section 6.3)."""
    b, cols = blocks_of(x.contiguous(), 32)
    amax = b.abs().amax(-1, keepdim=True)
    _, exponent = torch.frexp(amax)  # amax = m * 2^exponent, m in [0.5, 1): floor(log2) = exponent - 1
    shared = (exponent.to(torch.int64) - 1 - ELEMENT_FORMATS[fmt][3]).clamp(-127, 127)
    shared = torch.where(amax == 0, torch.full_like(shared, -127), shared)
    out = round_to_element(b * pow2_f32(-shared), fmt) * pow2_f32(shared)
    out = torch.where(torch.isfinite(amax), out, torch.full_like(out, float("nan")))
    return out.reshape(x.shape[0], -1)[:, :cols]


def quantize_nvfp4(x: Tensor) -> Tensor:
    """NVFP4: E2M1 elements in blocks of 16 along the last dimension of 2-D `x`, E4M3 block scales
    times one float32 tensor scale."""
    x = x.contiguous()
    tensor_amax = abs_max(x)
    if not math.isfinite(tensor_amax):
        return torch.full_like(x, float("nan"))
    tensor_scale = F32(1.0)
    if tensor_amax > 0:
        with np.errstate(over="ignore"):
            tensor_scale = (F32(448.0) * F32(6.0)) / tensor_amax
        if math.isinf(tensor_scale):
            tensor_scale = np.finfo(np.float32).max
    ts = torch.tensor(tensor_scale, dtype=torch.float32)
    b, cols = blocks_of(x, 16)
    amax = b.abs().amax(-1, keepdim=True)
    block_scale = round_to_element((amax / torch.tensor(6.0)) * ts, "e4m3")
    zero = block_scale == 0
    safe = torch.where(zero, torch.ones_like(block_scale), block_scale)
    out = round_to_element(b * (ts / safe), "e2m1") * (safe / ts)
    out = torch.where(zero, b * 0.0, out)  # too small for E4M3's block scale: the block flushes
    return out.reshape(x.shape[0], -1)[:, :cols]


class RecipeQuantizer:
    """One mode's recipe with the per-tensor state it keeps between steps (delayed scaling's history)."""

    def __init__(self, mode: str):
        self.mode = mode
        self.per_tensor = mode in ("fp8-delayed", "fp8-current")
        self.forward_format = "e2m1" if mode == "nvfp4" else "e4m3"
        self.backward_format = "e5m2" if self.per_tensor else self.forward_format
        self.scaling = CONFIG["fp8_scaling"]
        self.margin = int(CONFIG["fp8_margin"])
        self.history_len = max(1, int(CONFIG["amax_history_len"]))
        self.states = {}  # (layer, operand) -> delayed scaling state

    def quantize(self, x: Tensor, key, backward: bool) -> Tensor:
        fmt = self.backward_format if backward else self.forward_format
        if not self.per_tensor:
            rows = x.reshape(-1, x.size(-1)) if x.dim() > 0 else x.reshape(1, 1)
            q = quantize_mx(rows, fmt) if self.mode == "mxfp8" else quantize_nvfp4(rows)
            return q.reshape(x.shape)
        amax = abs_max(x)
        scale = F32(1.0)
        if self.scaling and self.mode == "fp8-delayed":
            state = self.states.setdefault(key, {"history": [], "scale": F32(1.0), "amax": F32(0.0),
                                                 "used": False})
            if not state["used"]:
                state["used"], state["amax"] = True, F32(0.0)
            state["amax"] = F32("nan") if math.isnan(amax) or math.isnan(state["amax"]) \
                else max(state["amax"], amax)
            scale = state["scale"]
        elif self.scaling:
            scale = per_tensor_scale(amax, fmt, self.margin, F32(1.0))
        # The GEMM's dequantisation multiplies by the float32 reciprocal of the scale.
        return quantize_scaled(x, fmt, scale, F32(1.0) / F32(scale))

    def columns(self, x2d: Tensor, backward: bool) -> Tensor:
        """Block recipes: `x2d` quantised with blocks along dimension 0, laid out as AmpScope's (the
        transposed copy is contiguous, which decides how the BLAS sums)."""
        fmt = self.backward_format if backward else self.forward_format
        t = x2d.t().contiguous()
        return (quantize_mx(t, fmt) if self.mode == "mxfp8" else quantize_nvfp4(t)).t()

    def end_step(self) -> None:
        for key, state in self.states.items():
            if not state["used"]:
                continue
            fmt = self.backward_format if key[1] == "grad_output" else self.forward_format
            state["history"].append(state["amax"])
            del state["history"][:-self.history_len]
            held = F32(0.0)
            for value in state["history"]:
                if math.isnan(value):
                    held = value
                    break
                held = max(held, value)
            state["scale"] = per_tensor_scale(held, fmt, self.margin, state["scale"])
            state["used"] = False


class QuantizedLinearFunction(torch.autograd.Function):
    """x2d W^T with both GEMM inputs quantised; backward quantises the incoming gradient."""

    @staticmethod
    def forward(ctx, x2d: Tensor, weight: Tensor, quantizer: RecipeQuantizer, layer) -> Tensor:
        xq = quantizer.quantize(x2d, (layer, "input"), False)
        wq = quantizer.quantize(weight, (layer, "weight"), False)
        ctx.quantizer, ctx.layer = quantizer, layer
        if quantizer.per_tensor:
            ctx.save_for_backward(xq, wq)
        else:
            ctx.save_for_backward(x2d, weight)
        return xq.mm(wq.t())

    @staticmethod
    def backward(ctx, grad: Tensor):
        q = ctx.quantizer
        x_saved, w_saved = ctx.saved_tensors
        grad = grad.contiguous()
        gq = q.quantize(grad, (ctx.layer, "grad_output"), True)
        if q.per_tensor:
            return gq.mm(w_saved), gq.t().mm(x_saved), None, None
        # dgrad sums over the output features (rows of W), wgrad over the batch (rows of x and grad).
        grad_x = gq.mm(q.columns(w_saved, False))
        grad_w = q.columns(grad, True).t().mm(q.columns(x_saved, False))
        return grad_x, grad_w, None, None


def quantized_linear(quantizer: RecipeQuantizer, layer: nn.Linear, x: Tensor, weight: Tensor) -> Tensor:
    x2d = x.reshape(-1, x.size(-1))
    y = QuantizedLinearFunction.apply(x2d, weight, quantizer, layer)
    if layer.bias is not None:
        y = y + layer.bias  # the bias add and its gradient stay float32
    return y.reshape(*x.shape[:-1], layer.weight.size(0))


# >>> plan
# ---------------------------------------------------------------------------------------------------
# The precision plan ("plan"): each GEMM layer (every Linear, and the attention's two matmuls) in the
# mode CONFIG["plan_layers"] gives it, every other layer and op as CONFIG["plan_default"] runs them,
# FP32 master weights and optimizer (docs/precision-plans.md in AmpScope's sources). In PyTorch terms:
#   default an AMP mode: the whole pass inside torch.autocast(dtype=D), as the uniform mode runs it. A
#     layer in another AMP mode runs in a nested torch.autocast(dtype=D'): its inputs, weight and bias
#     are cast to D' (an FP16 activation into a BF16 layer is rounded again) and it returns D'. A layer
#     in fp32 runs with autocast disabled on x.float() and returns float32. The ops between layers
#     follow autocast's rules: GELU, the residual additions and the attention's scale run in their
#     input's dtype (FP16 with BF16 promotes to float32); softmax, layer_norm and the loss in float32.
#   default fp32 or a quantised mode: no autocast region. A layer in an AMP mode runs inside its own
#     torch.autocast(dtype=D') and its output leaves as .float(), so every op outside the plan's
#     layers sees float32.
#   a quantised layer: its GEMM inputs quantised by its recipe around a float32 GEMM, as in the
#     uniform mode; the layers of one recipe share one RecipeQuantizer. The attention's matmuls are
#     never quantised: a quantised mode runs them in float32.
# One autocast region cannot switch its dtype per layer, so AmpScope always emulates the plan, and so
# does run.py (on a GPU too): float32 arithmetic rounded exactly (RoundToLow, forward and backward) at
# each place where the nested regions above would cast. Activations travel as (tensor, fmt) pairs, fmt
# the low dtype their values are in (torch.float16 or torch.bfloat16) or False.
# ---------------------------------------------------------------------------------------------------
AMP_DTYPES = {"fp16-amp-scaled": torch.float16, "fp16-amp": torch.float16, "bf16-amp": torch.bfloat16}


def plan_mode_of(layer: str) -> str:
    """The mode the plan gives a GEMM layer (named as AmpScope names it: fc1, block0.attn.qkv, ...)."""
    return CONFIG["plan_layers"].get(layer, CONFIG["plan_default"])


def plan_modes_used():
    """The plan's default and every layer's mode, each once."""
    modes = [CONFIG["plan_default"]]
    for mode in CONFIG["plan_layers"].values():
        if mode not in modes:
            modes.append(mode)
    return modes


class PlanQuantizers:
    """The plan's RecipeQuantizers, one per quantised mode it uses; end_step() ends each one's step."""

    def __init__(self, modes):
        self.by_mode = {mode: RecipeQuantizer(mode) for mode in modes if mode in QUANTIZED_MODES}

    def end_step(self) -> None:
        for quantizer in self.by_mode.values():
            quantizer.end_step()


class PlanOps(Ops):
    """The ops of the plan mode: each GEMM in its layer's mode, the rest as the default runs them."""

    def __init__(self):
        super().__init__()
        self.autocast = AMP_DTYPES.get(CONFIG["plan_default"])  # the outer autocast dtype, or None
        self.quantizer = PlanQuantizers(plan_modes_used())  # ModeRun.step calls its end_step()
        self.matmul_layer = None  # the model names each matmul's layer before calling matmul()

    @staticmethod
    def _cast(t: Tensor, fmt, low) -> Tensor:
        """A GEMM input cast to `low`: exact where its values are already of that format."""
        return t if fmt == low else RoundToLow.apply(t, low)

    def _layer_output(self, y: Tensor, low):
        """An AMP layer's output, rounded to its dtype; without an outer autocast it leaves as .float()."""
        y = RoundToLow.apply(y, low)
        return (y, low) if self.autocast is not None else (y, False)

    def _pass(self, y: Tensor, fmt):
        """An op between layers: inside the outer autocast it runs in its inputs' dtype (fmt when they all
        share one), elsewhere in float32."""
        if self.autocast is not None and fmt:
            return RoundToLow.apply(y, fmt), fmt
        return y, False

    def linear(self, x, layer: nn.Linear):
        t, fmt = x
        weight = layer.weight
        if self.first_linear:
            self.first_linear = False  # CONFIG "outlier_factor", as Ops.linear applies it
            factors = outlier_factors(t)
            if factors is not None:
                t, fmt = self._pass(t * factors.to(t.dtype), fmt)
                weight = weight / factors.to(weight.dtype)
        mode = plan_mode_of(layer.layer_name)
        if mode in QUANTIZED_MODES:
            return quantized_linear(self.quantizer.by_mode[mode], layer, t, weight), False
        low = AMP_DTYPES.get(mode)
        if low is None:
            return F.linear(t, weight, layer.bias), False  # fp32: autocast disabled, x.float()
        bias = None if layer.bias is None else RoundToLow.apply(layer.bias, low)
        return self._layer_output(F.linear(self._cast(t, fmt, low), RoundToLow.apply(weight, low), bias), low)

    def matmul(self, a, b):
        layer, self.matmul_layer = self.matmul_layer, None
        if layer is None:
            raise RuntimeError("the plan mode needs each matmul's layer name (ops.matmul_layer)")
        low = AMP_DTYPES.get(plan_mode_of(layer))
        if low is None:
            return torch.matmul(a[0], b[0]), False  # fp32, and a quantised mode's attention matmul
        return self._layer_output(torch.matmul(self._cast(*a, low), self._cast(*b, low)), low)

    def gelu(self, x):
        return self._pass(F.gelu(x[0]), x[1])

    def add(self, a, b):
        # FP16 + BF16 promotes to float32, as torch's type promotion does.
        return self._pass(a[0] + b[0], a[1] if a[1] and a[1] == b[1] else False)

    def mul(self, x, factor: float):
        return self._pass(x[0] * factor, x[1])

    def softmax(self, x, dim: int):
        return torch.softmax(x[0], dim), False

    def layer_norm(self, x, ln: nn.LayerNorm):
        return F.layer_norm(x[0], ln.normalized_shape, ln.weight, ln.bias, ln.eps), False


PLAN_LAYER_MODES = ("fp32",) + tuple(AMP_DTYPES) + QUANTIZED_MODES  # not the pure modes


def check_plan(model: nn.Module) -> None:
    """Exits naming what is wrong where CONFIG's plan (edited by hand, say) names a layer the model does
    not have or gives one a mode a plan cannot take: a misspelt layer would otherwise run in the default."""
    layers = []
    for module in model.modules():
        if isinstance(module, nn.Linear):
            layers.append(module.layer_name)
        elif hasattr(module, "layer_name"):  # a Transformer block: its attention's two matmuls
            layers += [module.layer_name + ".attn.scores", module.layer_name + ".attn.context"]
    for layer, mode in [(None, CONFIG["plan_default"])] + list(CONFIG["plan_layers"].items()):
        if layer is not None and layer not in layers:
            sys.exit("run.py: CONFIG['plan_layers'] names '%s', which %s does not have (its layers: %s)"
                     % (layer, CONFIG["model"], ", ".join(sorted(layers))))
        if mode not in PLAN_LAYER_MODES:
            sys.exit("run.py: a plan's layer takes one of %s, not '%s' (CONFIG['%s'])"
                     % (", ".join(PLAN_LAYER_MODES), mode, "plan_default" if layer is None else "plan_layers"))


def plan_note() -> str:
    layers = ", ".join("%s=%s" % item for item in CONFIG["plan_layers"].items())
    outer = CONFIG["plan_default"]
    how = ("inside torch.autocast(dtype=torch.%s), each named layer in its own nested region"
           % str(AMP_DTYPES[outer])[6:] if outer in AMP_DTYPES
           else "no outer autocast, each named AMP layer in its own region, its output .float()")
    return "precision plan EMULATED, as AmpScope runs it (default %s; %s): %s, float32 math rounded " \
           "exactly where those regions cast" % (outer, layers or "no layer named", how)


# <<< plan
AMPSCOPE_MODEL


# ---------------------------------------------------------------------------------------------------
# GradScaler. torch.cuda.amp.GradScaler (torch.amp.GradScaler in newer releases) only works on CUDA and
# refuses FP16 gradients. Where it cannot serve (CPU emulation, model.half() with a scaler) this class
# applies the same rule: scale the loss; unscale by multiplying with the float32 reciprocal; a non-finite
# gradient skips optimizer.step() and multiplies the scale by backoff_factor; growth_interval clean steps
# in a row multiply it by growth_factor (unless that would reach inf). The scale is a float32 value.
# ---------------------------------------------------------------------------------------------------
class PortableGradScaler:
    def __init__(self, init_scale, growth_factor, backoff_factor, growth_interval, enabled=True):
        self.scale_ = torch.tensor(init_scale, dtype=torch.float32)
        self.growth_factor = growth_factor
        self.backoff_factor = backoff_factor
        self.growth_interval = growth_interval
        self.enabled = enabled
        self.tracker = 0
        self.unscaled = False
        self.found_inf = False

    def scale(self, loss: Tensor) -> Tensor:
        return loss * self.scale_.to(loss.device) if self.enabled else loss

    def unscale_(self, optimizer) -> None:
        if not self.enabled or self.unscaled:
            return
        inv = self.scale_.double().reciprocal().float()
        found = False
        for group in optimizer.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if not torch.isfinite(p.grad).all():
                    found = True
                # A float32 0-dim multiplier: an FP16 gradient's product is computed in float32 and
                # rounded once, as AmpScope's scaler and torch's unscale kernel do.
                p.grad.mul_(inv.to(p.grad.device))
        self.found_inf = found
        self.unscaled = True

    def step(self, optimizer) -> bool:
        if not self.enabled:
            optimizer.step()
            return True
        self.unscale_(optimizer)
        if not self.found_inf:
            optimizer.step()
        return not self.found_inf

    def update(self) -> None:
        if not self.enabled:
            return
        if self.found_inf:
            self.scale_ = (self.scale_ * self.backoff_factor).float()
            self.tracker = 0
        else:
            self.tracker += 1
            if self.tracker == self.growth_interval:
                grown = (self.scale_ * self.growth_factor).float()
                if torch.isfinite(grown):
                    self.scale_ = grown
                self.tracker = 0
        self.unscaled = False
        self.found_inf = False

    def get_scale(self) -> float:
        return float(self.scale_) if self.enabled else 1.0


def make_grad_scaler(device: torch.device, native: bool):
    s = CONFIG["scaler"]
    args = dict(init_scale=s["init_scale"], growth_factor=s["growth_factor"],
                backoff_factor=s["backoff_factor"], growth_interval=s["growth_interval"],
                enabled=s["enabled"])
    if native and device.type == "cuda":
        if hasattr(torch, "amp") and hasattr(torch.amp, "GradScaler"):
            return torch.amp.GradScaler("cuda", **args), "torch.amp.GradScaler('cuda')"
        return torch.cuda.amp.GradScaler(**args), "torch.cuda.amp.GradScaler"
    if native and cpu_grad_scaler_problem() is None:
        return torch.amp.GradScaler("cpu", **args), "torch.amp.GradScaler('cpu')"
    return PortableGradScaler(**args), "PortableGradScaler (same rule as torch's GradScaler)"


# ---------------------------------------------------------------------------------------------------
# Data exported by AmpScope: float32 / int64 .npy files.
# ---------------------------------------------------------------------------------------------------
def load_initial_state(model: nn.Module) -> None:
    state = {name: torch.from_numpy(np.load(os.path.join(HERE, path)))
             for name, path in CONFIG["parameters"]}
    own = model.state_dict()
    if set(own) != set(state):
        sys.exit("run.py: the exported parameters %s do not match the model's %s"
                 % (sorted(state), sorted(own)))
    for name, tensor in state.items():
        if tuple(own[name].shape) != tuple(tensor.shape):
            sys.exit("run.py: %s has shape %s in the export but %s in the model"
                     % (name, tuple(tensor.shape), tuple(own[name].shape)))
    model.load_state_dict(state)


def load_batches():
    return [np.load(os.path.join(HERE, path), mmap_mode="r") for _, path in CONFIG["batch"]]


def make_optimizer(model: nn.Module, emulated_low=None, low_parameters=False):
    """torch.optim's AdamW / SGD, or with emulated_low (torch.float16 or torch.bfloat16) the emulated
    optimizer on parameters that hold values of that format; LibTorch's op order where torch.optim
    differs: AdamW on torch 2.x, and both on float16/bfloat16 parameters (low_parameters)."""
    if CONFIG["optimizer"] == "sgd":
        if emulated_low is not None or low_parameters:
            return HalfSGD(model.parameters(), emulated_low, lr=CONFIG["lr"], momentum=CONFIG["momentum"],
                           weight_decay=CONFIG["sgd_weight_decay"])
        return optim.SGD(model.parameters(), lr=CONFIG["lr"], momentum=CONFIG["momentum"],
                         weight_decay=CONFIG["sgd_weight_decay"])
    if emulated_low is not None or low_parameters or adamw_problem() is not None:
        return RoundedAdamW(model.parameters(), emulated_low, lr=CONFIG["lr"], eps=CONFIG["adam_eps"],
                            weight_decay=CONFIG["weight_decay"])
    return optim.AdamW(model.parameters(), lr=CONFIG["lr"], eps=CONFIG["adam_eps"],
                       weight_decay=CONFIG["weight_decay"])


# ---------------------------------------------------------------------------------------------------
# torch.optim on model.half() parameters, emulated on a CPU: float32 tensors that hold float16 values,
# and every in-place op of the optimizer's update rounded to float16, as it is when the tensors are
# float16 (the kernels compute in float32 and round once when they store). The op sequence is that of
# torch 1.13's single-tensor AdamW / SGD, which is LibTorch's C++ AdamW / SGD's too. So an update
# smaller than half a float16 ulp is lost, and AdamW's eps = 1e-8 rounds to 0 in float16: where v
# underflows, the update divides by zero - the well-known failure of model.half() with Adam. The same
# classes emulate model.to(torch.bfloat16) where AmpScope emulated bf16-pure (the low format is a
# constructor argument).
# RoundedAdamW without a low format is that op sequence unrounded: torch 2.x's Python AdamW updates
# exp_avg with lerp_ instead of mul_ and add_, which rounds differently in the last bit, so where
# torch.optim.AdamW is not LibTorch's AdamW to the bit (adamw_problem() tries it) run.py uses this one.
# The in-place products with a number go through the Scalar overloads (scale_), as LibTorch's C++
# optimizers call them: on a float16/bfloat16 tensor torch 2.x's Python t.mul_(0.9) multiplies by 0.9
# in float32, the C++ mul_(Scalar) by 0.9 rounded to the tensor's dtype first (0.8984375 in bfloat16),
# so model.half() / model.to(torch.bfloat16) run natively use these classes (unrounded) too. On float32
# tensors the two are the same.
# ---------------------------------------------------------------------------------------------------
def scale_(t: Tensor, factor: float) -> Tensor:
    """t.mul_(factor) through aten::mul_.Scalar, as LibTorch's C++ code calls it."""
    return torch.ops.aten.mul_.Scalar(t, factor)


def rounded(t: Tensor, low) -> Tensor:
    """Rounds a float32 tensor in place to the nearest value of `low` (float16 or bfloat16); no-op
    without a low format."""
    return t if low is None else t.copy_(t.to(low).float())


class RoundedAdamW(optim.AdamW):
    def __init__(self, params, low, **options):
        super().__init__(params, **options)
        self.low = low

    @torch.no_grad()
    def step(self, closure=None):
        h = lambda t: rounded(t, self.low)  # noqa: E731
        for group in self.param_groups:
            lr, (beta1, beta2) = group["lr"], group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                grad = h(p.grad.clone())
                state = self.state[p]
                if not state:
                    state["step"] = 0
                    state["exp_avg"] = torch.zeros_like(p)
                    state["exp_avg_sq"] = torch.zeros_like(p)
                state["step"] += 1
                m, v, t = state["exp_avg"], state["exp_avg_sq"], state["step"]
                if group["weight_decay"] != 0:
                    h(scale_(p, 1 - lr * group["weight_decay"]))
                h(scale_(m, beta1))
                h(m.add_(grad, alpha=1 - beta1))
                h(scale_(v, beta2))
                h(v.addcmul_(grad, grad, value=1 - beta2))
                denom = h(v.sqrt())
                h(torch.ops.aten.div_.Scalar(denom, math.sqrt(1 - beta2 ** t)))
                h(torch.ops.aten.add_.Scalar(denom, group["eps"]))
                h(p.addcdiv_(m, denom, value=-lr / (1 - beta1 ** t)))


class HalfSGD(optim.SGD):
    def __init__(self, params, low, **options):
        super().__init__(params, **options)
        self.low = low

    @torch.no_grad()
    def step(self, closure=None):
        h = lambda t: rounded(t, self.low)  # noqa: E731
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                direction = h(p.grad.clone())
                if group["weight_decay"] != 0:
                    h(direction.add_(p, alpha=group["weight_decay"]))
                if group["momentum"] != 0:
                    state = self.state[p]
                    if "momentum_buffer" not in state:
                        state["momentum_buffer"] = direction.clone()
                    else:
                        buffer = state["momentum_buffer"]
                        h(scale_(buffer, group["momentum"]))
                        h(buffer.add_(direction))
                        direction = buffer
                h(p.add_(direction, alpha=-group["lr"]))


# ---------------------------------------------------------------------------------------------------
# What this PyTorch can do, found by trying it once (not read from its version number): each probe
# returns None where the feature works, else one line saying why not.
# ---------------------------------------------------------------------------------------------------
_PROBED = {}


def probed(name: str, probe):
    if name not in _PROBED:
        try:
            with torch.random.fork_rng(devices=[]), warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                problem = probe()
            if problem is not None and caught:
                problem += " (%s)" % str(caught[0].message).splitlines()[0]
        except Exception as error:  # noqa: BLE001 - a missing kernel is any of several exception types
            problem = "%s: %s" % (type(error).__name__, str(error).splitlines()[0] if str(error) else "")
        _PROBED[name] = problem
    return _PROBED[name]


def _probe_net(dtype=None):
    net = nn.Sequential(nn.Linear(8, 8), nn.GELU(), nn.Linear(8, 4))
    x = torch.linspace(-2, 2, 32).reshape(4, 8)
    if dtype is not None:
        net.to(dtype)
        x = x.to(dtype)
    return net, x, torch.tensor([0, 1, 2, 3])


def autocast_problem(dtype) -> str:
    """torch.autocast('cpu', dtype) around linear, GELU and cross_entropy, then backward."""
    def probe():
        net, x, targets = _probe_net()
        with torch.autocast("cpu", dtype=dtype):
            out = net(x)
            loss = F.cross_entropy(out, targets)
        if out.dtype != dtype:
            return "CPU autocast gives %s, not %s" % (str(out.dtype)[6:], str(dtype)[6:])
        loss.backward()
        return None
    return probed("autocast %s" % dtype, probe)


def pure_problem(dtype) -> str:
    """model.to(dtype) on a CPU: forward, cross_entropy, backward and an AdamW step in that dtype."""
    def probe():
        net, x, targets = _probe_net(dtype)
        F.cross_entropy(net(x), targets).backward()
        RoundedAdamW(net.parameters(), None, lr=1e-3).step()
        optim.SGD(net.parameters(), lr=1e-3, momentum=0.9).step()
        nn.utils.clip_grad_norm_(net.parameters(), 1.0)
        return None
    return probed("pure %s" % dtype, probe)


def cpu_grad_scaler_problem() -> str:
    """torch.amp.GradScaler('cpu'): scale, unscale_, step, update on float32 gradients."""
    def probe():
        if not hasattr(torch, "amp") or not hasattr(torch.amp, "GradScaler"):
            return "torch.amp.GradScaler does not exist"
        p = nn.Parameter(torch.ones(3))
        opt = optim.SGD([p], lr=0.5)
        scaler = torch.amp.GradScaler("cpu", init_scale=4.0, growth_interval=1)
        scaler.scale((p * 3).sum()).backward()
        scaler.unscale_(opt)
        scaler.step(opt)
        scaler.update()
        if not torch.equal(p.detach(), torch.full((3,), -0.5)) or scaler.get_scale() != 8.0:
            return "torch.amp.GradScaler('cpu') did not step as expected"
        return None
    return probed("cpu grad scaler", probe)


def native_cpu_problem(mode: str, with_scaler: bool) -> str:
    """None where this PyTorch runs `mode` natively on a CPU, else why not."""
    dtype = torch.bfloat16 if mode.startswith("bf16") else torch.float16
    if mode.endswith("-pure"):
        return pure_problem(dtype)
    problem = autocast_problem(dtype)
    if problem is None and with_scaler:
        problem = cpu_grad_scaler_problem()
    return problem


def adamw_problem() -> str:
    """Whether torch.optim.AdamW is LibTorch's AdamW (RoundedAdamW without rounding) to the last bit."""
    def probe():
        g = torch.Generator().manual_seed(1)
        start = torch.randn(4096, generator=g)
        grads = [torch.randn(4096, generator=g) * 10.0 ** -k for k in range(4)]
        params = [nn.Parameter(start.clone()), nn.Parameter(start.clone())]
        opts = [optim.AdamW([params[0]], lr=1e-2, weight_decay=0.01, eps=1e-8),
                RoundedAdamW([params[1]], None, lr=1e-2, weight_decay=0.01, eps=1e-8)]
        for grad in grads:
            for p, opt in zip(params, opts):
                p.grad = grad.clone()
                opt.step()
        if not torch.equal(params[0].detach(), params[1].detach()):
            return ("torch.optim.AdamW of torch %s rounds differently from LibTorch's C++ AdamW (exp_avg "
                    "by lerp_, not mul_ and add_)" % torch.__version__)
        return None
    return probed("adamw", probe)


# torch's float8 dtypes round to nearest even like the quantisers, but a magnitude beyond the largest
# finite value becomes NaN (E4M3FN) or inf (E5M2) where the recipes saturate: so the cast is clamped
# first. float8_cast_problem() checks that clamp-then-cast gives round_to_element_bits()'s bits on every
# value of the format, the midpoints between neighbours and their float32 neighbours, subnormals, zeros,
# values beyond the largest, inf and NaN; only then round_to_element() uses the cast.
FLOAT8_DTYPES = {"e4m3": "float8_e4m3fn", "e5m2": "float8_e5m2"}
ELEMENT_CASTS = {}  # element format -> torch dtype whose clamped cast is the exact rounding


def float8_cast_problem(fmt: str) -> str:
    def probe():
        dtype = getattr(torch, FLOAT8_DTYPES[fmt], None)
        if dtype is None:
            return "torch %s has no torch.%s" % (torch.__version__, FLOAT8_DTYPES[fmt])
        values = torch.arange(256, dtype=torch.int32).to(torch.uint8).view(dtype).float()
        finite = values[torch.isfinite(values)].unique()  # sorted
        mids = (finite[1:].double() + finite[:-1].double()) / 2  # exact in float64
        grid = torch.cat([finite, mids.float(), torch.tensor([0.0, 2.0 ** -149, 1e-30, 1e30, 3e38])])
        up = torch.nextafter(grid, torch.full_like(grid, float("inf")))
        down = torch.nextafter(grid, torch.full_like(grid, float("-inf")))
        scaled = [grid * 2.0 ** k for k in (-3, 0, 1, 7)]  # in and out of the format's range
        x = torch.cat([grid, up, down] + scaled)
        x = torch.cat([x, -x, torch.tensor([float("inf"), float("-inf"), float("nan")])])
        largest = ELEMENT_FORMATS[fmt][2]
        cast = x.clamp(-largest, largest).to(dtype).float()
        bits = round_to_element_bits(x, fmt)
        same = (cast.view(torch.int32) == bits.view(torch.int32)) | (torch.isnan(cast) & torch.isnan(bits))
        if not bool(same.all()):
            at = int((~same).nonzero()[0])
            return "torch.%s rounds %r to %r where the recipe gives %r" % (
                FLOAT8_DTYPES[fmt], x[at].item(), cast[at].item(), bits[at].item())
        return None
    return probed("float8 " + fmt, probe)


# ---------------------------------------------------------------------------------------------------
# One mode: how it is set up, and one training step in the chapter's order.
# ---------------------------------------------------------------------------------------------------
LOW_MODES = {"fp16-amp-scaled": torch.float16, "fp16-amp": torch.float16, "bf16-amp": torch.bfloat16,
             "fp16-pure": torch.float16, "bf16-pure": torch.bfloat16}


class ModeRun:
    def __init__(self, mode: str, device: torch.device, allow_emulation: bool):
        self.mode = mode
        self.device = device
        self.model = build_model().to(device)
        load_initial_state(self.model)
        cpu = device.type != "cuda"
        uses_scaler = mode == "fp16-amp-scaled" or (mode == "fp16-pure" and CONFIG["scaler_for_pure_fp16"])
        # >>> plan
        uses_scaler = uses_scaler or (mode == "plan" and "fp16-amp-scaled" in plan_modes_used())
        # <<< plan
        uses_scaler = uses_scaler and CONFIG["scaler"]["enabled"]
        self.ops = Ops()
        self.autocast_dtype = None
        self.input_dtype = None
        self.emulated_low = None  # the format a pure mode's emulated optimizer rounds to
        self.native = mode == "fp32"
        self.path = "native" if mode == "fp32" else "emulated"  # what the agreement table shows
        if mode in LOW_MODES:
            low = LOW_MODES[mode]
            pure = mode.endswith("-pure")
            # The path AmpScope took (its precision-path choice, or no native kernels on its LibTorch):
            # run.py takes the same one where it can, so the losses stay the app's to the last bit.
            app_emulated = mode in CONFIG["emulated_modes"]
            problem = None if not cpu else native_cpu_problem(mode, uses_scaler)
            if not cpu:
                self.native, why = True, ""
            elif not allow_emulation:
                if problem is not None:
                    raise RuntimeError("%s: not available natively on the CPU of this PyTorch %s (%s); run "
                                       "with --device cuda, or drop --no-emulation to use the emulation "
                                       "described in README.txt" % (mode, torch.__version__, problem))
                self.native = True
                why = (" (--no-emulation; AmpScope emulated it: expect last-bit differences)"
                       if app_emulated else ", as AmpScope ran it")
            elif app_emulated:
                self.native, why = False, " as AmpScope ran it"
            elif problem is None:
                self.native, why = True, ", as AmpScope ran it"
            else:
                self.native = False
                why = (": AmpScope ran it natively, this PyTorch %s cannot (%s), so expect last-bit "
                       "differences" % (torch.__version__, problem))
            name = "float16" if low == torch.float16 else "bfloat16"
            self.path = "native" if self.native else "emulated"
            if self.native and pure:
                self.model.to(low)
                self.input_dtype = low
                self.note = ("model.half()" if low == torch.float16 else "model.to(torch.bfloat16)") + why
            elif self.native:
                self.autocast_dtype = low
                self.note = "torch.autocast('%s', dtype=torch.%s)%s" % (device.type, name, why)
            elif pure:
                self.ops = Ops(emulation="pure", low=low)
                self.emulated_low = low
                with torch.no_grad():
                    for p in self.model.parameters():
                        p.copy_(p.to(low).float())
                self.note = "%s EMULATED%s (float32 math, every value rounded to %s)" % (
                    "model.half()" if low == torch.float16 else "model.to(torch.bfloat16)", why, name)
            else:
                self.ops = Ops(emulation="amp", low=low)
                self.note = "%s autocast EMULATED%s (float32 math, exact rounding to %s)" % (
                    "FP16" if low == torch.float16 else "BF16", why, name)
        elif mode in QUANTIZED_MODES:
            self.ops = Ops(quantizer=RecipeQuantizer(mode))
            # The element formats the recipe rounds to (NVFP4's block scales are E4M3 values).
            formats = {"nvfp4": ("e2m1", "e4m3"), "mxfp8": ("e4m3",)}.get(mode, ("e4m3", "e5m2"))
            casts = [f for f in formats if f in ELEMENT_CASTS]
            how = ("; %s rounded by torch.%s casts" % (", ".join(f.upper() for f in casts),
                                                        "/".join(FLOAT8_DTYPES[f] for f in casts))
                   if casts else "")
            self.note = ("%s EMULATED (quantised Linear GEMM inputs, float32 math%s, see README.txt)"
                         % (mode, how))
        # >>> plan
        elif mode == "plan":
            check_plan(self.model)
            self.ops = PlanOps()  # FP32 master weights and optimizer, as in the AMP and quantised modes
            self.note = plan_note()
        # <<< plan
        else:
            self.note = "float32"
        low_parameters = self.native and mode.endswith("-pure")
        self.optimizer = make_optimizer(self.model, emulated_low=self.emulated_low,
                                        low_parameters=low_parameters)
        if isinstance(self.optimizer, (RoundedAdamW, HalfSGD)) and self.emulated_low is None:
            self.note += "; %s in LibTorch's op order" % type(self.optimizer).__bases__[0].__name__
        self.scaler = None
        if uses_scaler:
            # torch's GradScaler refuses FP16 gradients (model.half()); the portable one accepts them.
            native = mode == "fp16-amp-scaled" and self.native
            self.scaler, name = make_grad_scaler(device, native)
            self.note += ", " + name
        self.diverged = False
        self.steps_done = 0

    def forward_loss(self, inputs: Tensor, targets: Tensor) -> Tensor:
        if self.autocast_dtype is not None:
            # The chapter's pattern: autocast around forward and loss, not around backward.
            with torch.autocast(self.device.type, dtype=self.autocast_dtype):
                logits = self.model(inputs, self.ops)
                return self.ops.cross_entropy(logits, targets)
        logits = self.model(inputs, self.ops)
        return self.ops.cross_entropy(logits, targets)

    def step(self, inputs: Tensor, targets: Tensor):
        """One training step; returns (loss, loss scale used, skipped)."""
        self.steps_done += 1
        # The spike step multiplies the float inputs and the embedding outputs, in every mode.
        spike = CONFIG["spike_step"] == self.steps_done
        self.ops.input_factor = float(CONFIG["spike_factor"]) if spike else 1.0
        if self.ops.input_factor != 1.0 and inputs.is_floating_point():
            inputs = inputs * self.ops.input_factor
        if self.input_dtype is not None and inputs.is_floating_point():
            inputs = inputs.to(self.input_dtype)
        self.ops.first_linear = True  # the outlier feature (if any) goes into this pass's first Linear
        self.optimizer.zero_grad(set_to_none=True)
        scale = self.scaler.get_scale() if self.scaler is not None else 1.0
        loss = self.forward_loss(inputs, targets)
        value = float(loss.detach().float())
        if not math.isfinite(value) and self.scaler is None:
            self.diverged = True  # nothing recovers from a non-finite loss without a scaler
            return value, scale, False
        weighted = self.ops.weight_loss(loss, CONFIG["loss_weight"])
        clip = CONFIG["clip_order"]
        max_norm = CONFIG["clip_max_norm"]
        skipped = False
        if self.scaler is not None:
            self.scaler.scale(weighted).backward()
            if clip == "before-unscale":
                nn.utils.clip_grad_norm_(self.model.parameters(), max_norm)  # WRONG on purpose: scaled
            self.scaler.unscale_(self.optimizer)
            if clip == "after-unscale":
                nn.utils.clip_grad_norm_(self.model.parameters(), max_norm)  # the chapter's order
            before = self.scaler.get_scale()
            stepped = self.scaler.step(self.optimizer)
            self.scaler.update()
            # A skipped step is the one whose inf/NaN made update() back the scale off.
            skipped = (not stepped) if isinstance(self.scaler, PortableGradScaler) \
                else self.scaler.get_scale() < before
        else:
            weighted.backward()
            if clip != "off":
                nn.utils.clip_grad_norm_(self.model.parameters(), max_norm)
            self.optimizer.step()
        if not skipped and not all(torch.isfinite(p).all() for p in self.model.parameters()):
            self.diverged = True
        if self.ops.quantizer is not None:
            self.ops.quantizer.end_step()  # delayed scaling: the next step's scales
        return value, scale, skipped


def set_blas_threads(n: int) -> None:
    """AmpScope gives OpenBLAS's own thread pool the same count as torch's intra-op threads
    (torch.set_num_threads does not reach it in 1.13). The count changes how matrix products are
    split and summed, and so the last bits of every result."""
    for name in ("libblas.so.3", "libopenblas.so.0"):
        try:
            ctypes.CDLL(name).openblas_set_num_threads(n)
            return
        except (OSError, AttributeError):
            continue


def same_loss(a: float, b: float) -> bool:
    """Bit for bit, as float64 values; NaN agrees with NaN (the payload is not compared)."""
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b) or (math.isnan(a) and math.isnan(b))


def agreement(app: dict, python: dict, last_step: int):
    """One mode: (first differing step or None, largest |difference| over the steps both have finite,
    the step it is at, steps compared, note). A step one side has and the other lacks (one diverged
    earlier) differs too."""
    first = None
    largest, largest_step, compared = 0.0, None, 0
    notes = []
    for step in range(1, last_step + 1):
        a, b = app.get(step), python.get(step)
        if a is None and b is None:
            continue
        if a is None or b is None:
            if first is None:
                first = step
            notes.append("%s stops after step %d" % ("AmpScope" if a is None else "run.py", step - 1))
            break
        compared += 1
        if same_loss(a, b):
            continue
        if first is None:
            first = step
        if math.isfinite(a) and math.isfinite(b):
            if abs(a - b) > largest:
                largest, largest_step = abs(a - b), step
        elif not notes:
            notes.append("step %d: AmpScope %r, run.py %r" % (step, a, b))
    return first, largest, largest_step, compared, "; ".join(notes)


def print_agreement(reference: str, runs, rows, last_step: int) -> None:
    """Per mode: identical to the app's recorded losses, or the first step that differs and the largest
    difference."""
    app = {}
    with open(reference, newline="") as f:
        for r in csv.DictReader(f):
            app.setdefault(r["mode"], {})[int(r["step"])] = float(r["loss"])
    print("Agreement with AmpScope's losses (%s, AmpScope %s on LibTorch %s; this is PyTorch %s):"
          % (os.path.basename(reference), CONFIG["ampscope_version"], CONFIG.get("libtorch_version", "?"),
             torch.__version__))
    for run in runs:
        recorded = app.get(run.mode)
        label = "  %-16s %-8s " % (run.mode, run.path)
        if not recorded:
            print(label + "no AmpScope losses recorded")
            continue
        python = {step: loss for step, mode, loss, _, _ in rows if mode == run.mode}
        first, largest, at, compared, note = agreement(recorded, python, last_step)
        if first is None:
            steps = "the 1 step" if compared == 1 else "all %d steps" % compared
            print(label + "identical: %s bit for bit" % steps)
        else:
            text = "DIFFERS from step %d" % first
            if at is not None:
                text += ", largest |difference| %.3g at step %d" % (largest, at)
            text += " (%d step%s compared)" % (compared, "" if compared == 1 else "s")
            print(label + text + ("; " + note if note else ""))


def main() -> int:
    parser = argparse.ArgumentParser(description="Rerun an AmpScope experiment in PyTorch.")
    parser.add_argument("--steps", type=int, default=CONFIG["steps"],
                        help="steps to train (at most the %d exported)" % CONFIG["steps"])
    parser.add_argument("--modes", default=",".join(CONFIG["modes"]),
                        help="comma-separated precision modes (default: the exported ones)")
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"],
                        help="where to train (default cpu, as AmpScope does)")
    parser.add_argument("--no-emulation", action="store_true",
                        help="run every FP16/BF16 mode natively, AmpScope's path or not; refuse a mode "
                             "this PyTorch cannot run natively instead of emulating it")
    parser.add_argument("--csv", default=os.path.join(HERE, "pytorch_loss.csv"),
                        help="where to write step,mode,loss,loss_scale,skipped")
    parser.add_argument("--quiet", action="store_true", help="print only the summary")
    args = parser.parse_args()

    if args.steps < 1 or args.steps > CONFIG["steps"]:
        sys.exit("run.py: --steps must be between 1 and %d (the steps exported)" % CONFIG["steps"])
    modes = [m for m in args.modes.split(",") if m]
    for m in modes:
        # >>> plan
        if m == "plan":
            continue
        # <<< plan
        if m not in ("fp32", "fp16-amp-scaled", "fp16-amp", "bf16-amp", "fp16-pure", "bf16-pure") + QUANTIZED_MODES:
            sys.exit("run.py: unknown mode '%s'" % m)
    if args.device == "cuda" and not torch.cuda.is_available():
        sys.exit("run.py: --device cuda, but this PyTorch %s sees no CUDA device" % torch.__version__)
    device = torch.device(args.device)
    # AmpScope trains each mode on its own thread with this many intra-op threads.
    torch.set_num_threads(CONFIG["threads"])
    set_blas_threads(CONFIG["threads"])
    torch.manual_seed(CONFIG["seed"])
    for fmt in FLOAT8_DTYPES:
        if any(m in QUANTIZED_MODES for m in modes) and float8_cast_problem(fmt) is None:
            ELEMENT_CASTS[fmt] = getattr(torch, FLOAT8_DTYPES[fmt])

    runs = []
    for m in modes:
        try:
            runs.append(ModeRun(m, device, allow_emulation=not args.no_emulation))
        except RuntimeError as error:
            print("run.py: skipping " + str(error), file=sys.stderr)
    if not runs:
        sys.exit("run.py: no mode can run here")
    print("PyTorch %s on %s, model %s, optimizer %s" % (torch.__version__, device, CONFIG["model"],
                                                        CONFIG["optimizer"]))
    for run in runs:
        print("  %-16s %s" % (run.mode, run.note))
    if any(m in QUANTIZED_MODES for m in modes):
        for fmt in FLOAT8_DTYPES:
            problem = float8_cast_problem(fmt)
            how = ("rounded by a clamp and torch.%s cast (checked exact)" % FLOAT8_DTYPES[fmt]
                   if problem is None else "rounded on float32 bit patterns: " + problem)
            print("  %-16s %s" % (fmt.upper(), how))
    # >>> plan
    if "plan" in modes and not any(m in QUANTIZED_MODES for m in modes) \
            and any(m in QUANTIZED_MODES for m in plan_modes_used()):
        # The plan's quantised layers round their elements as the quantised modes do (set before training).
        for fmt in FLOAT8_DTYPES:
            problem = float8_cast_problem(fmt)
            if problem is None:
                ELEMENT_CASTS[fmt] = getattr(torch, FLOAT8_DTYPES[fmt])
            how = ("rounded by a clamp and torch.%s cast (checked exact)" % FLOAT8_DTYPES[fmt]
                   if problem is None else "rounded on float32 bit patterns: " + problem)
            print("  %-16s %s" % (fmt.upper(), how))
    # <<< plan

    batches = load_batches()
    rows = []
    for step in range(1, args.steps + 1):
        tensors = [torch.from_numpy(np.array(b[step - 1])).to(device) for b in batches]
        inputs, targets = tensors[0], tensors[1]
        for run in runs:
            if run.diverged:
                continue
            loss, scale, skipped = run.step(inputs, targets)
            rows.append((step, run.mode, loss, scale, int(skipped)))
            if not args.quiet:
                print("step %d %s loss %.9g scale %g%s%s" % (step, run.mode, loss, scale,
                      " (skipped)" if skipped else "", " DIVERGED" if run.diverged else ""))

    with open(args.csv, "w", newline="") as f:
        out = csv.writer(f, lineterminator="\n")
        out.writerow(["step", "mode", "loss", "loss_scale", "skipped"])
        for step, mode, loss, scale, skipped in rows:
            out.writerow([step, mode, repr(loss), repr(scale), skipped])
    print("wrote %s (%d rows)" % (args.csv, len(rows)))

    reference = os.path.join(HERE, "ampscope_loss.csv")
    if os.path.exists(reference):
        print_agreement(reference, runs, rows, args.steps)
    return 0


if __name__ == "__main__":
    sys.exit(main())
