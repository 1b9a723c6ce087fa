"""FP16 training on the CPU with a loss scale far too large: torch.amp.GradScaler("cpu", init_scale=2^40)
and torch.autocast("cpu", dtype=torch.float16) over 30 steps. FP16 backward overflows to inf until
the scale has halved often enough (PyTorch's documented GradScaler: a step whose unscaled gradients hold
inf/NaN is skipped and update() multiplies the scale by backoff_factor 0.5), so steps 1..k are skipped
(k is about 21 for this model) with scales 2^40, 2^39, ..., and the steps after k are not. The probe must
write a record for each skipped step, with the scale that step's backward used, and tell the skips
without a device read (the optimizer step hook).

The real pieces are used where this torch has them (torch 2.6: all three); torch 1.13 has none of them
on the CPU and runs the same checks with probe_test_support's stand-ins (ContractGradScaler, emulated
FP16 rounding, HookedSGD): see fp16_pieces() in the output. The same loop runs under DDP (gloo, two
processes, per-rank and merged streams). One check needs torch >= 2 itself and skips on torch 1.13 with
the reason: fused optimizers, whose step GradScaler calls on skipped steps too, with the gradients still
scaled.
"""
import os
import socket
import sys
import tempfile
import unittest

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn.functional as F

from ampscope_probe import Probe
from probe_test_support import (HookedSGD, SmallMLP, add_histograms, cpu_fp16_autocast, cpu_grad_scaler,
                                fp16_pieces, has_cpu_fp16_autocast, has_cpu_grad_scaler, missing_reason,
                                read_stream)

STEPS = 30
INIT_SCALE = 2.0 ** 40


def loop(model, optimizer, scaler, probes, inputs, labels, steps=STEPS, unscale_first=False):
    """The AMP loop; returns the steps the scaler really skipped (its scale went down)."""
    skipped = []
    for step in range(1, steps + 1):
        optimizer.zero_grad()
        # FP16 autocast on the CPU where torch has it (2.6); torch 1.13's CPU autocast has BF16 only, so
        # there FP16 rounding is emulated (probe_test_support.emulated_fp16_autocast).
        with cpu_fp16_autocast(model):
            loss = F.cross_entropy(model(inputs), labels)
        scaler.scale(loss).backward()
        for probe in probes:
            probe.after_backward(loss)
        if unscale_first:
            scaler.unscale_(optimizer)
        before = scaler.get_scale()
        scaler.step(optimizer)
        scaler.update()
        if scaler.get_scale() < before:
            skipped.append(step)
        for probe in probes:
            probe.after_step()
    return skipped


def single_run(path, optimizer_factory=HookedSGD, every=10, unscale_first=False):
    torch.manual_seed(0)
    model = SmallMLP()
    # HookedSGD is torch.optim.SGD with torch's own step hooks on torch >= 2.0 and adds them on torch 1.13,
    # which lacks them; cpu_grad_scaler is torch.amp.GradScaler("cpu") on torch >= 2.3 and the
    # ContractGradScaler stand-in on torch 1.13, which has no CPU GradScaler.
    optimizer = optimizer_factory(model.parameters(), lr=0.01)
    scaler = cpu_grad_scaler(init_scale=INIT_SCALE)
    inputs, labels = torch.randn(64, 16), torch.randint(0, 4, (64,))
    with Probe(model, optimizer=optimizer, scaler=scaler, every=every, out=path) as probe:
        hooked = probe._hook is not None
        skipped = loop(model, optimizer, scaler, [probe], inputs, labels, unscale_first=unscale_first)
    header, records = read_stream(path)
    return records, skipped, hooked


class RealGradScalerFp16(unittest.TestCase):
    def test_skipped_steps_and_the_halving_scale(self):
        sys.stdout.write("\n%s\n" % fp16_pieces())
        with tempfile.TemporaryDirectory() as tmp:
            records, skipped, hooked = single_run(os.path.join(tmp, "run.jsonl"))
        self.assertTrue(hooked, "the probe does not use the optimizer step hook")
        k = len(skipped)
        self.assertEqual(skipped, list(range(1, k + 1)))  # 1..k, then FP16 holds the gradients
        self.assertTrue(10 <= k <= STEPS - 5, k)
        by_step = {r["step"]: r for r in records}
        # One record per skipped step, and the instrumented steps 1, 11, 21 (every=10).
        self.assertEqual(sorted(by_step), sorted(set(skipped) | {1, 11, 21}))
        self.assertEqual([r["step"] for r in records if r["skipped"]], skipped)
        for step in skipped:
            r = by_step[step]
            self.assertEqual(r["loss-scale"], INIT_SCALE / 2.0 ** (step - 1), step)
            self.assertTrue(r["found-inf"], step)
            self.assertTrue(r["nonfinite"], step)
            if has_cpu_grad_scaler():
                self.assertEqual(r["found-inf-per-device"], {"cpu": True})
            # Scaled and unscaled histograms differ by exactly log2(scale) in every finite bin (a power
            # of two scale, no float32 subnormal or overflow among these gradients), on the planned
            # steps (histogrammed before GradScaler unscaled) and the others (after) alike.
            shift = 40 - (step - 1)  # log2 of the scale
            for t in r["tensors"]:
                self.assertEqual(t["scaled"]["pos-inf"] + t["scaled"]["neg-inf"] + t["scaled"]["nan"],
                                 t["unscaled"]["pos-inf"] + t["unscaled"]["neg-inf"] + t["unscaled"]["nan"])
                self.assertEqual([[e - shift, c] for e, c in t["scaled"]["bins"]], t["unscaled"]["bins"],
                                 (step, t["name"]))
        for step in sorted(set(by_step) - set(skipped)):
            r = by_step[step]
            self.assertFalse(r["skipped"])
            self.assertNotIn("nonfinite", r)
            self.assertEqual(r["loss-scale"], INIT_SCALE / 2.0 ** k)
        sys.stdout.write("skipped steps %d..%d, scales %s\n" % (
            skipped[0], skipped[-1], " ".join("2^%d" % (40 - s + 1) for s in skipped)))

    def test_records_do_not_depend_on_every(self):
        # A skipped step is recorded with the same histograms whether it was planned (histogrammed in
        # after_backward) or not (after GradScaler.step unscaled the gradients in place).
        with tempfile.TemporaryDirectory() as tmp:
            every1, skipped1, _ = single_run(os.path.join(tmp, "a.jsonl"), every=1)
            every100, skipped100, _ = single_run(os.path.join(tmp, "b.jsonl"), every=100)
        self.assertEqual(skipped1, skipped100)
        check_same_skipped_records(self, every1, every100, skipped1)


def check_same_skipped_records(test, a, b, skipped):
    a = {r["step"]: r for r in a if r["skipped"]}
    b = {r["step"]: r for r in b if r["skipped"]}
    test.assertEqual(sorted(a), skipped)
    test.assertEqual(sorted(b), skipped)
    for step in skipped:
        for key in ("loss-scale", "nonfinite", "tensors", "grad-norm-before-clip"):
            test.assertEqual(a[step][key], b[step][key], (step, key))


class FusedOptimizers(unittest.TestCase):
    """torch >= 2 only (its own CTest test, reported as skipped on torch 1.13). GradScaler calls a fused
    optimizer's step() on skipped steps too and does not unscale its gradients in place (unless unscale_
    ran): the probe must neither count that step as taken nor read the still-scaled gradients as
    unscaled."""

    @classmethod
    def setUpClass(cls):
        for name in ("SGD", "Adam"):
            try:
                getattr(torch.optim, name)(SmallMLP().parameters(), lr=0.01, fused=True)
            except (TypeError, RuntimeError) as e:
                raise unittest.SkipTest(missing_reason("fused CPU %s (%s)" % (name, e)))
        if not has_cpu_grad_scaler() or not has_cpu_fp16_autocast():
            raise unittest.SkipTest(missing_reason("CPU GradScaler or CPU FP16 autocast"))

    def test_skipped_steps_with_fused_sgd_and_adam(self):
        with tempfile.TemporaryDirectory() as tmp:
            _, reference, _ = single_run(os.path.join(tmp, "ref.jsonl"), every=1)
            for name in ("SGD", "Adam"):
                def fused(parameters, lr, name=name):
                    return getattr(torch.optim, name)(parameters, lr=lr, fused=True)
                for unscale_first in (False, True):
                    with self.subTest(optimizer=name, unscale_first=unscale_first):
                        every1, skipped1, hooked = single_run(
                            os.path.join(tmp, "%s-%d-1.jsonl" % (name, unscale_first)), fused, 1, unscale_first)
                        every100, skipped100, _ = single_run(
                            os.path.join(tmp, "%s-%d-100.jsonl" % (name, unscale_first)), fused, 100,
                            unscale_first)
                        self.assertFalse(hooked)
                        self.assertEqual(skipped1, reference)
                        self.assertEqual(skipped100, reference)
                        check_same_skipped_records(self, every1, every100, reference)


# ---------------------------------------------------------------------------------------------------
WORLD = 2


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ddp_worker(rank, port, out):
    os.environ.setdefault("USE_LIBUV", "0")  # see test_distributed.init
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:%d" % port, rank=rank, world_size=WORLD)
    torch.set_num_threads(1)
    try:
        torch.manual_seed(0)
        module = SmallMLP()
        model = torch.nn.parallel.DistributedDataParallel(module)
        # Real on torch 2.6; stand-ins on torch 1.13, which lacks both (see single_run).
        optimizer = HookedSGD(model.parameters(), lr=0.01)
        scaler = cpu_grad_scaler(init_scale=INIT_SCALE)
        torch.manual_seed(100 + rank)  # each rank its own batch
        inputs, labels = torch.randn(32, 16), torch.randint(0, 4, (32,))
        probes = [Probe(model, optimizer=optimizer, scaler=scaler, every=10, ranks=ranks, name="ddp",
                        out=os.path.join(out, "%s.jsonl" % ranks)) for ranks in ("per-rank", "merged")]
        skipped = loop(module, optimizer, scaler, probes, inputs, labels)
        for probe in probes:
            probe.close()
        with open(os.path.join(out, "skipped.rank%d" % rank), "w") as f:
            f.write(" ".join(map(str, skipped)))
    finally:
        dist.destroy_process_group()


class DistributedFp16(unittest.TestCase):
    def test_ddp_merged_and_per_rank(self):
        sys.stdout.write("\n%s\n" % fp16_pieces())
        with tempfile.TemporaryDirectory() as out:
            mp.spawn(ddp_worker, args=(free_port(), out), nprocs=WORLD, join=True)
            skipped = []
            for rank in range(WORLD):
                with open(os.path.join(out, "skipped.rank%d" % rank)) as f:
                    skipped.append([int(s) for s in f.read().split()])
            streams = [read_stream(os.path.join(out, "per-rank.rank%d.jsonl" % r)) for r in range(WORLD)]
            merged_header, merged = read_stream(os.path.join(out, "merged.jsonl"))
        self.assertEqual(skipped[0], skipped[1])  # DDP's averaged gradients: the ranks agree
        k = len(skipped[0])
        self.assertEqual(skipped[0], list(range(1, k + 1)))
        self.assertTrue(10 <= k <= STEPS - 5, k)
        steps = sorted(set(skipped[0]) | {1, 11, 21})
        self.assertEqual(merged_header["ranks"], "merged")
        self.assertEqual([r["step"] for r in merged], steps)
        for rank, (header, records) in enumerate(streams):
            self.assertEqual((header["rank"], header["ranks"]), (rank, "per-rank"))
            self.assertEqual([r["step"] for r in records], steps)
            self.assertEqual([r["step"] for r in records if r["skipped"]], skipped[0])
            for r in records:
                if has_cpu_grad_scaler():
                    self.assertEqual(r["found-inf-per-device"], {"cpu": r["skipped"]})
        for i, record in enumerate(merged):
            r0, r1 = streams[0][1][i], streams[1][1][i]
            self.assertEqual(record["skipped"], r0["skipped"])
            self.assertEqual(record["loss-scale"], r0["loss-scale"])
            self.assertEqual(record["loss-scale"], r1["loss-scale"])
            self.assertNotIn("found-inf-per-device", record)
            for t, t0, t1 in zip(record["tensors"], r0["tensors"], r1["tensors"]):
                for side in ("scaled", "unscaled"):
                    self.assertEqual(t[side], add_histograms(t0[side], t1[side]), (i, t["name"], side))
        self.assertEqual([r["loss-scale"] for r in merged if r["skipped"]],
                         [INIT_SCALE / 2.0 ** (s - 1) for s in skipped[0]])


if __name__ == "__main__":
    unittest.main()
