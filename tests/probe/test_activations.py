"""Activations, activation gradients and weights (Probe(activations=..., weights=True)), record version 4.

Every expected count is computed here from the tensor itself, element by element (math.frexp gives
floor(log2|x|) exactly), not by the probe's histogram code; the rounding costs are checked against a
direct float64 computation of 10 log10(sum x^2 / sum (x - fp16(x))^2) with torch's FP16 cast.
"""
import json
import math
import os
import tempfile
import unittest

import torch

from ampscope_probe import Probe


def exponent_counts(t):
    counts = {}
    for v in t.detach().float().reshape(-1).tolist():
        if v != 0 and math.isfinite(v):
            e = math.frexp(v)[1] - 1
            counts[e] = counts.get(e, 0) + 1
    return counts


class Activations(unittest.TestCase):
    def run_probe(self, steps, **kwargs):
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        seen = {}
        out = os.path.join(self.tmp.name, "run.jsonl")

        def keep(name):
            def hook(module, inputs, output):
                seen.setdefault(name, []).append(output.detach().clone())
                output.register_hook(lambda g: seen.setdefault(name + ".grad", []).append(g.detach().clone()))
            return hook
        for name, module in model.named_children():
            module.register_forward_hook(keep(name))
        probe = Probe(model, optimizer=opt, out=out, overwrite=True, **kwargs)
        weights = {}
        for step in range(1, steps + 1):
            seen.clear()
            opt.zero_grad()
            loss = model(torch.randn(5, 8)).pow(2).mean()
            loss.backward()
            weights[step] = {n: p.detach().clone() for n, p in model.named_parameters()}
            acts = {k: v[0] for k, v in seen.items()}
            probe.after_backward(loss)
            opt.step()
            probe.after_step()
            weights[step]["acts"] = acts
        probe.close()
        with open(out, encoding="utf-8") as f:
            lines = [json.loads(line) for line in f]
        return lines, weights

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def test_outputs_gradients_and_weights_are_histogrammed_exactly(self):
        lines, kept = self.run_probe(4, every=2, activations=["0", "2"], activations_every=3, weights=True,
                                     rounding_cost=True)
        self.assertEqual(lines[0]["version"], 4)
        records = {r["step"]: r for r in lines[1:]}
        # Records on every=2's steps (1, 3) and activations_every=3's (1, 4).
        self.assertEqual(sorted(records), [1, 3, 4])
        for step, record in records.items():
            roles = {(t["role"], t["name"]): t for t in record["tensors"]}
            has_acts = step in (1, 4)
            self.assertEqual(("activation", "0") in roles, has_acts, step)
            self.assertNotIn(("activation", "1"), roles)  # "1" (the ReLU) matches no pattern
            if has_acts:
                for name in ("0", "2"):
                    act = kept[step]["acts"][name]
                    grad = kept[step]["acts"][name + ".grad"]
                    for role, tensor in (("activation", act), ("activation-gradient", grad)):
                        t = roles[(role, name)]
                        self.assertFalse(t["is-parameter"])
                        self.assertEqual(t["numel"], tensor.numel())
                        self.assertEqual({e: c for e, c in t["scaled"]["bins"]}, exponent_counts(tensor))
            for name in ("0.weight", "2.bias"):
                t = roles[("weight", name)]
                self.assertEqual({e: c for e, c in t["scaled"]["bins"]}, exponent_counts(kept[step][name]))
                self.assertFalse(t["is-parameter"])
            self.assertTrue(roles[("gradient", "0.weight")]["is-parameter"])

        # SQNR of one activation against a direct float64 computation with torch's FP16 cast.
        act = kept[1]["acts"]["0"].reshape(-1)
        q = act.half().float()
        signal = float((act.double() ** 2).sum())
        error = float(((act.double() - q.double()) ** 2).sum())
        cost = {(t["role"], t["name"]): t for t in records[1]["tensors"]}[("activation", "0")]["rounding-cost"]
        self.assertAlmostEqual(cost["fp16"]["sqnr-db"], 10 * math.log10(signal / error), places=9)
        self.assertEqual(cost["fp16"]["changed"], int((q != act).sum()))

    def test_without_activations_nothing_is_hooked_and_the_stream_is_gradients_only(self):
        lines, _ = self.run_probe(2, every=1)
        for record in lines[1:]:
            self.assertEqual({t["role"] for t in record["tensors"]}, {"gradient"})
            self.assertNotIn("rounding-cost", record["tensors"][0])

    def test_bad_arguments_name_the_argument(self):
        model = torch.nn.Linear(2, 2)
        out = os.path.join(self.tmp.name, "x.jsonl")
        for kwargs, start in (({"activations": "nomatch*"}, "activations: no module name matches"),
                              ({"activations": [3]}, "activations:"),
                              ({"activations_every": 0}, "activations_every:"),
                              ({"weights": 1}, "weights:"),
                              ({"rounding_cost": "yes"}, "rounding_cost:")):
            with self.assertRaises(ValueError) as caught:
                Probe(model, out=out, overwrite=True, **kwargs)
            self.assertTrue(str(caught.exception).startswith(start), str(caught.exception))


if __name__ == "__main__":
    unittest.main()
