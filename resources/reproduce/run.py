#!/usr/bin/env python3
"""Reproduce an AmpScope run in PyTorch.

Written by AmpScope's "Reproduce in PyTorch" export. It trains the same model from the same initial
weights on the same batches as the app did, with torch.autocast / GradScaler as the chapter writes them,
and prints the loss of every step (and writes it as CSV), so the numbers can be compared with the app's.

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
# FP16 on a CPU-only PyTorch.
#
# CPU autocast accepts only bfloat16, and FP16 matmuls have no CPU kernel. So on a CPU the FP16 modes
# run *emulated*, exactly as AmpScope does on such a machine: float32 arithmetic, with values rounded to
# the nearest float16 (IEEE round-to-nearest-even, through Tensor.half()) where a real FP16 run would
# hold float16 data, and the gradients flowing back through the same points rounded too. A value too
# small for float16 becomes 0 there (underflow), one too large becomes inf (overflow).
#   fp16-amp(-scaled): as CUDA autocast does: Linear and matmul take float16 inputs, weight and bias
#     and give a float16 output; softmax, layer_norm and cross_entropy run in float32; GELU, additions
#     and scalar products stay float16 when their inputs are.
#   fp16-pure: as model.half(): every op's output is float16, and so is every in-place op of the
#     optimizer's update (HalfAdamW, HalfSGD below).
# On a CUDA device the same modes use real torch.autocast(dtype=torch.float16) / model.half().
# ---------------------------------------------------------------------------------------------------
class RoundToHalf(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x: Tensor) -> Tensor:
        return x.half().float()

    @staticmethod
    def backward(ctx, grad: Tensor) -> Tensor:
        return grad.half().float()


def r16(x: Tensor) -> Tensor:
    return RoundToHalf.apply(x)


def is_low(t: Tensor) -> bool:
    return t.dtype in (torch.float16, torch.bfloat16)


class Ops:
    """The ops the models are written in. For every mode but the emulated ones these are the plain
    torch functions (autocast, if active, picks their precision); `emulation` is None, "amp" or "pure".
    Activations travel as (tensor, low) pairs: low says the values are already float16 ones."""

    def __init__(self, emulation=None):
        self.emulation = emulation

    def _param(self, p: Tensor) -> Tensor:
        return r16(p) if self.emulation else p

    def _low_in(self, x, low: bool) -> Tensor:
        return r16(x) if self.emulation == "amp" and not low else x

    def _out(self, y: Tensor, inputs_low: bool = True):
        if self.emulation and inputs_low:
            return r16(y), True
        return y, is_low(y)

    def input(self, x: Tensor):
        if self.emulation == "pure":
            return x.half().float(), True  # model.half() callers pass x.half()
        return x, is_low(x)

    def linear(self, x, layer: nn.Linear):
        t, low = x
        if not self.emulation:
            return self._out(F.linear(t, layer.weight, layer.bias))
        bias = None if layer.bias is None else self._param(layer.bias)
        return self._out(F.linear(self._low_in(t, low), self._param(layer.weight), bias))

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
            return F.embedding(ids, self._param(weight)), True
        out = F.embedding(ids, weight)
        return out, is_low(out)

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
        return r16(loss * weight) if self.emulation == "pure" else loss * weight


PLAIN = Ops()


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
                p.grad.mul_(inv.to(p.grad.device, p.grad.dtype))
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
            return torch.amp.GradScaler("cuda", **args), "torch.amp.GradScaler"
        return torch.cuda.amp.GradScaler(**args), "torch.cuda.amp.GradScaler"
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


def make_optimizer(model: nn.Module, emulate_half: bool = False):
    if CONFIG["optimizer"] == "sgd":
        cls = HalfSGD if emulate_half else optim.SGD
        return cls(model.parameters(), lr=CONFIG["lr"], momentum=CONFIG["momentum"],
                   weight_decay=CONFIG["sgd_weight_decay"])
    cls = HalfAdamW if emulate_half else optim.AdamW
    return cls(model.parameters(), lr=CONFIG["lr"], eps=CONFIG["adam_eps"],
               weight_decay=CONFIG["weight_decay"])


# ---------------------------------------------------------------------------------------------------
# torch.optim on model.half() parameters, emulated on a CPU: float32 tensors that hold float16 values,
# and every in-place op of the optimizer's update rounded to float16, as it is when the tensors are
# float16 (the kernels compute in float32 and round once when they store). The op sequence is that of
# torch 1.13's single-tensor AdamW / SGD. So an update smaller than half a float16 ulp is lost, and
# AdamW's eps = 1e-8 rounds to 0 in float16: where v underflows, the update divides by zero - the
# well-known failure of model.half() with Adam.
# ---------------------------------------------------------------------------------------------------
def h(t: Tensor) -> Tensor:
    """Rounds a float32 tensor in place to the nearest float16 value."""
    return t.copy_(t.half().float())


class HalfAdamW(optim.AdamW):
    @torch.no_grad()
    def step(self, closure=None):
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
                    h(p.mul_(1 - lr * group["weight_decay"]))
                h(m.mul_(beta1))
                h(m.add_(grad, alpha=1 - beta1))
                h(v.mul_(beta2))
                h(v.addcmul_(grad, grad, value=1 - beta2))
                denom = h(v.sqrt())
                h(denom.div_(math.sqrt(1 - beta2 ** t)))
                h(denom.add_(group["eps"]))
                h(p.addcdiv_(m, denom, value=-lr / (1 - beta1 ** t)))


class HalfSGD(optim.SGD):
    @torch.no_grad()
    def step(self, closure=None):
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
                        h(buffer.mul_(group["momentum"]))
                        h(buffer.add_(direction))
                        direction = buffer
                h(p.add_(direction, alpha=-group["lr"]))


# ---------------------------------------------------------------------------------------------------
# One mode: how it is set up, and one training step in the chapter's order.
# ---------------------------------------------------------------------------------------------------
# AmpScope's FP8 and microscaling modes (docs/fp8-recipes.md in AmpScope) are not emulated here yet.
NOT_REPRODUCED = ("fp8-delayed", "fp8-current", "mxfp8", "nvfp4")


class ModeRun:
    def __init__(self, mode: str, device: torch.device, allow_emulation: bool):
        if mode in NOT_REPRODUCED:
            raise RuntimeError("%s: AmpScope's FP8/microscaling emulation is not reproduced by this script"
                               % mode)
        self.mode = mode
        self.device = device
        self.model = build_model().to(device)
        load_initial_state(self.model)
        cpu = device.type != "cuda"
        fp16 = mode in ("fp16-amp-scaled", "fp16-amp", "fp16-pure")
        if fp16 and cpu and not allow_emulation:
            raise RuntimeError("%s: FP16 autocast is not available on this CPU build of PyTorch %s "
                               "(CPU autocast supports bfloat16 only); run with --device cuda, or drop "
                               "--no-emulation to use the FP16 emulation described in README.txt"
                               % (mode, torch.__version__))
        self.ops = PLAIN
        self.autocast_dtype = None
        self.input_dtype = None
        self.emulated_pure = False
        if mode in ("fp16-amp-scaled", "fp16-amp"):
            if cpu:
                self.ops = Ops(emulation="amp")
                self.note = "FP16 autocast EMULATED (float32 math, exact rounding to float16)"
            else:
                self.autocast_dtype = torch.float16
                self.note = "torch.autocast('cuda', dtype=torch.float16)"
        elif mode == "bf16-amp":
            self.autocast_dtype = torch.bfloat16
            self.note = "torch.autocast('%s', dtype=torch.bfloat16)" % device.type
        elif mode == "fp16-pure":
            if cpu:
                self.ops = Ops(emulation="pure")
                self.emulated_pure = True
                with torch.no_grad():
                    for p in self.model.parameters():
                        p.copy_(p.half().float())
                self.note = "model.half() EMULATED (float32 math, every value rounded to float16)"
            else:
                self.model.half()
                self.input_dtype = torch.float16
                self.note = "model.half()"
        elif mode == "bf16-pure":
            self.model.to(torch.bfloat16)
            self.input_dtype = torch.bfloat16
            self.note = "model.to(torch.bfloat16)"
        else:
            self.note = "float32"
        self.optimizer = make_optimizer(self.model, emulate_half=self.emulated_pure)
        uses_scaler = mode == "fp16-amp-scaled" or (mode == "fp16-pure" and CONFIG["scaler_for_pure_fp16"])
        self.scaler = None
        if uses_scaler and CONFIG["scaler"]["enabled"]:
            # torch's GradScaler refuses FP16 gradients (model.half()); the portable one accepts them.
            native = mode == "fp16-amp-scaled" and not cpu
            self.scaler, name = make_grad_scaler(device, native)
            self.note += ", " + name
        self.diverged = False

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
        if self.input_dtype is not None and inputs.is_floating_point():
            inputs = inputs.to(self.input_dtype)
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


def main() -> int:
    parser = argparse.ArgumentParser(description="Rerun an AmpScope experiment in PyTorch.")
    parser.add_argument("--steps", type=int, default=CONFIG["steps"],
                        help="steps to train (at most the %d exported)" % CONFIG["steps"])
    parser.add_argument("--modes", default=",".join(CONFIG["modes"]),
                        help="comma-separated precision modes (default: the exported ones)")
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"],
                        help="where to train (default cpu, as AmpScope does)")
    parser.add_argument("--no-emulation", action="store_true",
                        help="refuse FP16 modes on a CPU instead of emulating them")
    parser.add_argument("--csv", default=os.path.join(HERE, "pytorch_loss.csv"),
                        help="where to write step,mode,loss,loss_scale,skipped")
    parser.add_argument("--quiet", action="store_true", help="print only the summary")
    args = parser.parse_args()

    if args.steps < 1 or args.steps > CONFIG["steps"]:
        sys.exit("run.py: --steps must be between 1 and %d (the steps exported)" % CONFIG["steps"])
    modes = [m for m in args.modes.split(",") if m]
    for m in modes:
        if m not in ("fp32", "fp16-amp-scaled", "fp16-amp", "bf16-amp", "fp16-pure", "bf16-pure") + NOT_REPRODUCED:
            sys.exit("run.py: unknown mode '%s'" % m)
    if args.device == "cuda" and not torch.cuda.is_available():
        sys.exit("run.py: --device cuda, but this PyTorch %s sees no CUDA device" % torch.__version__)
    device = torch.device(args.device)
    # AmpScope trains each mode on its own thread with this many intra-op threads.
    torch.set_num_threads(CONFIG["threads"])
    set_blas_threads(CONFIG["threads"])
    torch.manual_seed(CONFIG["seed"])

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
        app = {}
        with open(reference, newline="") as f:
            for r in csv.DictReader(f):
                app[(int(r["step"]), r["mode"])] = float(r["loss"])
        for run in runs:
            diffs = [abs(loss - app[(step, mode)]) for step, mode, loss, _, _ in rows
                     if mode == run.mode and (step, mode) in app
                     and math.isfinite(loss) and math.isfinite(app[(step, mode)])]
            if diffs:
                worst = max(diffs)
                print("%-16s largest |loss(PyTorch) - loss(AmpScope)| over %d steps: %.3g"
                      % (run.mode, len(diffs), worst))
    return 0


if __name__ == "__main__":
    sys.exit(main())
