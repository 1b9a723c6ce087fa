"""A gradient poisoned with inf after backward, with a GradScaler in use: the scaler skips the step
(PyTorch's documented GradScaler.step: optimizer.step() is skipped when the unscaled gradients hold
inf/NaN; update() then multiplies the scale by backoff_factor), and the probe writes that step's record
with skipped true and the poisoned parameter first in nonfinite.

The real torch.amp.GradScaler("cpu") (torch >= 2.3) is run with and without the optimizer step hook
(torch >= 2.0); on torch 1.13, which has neither, those two tests skip. ContractGradScaler, a double
that follows GradScaler's documented contract and keeps none of its internals, runs on every torch: it
is the stand-in for the real scaler on torch 1.13, and everywhere it tests the probe's fallbacks for a
scaler whose internals it cannot read.
"""
import os
import tempfile
import unittest

import torch
import torch.nn.functional as F

from ampscope_probe import Probe
from probe_test_support import (ContractGradScaler, HookedSGD, SmallMLP, has_cpu_grad_scaler,
                                histogram_total, missing_reason, read_stream)

POISON_STEPS = (5, 11)  # 5 is not an instrumented step (every=10), 11 is
POISONED = "net.2.weight"


class UnhookedSGD(torch.optim.SGD):
    """SGD without the step hooks of torch >= 2.0, as on torch 1.13, so the probe's hook-less ways of
    telling a skipped step (GradScaler's found_inf, or the scale going down) run on every torch."""

    @property
    def register_step_post_hook(self):
        raise AttributeError("register_step_post_hook")


def train(scaler, path, steps=25, every=10, optimizer_class=torch.optim.SGD):
    torch.manual_seed(0)
    model = SmallMLP()
    optimizer = optimizer_class(model.parameters(), lr=0.01)
    inputs, labels = torch.randn(64, 16), torch.randint(0, 4, (64,))
    parameters = dict(model.named_parameters())
    with Probe(model, optimizer=optimizer, scaler=scaler, every=every, out=path) as probe:
        for step in range(1, steps + 1):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(inputs), labels)
            scaler.scale(loss).backward()
            if step in POISON_STEPS:
                parameters[POISONED].grad[1, 2] = float("inf")
                parameters["net.4.bias"].grad[0] = float("nan")  # later in module order
            probe.after_backward(loss)
            scaler.step(optimizer)
            scaler.update()
            probe.after_step()
    return read_stream(path)


class Checks:
    def check(self, scaler, optimizer_class=torch.optim.SGD):
        with tempfile.TemporaryDirectory() as tmp:
            header, records = train(scaler, os.path.join(tmp, "run.jsonl"), optimizer_class=optimizer_class)
        self.assertEqual(header["parameters"][2], POISONED)
        by_step = {r["step"]: r for r in records}
        self.assertEqual(sorted(by_step), [1, 5, 11, 21])
        self.assertEqual([r["seq"] for r in records], [1, 2, 3, 4])
        scale = by_step[1]["loss-scale"]
        for step in POISON_STEPS:
            r = by_step[step]
            self.assertTrue(r["skipped"], step)
            self.assertTrue(r["found-inf"], step)
            self.assertEqual(r["nonfinite"], [POISONED, "net.4.bias"])
            self.assertEqual(r["mode"], "fp16-amp-scaled")
            self.assertEqual(r["grad-norm-before-clip"], "nan")
            tensors = {t["name"]: t for t in r["tensors"]}
            for side in ("scaled", "unscaled"):
                self.assertEqual(tensors[POISONED][side]["pos-inf"], 1, (step, side))
                self.assertEqual(tensors["net.4.bias"][side]["nan"], 1, (step, side))
                for t in r["tensors"]:
                    self.assertEqual(histogram_total(t[side]), t["numel"])
        # The scale that step's backward used: backed off once by the skip at step 5.
        self.assertEqual(by_step[5]["loss-scale"], scale)
        self.assertEqual(by_step[11]["loss-scale"], scale / 2)
        self.assertEqual(by_step[21]["loss-scale"], scale / 4)
        for step in (1, 21):
            self.assertFalse(by_step[step]["skipped"])
            self.assertNotIn("nonfinite", by_step[step])
        # Step 5 was recorded after GradScaler had unscaled in place: its scaled histogram is the
        # unscaled one times the scale, so (no value near float32's limits here) the exponents shift
        # by log2(scale) exactly.
        shift = int(scale).bit_length() - 1
        for t in by_step[5]["tensors"]:
            unscaled = {e: c for e, c in t["unscaled"]["bins"]}
            scaled = {e - shift: c for e, c in t["scaled"]["bins"]}
            self.assertEqual(unscaled, scaled, t["name"])
        return records


class InjectedInf(Checks, unittest.TestCase):
    def test_contract_double(self):
        # No step hook, no GradScaler internals: skipped steps told by the scale going down.
        self.check(ContractGradScaler(init_scale=2.0 ** 10), optimizer_class=UnhookedSGD)

    def test_contract_double_with_a_step_hook(self):
        # Skipped steps told by the optimizer step hook (no device read): torch's own on torch >= 2.0,
        # HookedSGD's stand-in on torch 1.13, which has no optimizer step hooks.
        self.check(ContractGradScaler(init_scale=2.0 ** 10), optimizer_class=HookedSGD)

    def test_cuda_grad_scaler(self):
        if not torch.cuda.is_available():
            self.skipTest("no CUDA device: the CUDA GradScaler, found_inf per device and memory "
                          "counters are not exercised")
        torch.manual_seed(0)
        model = SmallMLP().cuda()
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
        # torch.amp.GradScaler("cuda") from torch 2.3 on (torch.cuda.amp.GradScaler warns there that it
        # is deprecated); torch 1.13 has only torch.cuda.amp.GradScaler.
        scaler = (torch.amp.GradScaler("cuda", init_scale=2.0 ** 10) if has_cpu_grad_scaler()
                  else torch.cuda.amp.GradScaler(init_scale=2.0 ** 10))
        inputs, labels = torch.randn(64, 16, device="cuda"), torch.randint(0, 4, (64,), device="cuda")
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "run.jsonl")
            with Probe(model, optimizer=optimizer, scaler=scaler, every=10, out=path) as probe:
                for step in range(1, 13):
                    optimizer.zero_grad()
                    with torch.autocast("cuda", dtype=torch.float16):
                        loss = F.cross_entropy(model(inputs), labels)
                    scaler.scale(loss).backward()
                    if step == 5:
                        model.net[2].weight.grad[1, 2] = float("inf")
                    probe.after_backward(loss)
                    scaler.step(optimizer)
                    scaler.update()
                    probe.after_step()
            header, records = read_stream(path)
        self.assertEqual(header["device"], "cuda:%d" % torch.cuda.current_device())
        by_step = {r["step"]: r for r in records}
        self.assertEqual(sorted(by_step), [1, 5, 11])
        self.assertTrue(by_step[5]["skipped"])
        self.assertEqual(by_step[5]["nonfinite"], [POISONED])
        if "found-inf-per-device" in by_step[5]:
            self.assertEqual(list(by_step[5]["found-inf-per-device"].values()), [True])
        self.assertGreater(by_step[11]["peak-bytes"], 0)
        self.assertGreaterEqual(by_step[11]["peak-bytes"], by_step[11]["current-bytes"])


class RealCpuGradScaler(Checks, unittest.TestCase):
    """torch >= 2 only (its own CTest test, reported as skipped on torch 1.13)."""

    @classmethod
    def setUpClass(cls):
        if not has_cpu_grad_scaler():
            raise unittest.SkipTest(missing_reason("CPU GradScaler (torch.amp.GradScaler('cpu'))"))

    def check_torch_cpu_grad_scaler(self, optimizer_class):
        records = self.check(torch.amp.GradScaler("cpu", init_scale=2.0 ** 10), optimizer_class)
        for r in records:  # GradScaler's per-device found_inf (torch 2.6's state exposes it)
            self.assertEqual(r["found-inf-per-device"], {"cpu": r["skipped"]}, r["step"])

    def test_with_the_step_hook(self):
        # torch >= 2.0's SGD: skipped steps told by the optimizer step hook.
        self.check_torch_cpu_grad_scaler(torch.optim.SGD)

    def test_without_a_step_hook(self):
        # Skipped steps told by GradScaler's found_inf per device.
        self.check_torch_cpu_grad_scaler(UnhookedSGD)


if __name__ == "__main__":
    unittest.main()
