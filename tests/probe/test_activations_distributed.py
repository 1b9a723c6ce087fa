"""Activations, activation gradients, weights and rounding costs in two-process runs (gloo, 127.0.0.1,
torch.multiprocessing spawn): a model wrapped in DistributedDataParallel (DdpActivations) or in
FullyShardedDataParallel with use_orig_params=True (FsdpActivations, torch >= 2), each rank running a
per-rank probe and a merged probe on the same steps.

Each rank keeps what the probe should have seen (every matched module's output and the gradient arriving
at it, captured by this test's own hooks; the parameters' gradients and values at after_backward) and
saves it; the test then checks, from those tensors and not from the probe's histogram code:
* per rank: the header, which records exist, every tensor's role, name, numel and whole histogram (element
  by element, probe_test_support.reference_histogram), the FP16/BF16 SQNR against a direct float64
  computation;
* merged: every tensor's histogram is the sum of the ranks' (counts add exactly), its rounding cost is
  the one of the ranks' exact sums added part by part (rounding_cost.cost_counts of each rank's tensor,
  summed, decoded: the same bits), and its FP16/BF16 SQNR is 10 log10(sum x^2 / sum (x - q(x))^2) over
  both ranks' values; the gradient norm is each rank's (DDP) or the whole gradient's (FSDP).
"""
import inspect
import math
import os
import socket
import tempfile
import unittest

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn.functional as F

from ampscope_probe import Probe, records, rounding_cost
from probe_test_support import (TORCH_VERSION, SmallMLP, add_histograms, missing_reason, read_stream,
                                reference_histogram)

WORLD = 2
STEPS = 6
EVERY = 3              # gradients (and weights) on steps 1 and 4
ACTIVATIONS_EVERY = 2  # activations on steps 1, 3 and 5
RECORDED = [1, 3, 4, 5]
ACTIVATION_STEPS = [1, 3, 5]
MODULES = ["net.0", "net.1", "net.2", "net.3", "net.4"]
PARAMETERS = ["net.0.weight", "net.0.bias", "net.2.weight", "net.2.bias", "net.4.weight", "net.4.bias"]
# The prefix each wrapper puts before the model's own names (named_modules and named_parameters).
PREFIX = {"ddp": "module.", "fsdp": "_fsdp_wrapped_module."}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def has_cpu_fsdp():
    """FullyShardedDataParallel with use_orig_params (torch 2.0) on the CPU with gloo (tested on 2.6)."""
    if TORCH_VERSION < (2, 4):
        return False
    try:
        from torch.distributed.fsdp import FullyShardedDataParallel
    except ImportError:
        return False
    return "use_orig_params" in inspect.signature(FullyShardedDataParallel.__init__).parameters


def wrap(kind, model):
    if kind == "ddp":
        return torch.nn.parallel.DistributedDataParallel(model)
    from torch.distributed.fsdp import FullyShardedDataParallel
    return FullyShardedDataParallel(model, use_orig_params=True, device_id=torch.device("cpu"))


def worker(rank, port, out, kind):
    os.environ.setdefault("USE_LIBUV", "0")  # Debian 13's torch 2.6 has no libuv (see test_distributed)
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:%d" % port, rank=rank, world_size=WORLD)
    torch.set_num_threads(1)
    try:
        torch.manual_seed(0)
        model = wrap(kind, SmallMLP())
        prefix = PREFIX[kind]
        optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
        torch.manual_seed(100 + rank)  # each rank its own batches
        # A pattern without the wrapper's prefix matches nothing: the error names what names look like.
        try:
            Probe(model, out=os.path.join(out, "never.jsonl"), activations="net.*")
            unmatched = None
        except ValueError as error:
            unmatched = str(error)
        kwargs = dict(optimizer=optimizer, every=EVERY, activations=prefix + "net.*",
                      activations_every=ACTIVATIONS_EVERY, weights=True, rounding_cost=True, name=kind)
        per_rank = Probe(model, out=os.path.join(out, "run.jsonl"), ranks="per-rank", **kwargs)
        merged = Probe(model, out=os.path.join(out, "merged.jsonl"), ranks="merged", **kwargs)
        seen = {}

        def keep(name):
            def hook(module, inputs, output):
                seen[("activation", name)] = output.detach().clone()

                def grad_hook(grad):
                    seen[("activation-gradient", name)] = grad.detach().clone()
                output.register_hook(grad_hook)
            return hook
        for name, module in model.named_modules():
            if name[len(prefix):] in MODULES:
                module.register_forward_hook(keep(name))
        kept = {}
        for step in range(1, STEPS + 1):
            seen.clear()
            optimizer.zero_grad()
            loss = F.cross_entropy(model(torch.randn(16, 16)), torch.randint(0, 4, (16,)))
            loss.backward()
            tensors = dict(seen) if step in ACTIVATION_STEPS else {}
            for name, parameter in model.named_parameters():
                tensors[("weight", name)] = parameter.detach().clone()
                if parameter.grad is not None:
                    tensors[("gradient", name)] = parameter.grad.detach().clone()
            kept[step] = tensors
            per_rank.after_backward(loss)
            merged.after_backward(loss)
            optimizer.step()
            per_rank.after_step()
            merged.after_step()
        per_rank.close()
        merged.close()
        torch.save({"kept": kept, "unmatched": unmatched}, os.path.join(out, "kept.rank%d.pt" % rank))
    finally:
        dist.destroy_process_group()


def values_of(tensor):
    return tensor.detach().float().reshape(-1).tolist()


def direct_sqnr(tensors, dtype):
    """10 log10(sum x^2 / sum (x - x.to(dtype).float())^2) over all the tensors' values, in float64."""
    x = torch.cat([t.detach().float().reshape(-1) for t in tensors])
    q = x.to(dtype).float()
    signal = float((x.double() ** 2).sum())
    error = float(((x.double() - q.double()) ** 2).sum())
    return 10 * math.log10(signal / error)


class _TwoRanks:
    kind = None

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        out = cls.tmp.name
        mp.spawn(worker, args=(free_port(), out, cls.kind), nprocs=WORLD, join=True)
        cls.files = sorted(os.listdir(out))
        cls.streams = [read_stream(os.path.join(out, "run.rank%d.jsonl" % r)) for r in range(WORLD)]
        cls.merged = read_stream(os.path.join(out, "merged.jsonl"))
        cls.saved = [torch.load(os.path.join(out, "kept.rank%d.pt" % r)) for r in range(WORLD)]
        cls.kept = [s["kept"] for s in cls.saved]
        cls.prefix = PREFIX[cls.kind]

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def expected_keys(self, rank, step):
        """(role, name) of the tensors rank's record of step holds, in the probe's order: the parameters'
        gradients, then per module its activation and activation gradient, then the weights; FSDP leaves
        out a parameter whose shard on this rank is empty."""
        kept = self.kept[rank][step]
        keys = [("gradient", self.prefix + n) for n in PARAMETERS
                if ("gradient", self.prefix + n) in kept and kept[("gradient", self.prefix + n)].numel()]
        if step in ACTIVATION_STEPS:
            for m in MODULES:
                keys += [("activation", self.prefix + m), ("activation-gradient", self.prefix + m)]
        keys += [("weight", self.prefix + n) for n in PARAMETERS if kept[("weight", self.prefix + n)].numel()]
        return keys

    def test_files_and_headers(self):
        self.assertEqual(self.files, ["kept.rank0.pt", "kept.rank1.pt", "merged.jsonl", "run.rank0.jsonl",
                                      "run.rank1.jsonl"])  # rank 1 writes no merged stream
        names = [self.prefix + n for n in PARAMETERS]
        for rank, (header, recs) in enumerate(self.streams):
            self.assertEqual((header["rank"], header["world-size"], header["ranks"], header["every"]),
                             (rank, WORLD, "per-rank", EVERY))
            self.assertEqual(header["parameters"], names)
            self.assertEqual([r["step"] for r in recs], RECORDED)
        header, recs = self.merged
        self.assertEqual((header["rank"], header["world-size"], header["ranks"]), (0, WORLD, "merged"))
        self.assertEqual(header["parameters"], names)
        self.assertEqual([r["step"] for r in recs], RECORDED)
        for saved in self.saved:
            self.assertTrue(saved["unmatched"].startswith("activations: no module name matches net.*"),
                            saved["unmatched"])
            self.assertIn(self.prefix.rstrip("."), saved["unmatched"])

    def test_per_rank_tensors_are_what_each_rank_saw(self):
        for rank, (_, recs) in enumerate(self.streams):
            for record in recs:
                step = record["step"]
                kept = self.kept[rank][step]
                keys = [(t["role"], t["name"]) for t in record["tensors"]]
                self.assertEqual(keys, self.expected_keys(rank, step), (rank, step))
                for t in record["tensors"]:
                    tensor = kept[(t["role"], t["name"])]
                    where = (rank, step, t["role"], t["name"])
                    self.assertEqual(t["is-parameter"], t["role"] == "gradient", where)
                    self.assertEqual(t["numel"], tensor.numel(), where)
                    want = reference_histogram(values_of(tensor))
                    self.assertEqual(t["scaled"], want, where)
                    self.assertEqual(t["unscaled"], want, where)  # no scaler
                    cost = t["rounding-cost"]
                    self.assertEqual(cost["fp16"]["elements"], tensor.numel(), where)
                    for key, dtype in (("fp16", torch.float16), ("bf16", torch.bfloat16)):
                        q = tensor.float().to(dtype).float()
                        self.assertEqual(cost[key]["changed"], int((q != tensor.float()).sum()), where)
                        if cost[key]["changed"]:
                            self.assertAlmostEqual(cost[key]["sqnr-db"], direct_sqnr([tensor], dtype),
                                                   places=9, msg=str(where))

    def test_merged_is_the_sum_of_the_ranks(self):
        _, merged = self.merged
        for i, record in enumerate(merged):
            step = record["step"]
            per_rank = [{(t["role"], t["name"]): t for t in self.streams[r][1][i]["tensors"]}
                        for r in range(WORLD)]
            self.assertEqual(record["loss"], (self.streams[0][1][i]["loss"] + self.streams[1][1][i]["loss"]) / 2)
            keys = [(t["role"], t["name"]) for t in record["tensors"]]
            union = set(per_rank[0]) | set(per_rank[1])
            self.assertEqual(set(keys), union, step)
            self.assertEqual(len(keys), len(union), step)
            for t in record["tensors"]:
                key = (t["role"], t["name"])
                parts = [p[key] for p in per_rank if key in p]
                tensors = [self.kept[r][step][key] for r in range(WORLD) if key in per_rank[r]]
                where = (step,) + key
                self.assertEqual(t["numel"], sum(p["numel"] for p in parts), where)
                want = parts[0]["scaled"]
                for more in parts[1:]:
                    want = add_histograms(want, more["scaled"])
                self.assertEqual(t["scaled"], want, where)
                self.assertEqual(t["unscaled"], want, where)
                # Rounding costs: the ranks' exact sums added part by part (the merge's all_reduce), the
                # same bits as decoding the sum of each rank's cost_counts.
                slots = sum(rounding_cost.cost_counts(x.detach().float().reshape(-1).contiguous())
                            for x in tensors)
                self.assertEqual(t["rounding-cost"], rounding_cost.decode(slots.tolist(), records.number), where)
                for fmt in rounding_cost.FORMAT_KEYS:
                    for count in ("elements", "changed", "flushed", "subnormal", "overflowed"):
                        self.assertEqual(t["rounding-cost"][fmt][count],
                                         sum(p["rounding-cost"][fmt][count] for p in parts), where + (fmt,))
                for fmt, dtype in (("fp16", torch.float16), ("bf16", torch.bfloat16)):
                    if t["rounding-cost"][fmt]["changed"]:
                        self.assertAlmostEqual(t["rounding-cost"][fmt]["sqnr-db"], direct_sqnr(tensors, dtype),
                                               places=9, msg=str(where + (fmt,)))
            self.assertEqual({k[0] for k in keys} >= {"activation", "activation-gradient"},
                             step in ACTIVATION_STEPS, step)


class DdpActivations(_TwoRanks, unittest.TestCase):
    kind = "ddp"

    def test_gradients_and_weights_are_the_same_on_both_ranks(self):
        # DDP all-reduces the gradients and keeps the replicas equal: the merged histograms of gradients
        # and weights are twice each rank's, and the merged norm is each rank's.
        _, merged = self.merged
        for i, record in enumerate(merged):
            r0, r1 = self.streams[0][1][i], self.streams[1][1][i]
            self.assertEqual(record["grad-norm-before-clip"], r0["grad-norm-before-clip"])
            self.assertEqual(r0["grad-norm-before-clip"], r1["grad-norm-before-clip"])
            for t0, t1 in zip(r0["tensors"], r1["tensors"]):
                if t0["role"] in ("gradient", "weight"):
                    self.assertEqual((t0["name"], t0["scaled"]), (t1["name"], t1["scaled"]))


class FsdpActivations(_TwoRanks, unittest.TestCase):
    kind = "fsdp"

    @classmethod
    def setUpClass(cls):
        if not has_cpu_fsdp():
            raise unittest.SkipTest(missing_reason(
                "CPU FSDP (FullyShardedDataParallel(use_orig_params=True, device_id=cpu) on gloo)"))
        super().setUpClass()

    def test_shards_add_up_to_whole_parameters(self):
        # FULL_SHARD: each rank holds a flat slice of every parameter (possibly empty); the merged gradient
        # and weight of a parameter count each element once, and the merged norm is the whole gradient's.
        full = {n: p.numel() for n, p in SmallMLP().named_parameters()}
        _, merged = self.merged
        for record in merged:
            step = record["step"]
            tensors = {(t["role"], t["name"]): t for t in record["tensors"]}
            sumsq = 0.0
            for n in PARAMETERS:
                self.assertEqual(tensors[("weight", self.prefix + n)]["numel"], full[n], (step, n))
                self.assertEqual(tensors[("gradient", self.prefix + n)]["numel"], full[n], (step, n))
                for r in range(WORLD):
                    g = self.kept[r][step].get(("gradient", self.prefix + n))
                    if g is not None:
                        sumsq += float((g.double() ** 2).sum())
            self.assertAlmostEqual(record["grad-norm-before-clip"], math.sqrt(sumsq), places=12)
            self.assertTrue(any(self.kept[r][step][("weight", self.prefix + n)].numel() < full[n]
                                for r in range(WORLD) for n in PARAMETERS))  # really sharded


if __name__ == "__main__":
    unittest.main()
