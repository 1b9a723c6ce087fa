"""Shared by the probe tests: an element-by-element reference histogram, stream reading, a small model,
and the real torch >= 2 pieces of a CPU FP16 training loop (torch.amp.GradScaler("cpu"), FP16 autocast
on the CPU, Optimizer.register_step_post_hook) with the stand-ins the tests use where this torch lacks
them (Debian 12's torch 1.13 lacks all three)."""
import contextlib
import json
import math
import re
import struct
import warnings

import torch

# Format limits (minSub, minNorm, overflow threshold = max + ulpMax/2), round-to-nearest-even:
# FP16 and BF16 from IEEE 754-2019 (binary16; bfloat16 = binary32's exponent with 8 significand bits),
# E4M3 and E5M2 from the OCP 8-bit floating point specification (OFP8) 1.0. E4M3 has no infinity:
# the overflow threshold is where a non-saturating conversion gives NaN.
LIMITS = {
    "fp16": (2.0 ** -24, 2.0 ** -14, 65504.0 + 32.0 / 2),
    "bf16": (2.0 ** -133, 2.0 ** -126, (2.0 ** 128 - 2.0 ** 120) + 2.0 ** 120 / 2),
    "fp8-e4m3": (2.0 ** -9, 2.0 ** -6, 448.0 + 32.0 / 2),
    "fp8-e5m2": (2.0 ** -16, 2.0 ** -14, 57344.0 + 8192.0 / 2),
}
FORMATS = ("fp16", "bf16", "fp8-e4m3", "fp8-e5m2")
# Round-to-nearest-even at the overflow threshold: FP16's, BF16's and E5M2's largest finite value has
# an odd (all-ones) significand, so the tie goes up to infinity; E4M3's 448 is 1.110b * 2^8 (1.111b * 2^8
# is its NaN), an even significand, so the tie stays at 448 and only larger magnitudes overflow.
OVERFLOW_AT_TIE = {"fp16": True, "bf16": True, "fp8-e4m3": False, "fp8-e5m2": True}


def f32(value):
    """The float32 nearest to a double (struct rounds to nearest even)."""
    return struct.unpack("<f", struct.pack("<f", value))[0]


def f32_from_bits(bits):
    return struct.unpack("<f", struct.pack("<I", bits & 0xFFFFFFFF))[0]


def bits_of(value):
    return struct.unpack("<I", struct.pack("<f", value))[0]


def next_up(value):
    """The next float32 above a positive float32."""
    return f32_from_bits(bits_of(value) + 1)


def next_down(value):
    return f32_from_bits(bits_of(value) - 1)


def reference_histogram(values, target_format="fp16"):
    """The record's histogram of a list of float32 values (Python floats), one element at a time."""
    bins = {}
    hist = {"zero": 0, "pos-inf": 0, "neg-inf": 0, "nan": 0}
    formats = {key: {"flushed": 0, "subnormal": 0, "overflowed": 0} for key in FORMATS}
    for v in values:
        if math.isnan(v):
            hist["nan"] += 1
            continue
        if math.isinf(v):
            hist["pos-inf" if v > 0 else "neg-inf"] += 1
            continue
        if v == 0:
            hist["zero"] += 1
            continue
        mantissa, exponent = math.frexp(abs(v))  # |v| = mantissa * 2^exponent, mantissa in [0.5, 1)
        bins[exponent - 1] = bins.get(exponent - 1, 0) + 1
        a = abs(v)
        for key in FORMATS:
            min_sub, min_norm, overflow = LIMITS[key]
            if a <= min_sub / 2:
                formats[key]["flushed"] += 1
            elif a < min_norm - min_sub / 2:
                formats[key]["subnormal"] += 1
            elif a > overflow or (a == overflow and OVERFLOW_AT_TIE[key]):
                formats[key]["overflowed"] += 1
    hist["bins"] = [[e, bins[e]] for e in sorted(bins)]
    hist["target-subnormal"] = formats[target_format]["subnormal"]
    hist["target-underflow"] = formats[target_format]["flushed"]
    hist["formats"] = formats
    return hist


def add_histograms(a, b):
    out = {}
    for key in ("zero", "pos-inf", "neg-inf", "nan", "target-subnormal", "target-underflow"):
        out[key] = a[key] + b[key]
    bins = dict((e, c) for e, c in a["bins"])
    for e, c in b["bins"]:
        bins[e] = bins.get(e, 0) + c
    out["bins"] = [[e, bins[e]] for e in sorted(bins)]
    out["formats"] = {k: {f: a["formats"][k][f] + b["formats"][k][f] for f in a["formats"][k]}
                      for k in a["formats"]}
    return out


def histogram_total(h):
    return sum(c for _, c in h["bins"]) + h["zero"] + h["pos-inf"] + h["neg-inf"] + h["nan"]


def read_stream(path):
    """(header, records) of a JSON Lines stream; every line must parse."""
    with open(path, encoding="utf-8") as f:
        lines = [json.loads(line) for line in f if line.strip()]
    return lines[0], lines[1:]


def read_lines(text):
    lines = [json.loads(line) for line in text.splitlines() if line.strip()]
    return lines[0], lines[1:]


class ContractGradScaler:
    """A CPU stand-in for torch.cuda.amp.GradScaler, for torches that have no CPU GradScaler (1.13's
    disables itself without CUDA). It follows GradScaler's documented contract: scale() multiplies the
    loss by the scale; unscale_() multiplies the gradients in place by float32(1/scale) and notes
    whether any is inf/NaN; step() unscales if needed and skips optimizer.step() when one was; update()
    multiplies the scale by backoff_factor after a skipped step and by growth_factor after
    growth_interval clean steps. It keeps no GradScaler internals, so the probe takes its fallbacks."""

    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000):
        self._scale = None
        self._value = float(init_scale)
        self._growth = growth_factor
        self._backoff = backoff_factor
        self._interval = growth_interval
        self._tracker = 0
        self._unscaled = False
        self._found_inf = False

    def is_enabled(self):
        return True

    def get_scale(self):
        return self._value

    def get_backoff_factor(self):
        return self._backoff

    def scale(self, loss):
        return loss * self._value

    def unscale_(self, optimizer):
        if self._unscaled:
            return
        inv = f32(1.0 / self._value)
        for group in optimizer.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    p.grad.mul_(inv)
                    if not bool(torch.isfinite(p.grad).all()):
                        self._found_inf = True
        self._unscaled = True

    def step(self, optimizer):
        self.unscale_(optimizer)
        if self._found_inf:
            return None
        return optimizer.step()

    def update(self):
        if self._found_inf:
            self._value *= self._backoff
            self._tracker = 0
        else:
            self._tracker += 1
            if self._tracker == self._interval:
                self._value *= self._growth
                self._tracker = 0
        self._unscaled = False
        self._found_inf = False


TORCH_VERSION = tuple(int(part) for part in re.match(r"(\d+)\.(\d+)", torch.__version__).groups())
# The torch from which on the tests expect the CPU pieces of FP16 training (GradScaler("cpu") came in
# 2.3, FP16 autocast on the CPU and fused CPU optimizers by 2.4): a torch at least this new that lacks
# one fails the test that needs it instead of skipping it.
EXPECTED_FROM = (2, 4)


def has_cpu_grad_scaler():
    amp = getattr(torch, "amp", None)
    return amp is not None and hasattr(amp, "GradScaler")


def has_step_hooks():
    return hasattr(torch.optim.Optimizer, "register_step_post_hook")


def has_cpu_fp16_autocast():
    """Whether torch.autocast("cpu", dtype=torch.float16) runs a matmul in FP16 (torch 1.13 warns
    "CPU Autocast only supports dtype of torch.bfloat16" and disables itself)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            with torch.autocast("cpu", dtype=torch.float16):
                return torch.mm(torch.ones(2, 2), torch.ones(2, 2)).dtype == torch.float16
        except (RuntimeError, TypeError):
            return False


def missing_reason(what):
    """The skip reason for a torch that lacks `what`; raises AssertionError on a torch that should have
    it (EXPECTED_FROM or newer), so a broken torch 2 does not pass as a skip."""
    if TORCH_VERSION >= EXPECTED_FROM:
        raise AssertionError("torch %s has no %s" % (torch.__version__, what))
    return "torch %s has no %s (torch >= 2 feature)" % (torch.__version__, what)


def cpu_grad_scaler(**kwargs):
    """torch.amp.GradScaler("cpu") where this torch has one, else ContractGradScaler (stand-in: torch
    1.13 has no CPU GradScaler; its torch.cuda.amp.GradScaler disables itself without CUDA)."""
    if has_cpu_grad_scaler():
        return torch.amp.GradScaler("cpu", **kwargs)
    return ContractGradScaler(**kwargs)


class HookedSGD(torch.optim.SGD):
    """SGD with the step post-hook API of torch >= 2.0 (Optimizer.register_step_post_hook: the hook is
    called as hook(optimizer, args, kwargs) after each step), added where this torch lacks it (stand-in:
    torch 1.13 has no optimizer step hooks), so the probe's hook path is tested on torch 1.13 too. On
    torch >= 2.0 this is plain torch.optim.SGD with its own hooks."""

    if not hasattr(torch.optim.SGD, "register_step_post_hook"):
        def register_step_post_hook(self, hook):
            hooks = self.__dict__.setdefault("_test_post_hooks", {})
            key = len(hooks)
            hooks[key] = hook

            class Handle:
                def remove(self_handle):
                    hooks.pop(key, None)
            return Handle()

        def step(self, *args, **kwargs):
            out = super().step(*args, **kwargs)
            for hook in list(self.__dict__.get("_test_post_hooks", {}).values()):
                hook(self, args, kwargs)
            return out


class _RoundToHalf(torch.autograd.Function):
    """Rounds a float32 tensor through FP16 on the way forward and its gradient on the way back
    (round to nearest even; beyond FP16's range it becomes inf, as an FP16 matmul's result would)."""

    @staticmethod
    def forward(ctx, x):
        return x.half().float()

    @staticmethod
    def backward(ctx, grad):
        return grad.half().float()


@contextlib.contextmanager
def emulated_fp16_autocast(model):
    """Stand-in for torch.autocast("cpu", dtype=torch.float16) where the CPU has no FP16 autocast
    (torch 1.13): every Linear's output and the gradient flowing back into it are rounded through FP16,
    so a loss scale too large for FP16 overflows the backward pass to inf as real FP16 autocast does.
    The layers still compute in float32 (no FP16 rounding of products and sums)."""
    handles = [m.register_forward_hook(lambda module, inputs, output: _RoundToHalf.apply(output))
               for m in model.modules() if isinstance(m, torch.nn.Linear)]
    try:
        yield
    finally:
        for handle in handles:
            handle.remove()


def cpu_fp16_autocast(model):
    """torch.autocast("cpu", dtype=torch.float16) where this torch has it, else emulated_fp16_autocast
    (stand-in: torch 1.13's CPU autocast has BF16 only)."""
    if has_cpu_fp16_autocast():
        return torch.autocast("cpu", dtype=torch.float16)
    return emulated_fp16_autocast(model)


def fp16_pieces():
    """Which of the three pieces are real here, as text for the tests' output."""
    return "GradScaler: %s, FP16 autocast: %s, step hook: %s (torch %s)" % (
        "torch.amp.GradScaler('cpu')" if has_cpu_grad_scaler() else "ContractGradScaler stand-in",
        "torch.autocast('cpu', float16)" if has_cpu_fp16_autocast() else "emulated stand-in",
        "Optimizer.register_step_post_hook" if has_step_hooks() else "HookedSGD stand-in",
        torch.__version__)


class SmallMLP(torch.nn.Module):
    def __init__(self, inputs=16, hidden=32, outputs=4):
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(inputs, hidden), torch.nn.GELU(),
                                       torch.nn.Linear(hidden, hidden), torch.nn.GELU(),
                                       torch.nn.Linear(hidden, outputs))

    def forward(self, x):
        return self.net(x)
