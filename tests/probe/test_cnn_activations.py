"""Issue 45 item 1's evidence on a model that is not the example's: cnn_with_probe.py's SmallCNN (Conv2d,
BatchNorm2d, ReLU, MaxPool2d, Linear) trained on synthetic images with activations, weights and rounding
costs on. One activation and the gradient arriving at it (features.0, the first Conv2d's output) are
checked by hand against the tensor the script's own hook kept: the exponent bins with torch.frexp, the
whole histogram element by element with math.frexp (probe_test_support.reference_histogram), and the
SQNR in FP16 and BF16 against 10 log10(sum x^2 / sum (x - x.to(dtype).float())^2) in float64.
"""
import math
import os
import tempfile
import unittest

import torch

from cnn_with_probe import train
from probe_test_support import read_stream, reference_histogram

MODULES = ["features.%d" % i for i in range(8)] + ["classifier.%d" % i for i in range(4)]


def frexp_bins(x):
    """{floor(log2|v|): count} over the finite non-zero values, with torch.frexp (v = m 2^e, |m| in [0.5, 1))."""
    x = x.reshape(-1)
    x = x[torch.isfinite(x) & (x != 0)]
    _, e = torch.frexp(x)
    values, counts = torch.unique(e.long() - 1, return_counts=True)
    return dict(zip(values.tolist(), counts.tolist()))


def direct_sqnr(x, dtype):
    x = x.reshape(-1).float()
    q = x.to(dtype).float()
    signal = float((x.double() ** 2).sum())
    error = float(((x.double() - q.double()) ** 2).sum())
    return 10 * math.log10(signal / error) if error else math.inf


class CnnActivations(unittest.TestCase):
    def run_cnn(self, **kwargs):
        with tempfile.TemporaryDirectory() as tmp:
            losses, kept = train(os.path.join(tmp, "cnn.jsonl"), **kwargs)
            header, recs = read_stream(os.path.join(tmp, "cnn.jsonl"))
        return losses, kept, header, recs

    def check_records(self, header, recs, steps, every):
        self.assertEqual(header["parameters"][:2], ["features.0.weight", "features.0.bias"])
        self.assertEqual([r["step"] for r in recs], list(range(1, steps + 1, every)))
        for record in recs:
            roles = [(t["role"], t["name"]) for t in record["tensors"]]
            self.assertEqual([k for k in roles if k[0] == "activation"], [("activation", m) for m in MODULES])
            # Every module's output takes part in backward, so each has an activation gradient.
            self.assertEqual([k for k in roles if k[0] == "activation-gradient"],
                             [("activation-gradient", m) for m in MODULES])
            self.assertEqual(len([k for k in roles if k[0] == "weight"]), len(header["parameters"]))
            self.assertTrue(all("rounding-cost" in t for t in record["tensors"]))

    def test_fp32_training_one_activation_by_hand(self):
        steps, every = 40, 5
        losses, kept, header, recs = self.run_cnn(steps=steps, every=every)
        self.assertLess(sum(losses[-5:]) / 5, 0.5 * sum(losses[:5]) / 5)  # it learns
        self.check_records(header, recs, steps, every)
        record = recs[-1]  # step 36: trained for a while
        tensors = {(t["role"], t["name"]): t for t in record["tensors"]}
        for role in ("activation", "activation-gradient"):
            x = kept[record["step"]][role]
            t = tensors[(role, "features.0")]
            self.assertEqual(t["numel"], x.numel())
            self.assertEqual(t["numel"], 32 * 16 * 16 * 16)
            bins = {e: c for e, c in t["scaled"]["bins"]}
            self.assertEqual(bins, frexp_bins(x), role)
            self.assertEqual(t["scaled"]["zero"], int((x == 0).sum()), role)
            self.assertEqual(t["scaled"], reference_histogram(x.reshape(-1).tolist()), role)
            cost = t["rounding-cost"]
            for key, dtype in (("fp16", torch.float16), ("bf16", torch.bfloat16)):
                want = direct_sqnr(x, dtype)
                print("step %d features.0 %s: %s SQNR %.6f dB (direct %.6f dB), changed %d of %d, "
                      "flushed %d, subnormal %d" % (record["step"], role, key, cost[key]["sqnr-db"], want,
                                                    cost[key]["changed"], x.numel(), cost[key]["flushed"],
                                                    cost[key]["subnormal"]))
                self.assertAlmostEqual(cost[key]["sqnr-db"], want, places=9)
                q = x.to(dtype).float()
                self.assertEqual(cost[key]["changed"], int((q != x).sum()))
                self.assertEqual(cost[key]["flushed"], int(((x != 0) & (q == 0)).sum()))
                # The rounding cost's range counts are the histogram's for the same format.
                self.assertEqual(cost[key]["flushed"], t["scaled"]["formats"][key]["flushed"])
                self.assertEqual(cost[key]["subnormal"], t["scaled"]["formats"][key]["subnormal"])
            if role == "activation":  # values well inside FP16's range: 10 mantissa bits beat BF16's 7
                self.assertGreater(cost["fp16"]["sqnr-db"], cost["bf16"]["sqnr-db"] + 15)
            else:  # the small gradients fall below FP16's normal range (no loss scale): most are flushed
                self.assertGreater(cost["fp16"]["flushed"], x.numel() // 2)
                self.assertLess(cost["fp16"]["sqnr-db"], cost["bf16"]["sqnr-db"])

    def test_bf16_autocast_conv_output_is_already_bf16(self):
        # Under CPU BF16 autocast Conv2d computes in BF16: its output loses nothing more in BF16.
        steps, every = 6, 5
        _, kept, header, recs = self.run_cnn(steps=steps, every=every, bf16=True)
        self.check_records(header, recs, steps, every)
        for record in recs:
            x = kept[record["step"]]["activation"]
            t = {(t["role"], t["name"]): t for t in record["tensors"]}[("activation", "features.0")]
            self.assertEqual(t["scaled"], reference_histogram(x.reshape(-1).tolist(), "bf16"))
            self.assertEqual(t["rounding-cost"]["bf16"]["changed"], 0)
            self.assertEqual(t["rounding-cost"]["bf16"]["sqnr-db"], "inf")
            fp16, want = t["rounding-cost"]["fp16"], direct_sqnr(x, torch.float16)
            print("step %d features.0 activation (bf16 autocast): fp16 SQNR %s dB (direct %s), changed %d"
                  % (record["step"], fp16["sqnr-db"], want, fp16["changed"]))
            if math.isinf(want):
                self.assertEqual((fp16["sqnr-db"], fp16["changed"]), ("inf", 0))
            else:
                self.assertAlmostEqual(fp16["sqnr-db"], want, places=9)


if __name__ == "__main__":
    unittest.main()
