"""The probe's on-device histogram against an element-by-element reference, on crafted values.

Thresholds and ties are those of round-to-nearest-even (IEEE 754-2019 section 4.3.1; for E4M3/E5M2 the
OCP 8-bit floating point specification 1.0): a value exactly at minSub/2 rounds to zero (the even
neighbour), a value exactly at minNorm - minSub/2 rounds up to minNorm, max + ulpMax/2 rounds to
infinity (NaN for E4M3, which has no infinity). float32's smallest subnormal is 2^-149
(IEEE 754-2019 table 3.5, binary32: emin = -126, p = 24).
"""
import json
import os
import random
import tempfile
import unittest

import torch

from ampscope_probe import Probe, histogram
from probe_test_support import (FORMATS, LIMITS, OVERFLOW_AT_TIE, ContractGradScaler, f32,
                                f32_from_bits, next_down, next_up, read_stream, reference_histogram)


def crafted_values():
    values = [0.0, -0.0, float("inf"), float("-inf"), float("nan"), f32_from_bits(0x7FC00001),
              f32_from_bits(0xFFFFFFFF),              # NaN with the sign bit and a full payload
              2.0 ** -149, -(2.0 ** -149), 3 * 2.0 ** -149, 2.0 ** -127, next_down(2.0 ** -126),
              2.0 ** -126, f32_from_bits(0x7F7FFFFF), -f32_from_bits(0x7F7FFFFF), 1.0, -1.5]
    for key in FORMATS:
        min_sub, min_norm, overflow = LIMITS[key]
        for point in (min_sub / 2, min_norm - min_sub / 2, overflow, min_sub, min_norm):
            point = f32(point)
            assert point == (min_sub / 2 if point == f32(min_sub / 2) else point)
            for v in (point, next_up(point), next_down(point)):
                values += [v, -v]
    return values


def random_bit_patterns(count, seed):
    rng = random.Random(seed)
    return [f32_from_bits(rng.getrandbits(32)) for _ in range(count)]


def probe_histogram(values, target_format="fp16", dtype=torch.float32):
    tensor = torch.tensor(values, dtype=dtype)
    counts = histogram.histogram_counts(histogram.as_float32(tensor))
    return histogram.decode(counts.tolist(), target_format)


class HistogramExactness(unittest.TestCase):
    def check(self, values, target_format="fp16"):
        got = probe_histogram(values, target_format)
        want = reference_histogram(values, target_format)
        self.assertEqual(got, want)
        self.assertEqual(histogram.total(got), len(values))

    def test_crafted_thresholds_and_ties(self):
        values = crafted_values()
        self.check(values, "fp16")
        self.check(values, "bf16")

    def test_the_ties_go_where_the_table_says(self):
        # One value per case, so a wrong comparison (< for <=) changes a count by exactly one.
        for key in FORMATS:
            min_sub, min_norm, overflow = LIMITS[key]
            with self.subTest(format=key):
                formats = probe_histogram([min_sub / 2])["formats"][key]
                self.assertEqual(formats, {"flushed": 1, "subnormal": 0, "overflowed": 0})
                formats = probe_histogram([next_up(f32(min_sub / 2))])["formats"][key]
                self.assertEqual(formats, {"flushed": 0, "subnormal": 1, "overflowed": 0})
                formats = probe_histogram([f32(min_norm - min_sub / 2)])["formats"][key]
                self.assertEqual(formats, {"flushed": 0, "subnormal": 0, "overflowed": 0})
                formats = probe_histogram([next_down(f32(min_norm - min_sub / 2))])["formats"][key]
                self.assertEqual(formats, {"flushed": 0, "subnormal": 1, "overflowed": 0})
                at_tie = 1 if OVERFLOW_AT_TIE[key] else 0
                formats = probe_histogram([f32(overflow)])["formats"][key]
                self.assertEqual(formats, {"flushed": 0, "subnormal": 0, "overflowed": at_tie})
                formats = probe_histogram([next_up(f32(overflow))])["formats"][key]
                self.assertEqual(formats, {"flushed": 0, "subnormal": 0, "overflowed": 1})
                formats = probe_histogram([next_down(f32(overflow))])["formats"][key]
                self.assertEqual(formats, {"flushed": 0, "subnormal": 0, "overflowed": 0})

    def test_float32_subnormal_bins(self):
        # Each power of two from 2^-149 to 2^-126 lands in its own bin, and so does the value just
        # below the next power (same floor(log2)).
        values = [2.0 ** e for e in range(-149, -125)] + [next_down(2.0 ** e) for e in range(-147, -125)]
        got = probe_histogram(values)
        self.assertEqual(got["bins"][0], [-149, 1])
        self.assertEqual(got["bins"], reference_histogram(values)["bins"])

    def test_random_bit_patterns(self):
        self.check(random_bit_patterns(20000, seed=1), "fp16")

    def test_half_and_bfloat16_gradients_are_widened_exactly(self):
        for dtype in (torch.float16, torch.bfloat16):
            with self.subTest(dtype=str(dtype)):
                narrow = torch.tensor(random_bit_patterns(4000, seed=2), dtype=torch.float32).to(dtype)
                values = narrow.float().tolist()
                got = probe_histogram(narrow.tolist(), dtype=dtype)
                self.assertEqual(got, reference_histogram(values))

    def test_agrees_with_torch_casts(self):
        # A second, independent oracle: torch's own round-to-nearest-even conversions.
        x = torch.tensor([v for v in random_bit_patterns(20000, seed=3) + crafted_values()
                          if v == v and abs(v) != float("inf")], dtype=torch.float32)
        casts = [("fp16", torch.float16, 2.0 ** -14), ("bf16", torch.bfloat16, 2.0 ** -126)]
        for name in ("float8_e4m3fn", "float8_e5m2"):
            if hasattr(torch, name):
                casts.append(("fp8-e4m3" if "e4m3" in name else "fp8-e5m2", getattr(torch, name),
                              2.0 ** -6 if "e4m3" in name else 2.0 ** -14))
        if len(casts) == 2:
            print("torch %s has no float8 dtypes: FP8 checked against the reference only"
                  % torch.__version__)
        got = probe_histogram(x.tolist())["formats"]
        for key, dtype, min_norm in casts:
            with self.subTest(format=key):
                y = x.to(dtype).float()
                flushed = int(((x != 0) & (y == 0)).sum())
                subnormal = int(((y != 0) & (y.abs() < min_norm)).sum())
                overflowed = int((~torch.isfinite(y)).sum())
                self.assertEqual(got[key], {"flushed": flushed, "subnormal": subnormal,
                                            "overflowed": overflowed})


    def test_cuda_counts_equal_the_reference(self):
        if not torch.cuda.is_available():
            self.skipTest("no CUDA device: the histogram is checked on the CPU only")
        values = crafted_values() + random_bit_patterns(20000, seed=5)
        for dtype in (torch.float32, torch.float16, torch.bfloat16):
            with self.subTest(dtype=str(dtype)):
                narrow = torch.tensor(values, dtype=torch.float32).to(dtype)
                counts = histogram.histogram_counts(histogram.as_float32(narrow.cuda()))
                self.assertEqual(counts.device.type, "cuda")
                self.assertEqual(histogram.decode(counts.tolist(), "fp16"),
                                 reference_histogram(narrow.float().tolist()))


class HistogramThroughTheProbe(unittest.TestCase):
    def test_record_holds_scaled_and_unscaled_histograms(self):
        values = crafted_values() + random_bit_patterns(3000, seed=4)
        model = torch.nn.Linear(len(values), 1, bias=False)
        scaler = ContractGradScaler(init_scale=1024.0)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "run.jsonl")
            probe = Probe(model, scaler=scaler, every=1, out=path)
            model.weight.grad = torch.tensor([values], dtype=torch.float32)
            probe.after_backward(torch.tensor(0.5))
            probe.after_step()
            probe.close()
            header, records = read_stream(path)
        self.assertEqual(len(records), 1)
        tensor = records[0]["tensors"][0]
        self.assertEqual(tensor["name"], "weight")
        self.assertEqual(tensor["numel"], len(values))
        self.assertEqual(tensor["scaled"], reference_histogram(values))
        # Unscaled: grad * float32(1/scale), one float32 rounding (the double product of two floats is
        # exact, so rounding it to float32 once is the float32 product).
        inv = f32(1.0 / 1024.0)
        self.assertEqual(tensor["unscaled"], reference_histogram([f32(v * inv) for v in values]))
        self.assertEqual(records[0]["loss-scale"], 1024.0)
        self.assertEqual(records[0]["loss"], 0.5)
        self.assertTrue(records[0]["found-inf"])
        self.assertEqual(records[0]["nonfinite"], ["weight"])
        json.dumps(records[0])


if __name__ == "__main__":
    unittest.main()
