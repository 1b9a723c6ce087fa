"""`ampscope-cli convert --json`'s "pytorch" result against real torch, near the thresholds.

PyTorch's documented behaviour is what this checks: for a Python float x, torch.tensor(x, dtype=...)
and torch.tensor(x, dtype=torch.float64).to(dtype) store what the engine calls PyTorch's result (the
double rounded to float32, then to the target). Each value is also checked to be one where that result
is what torch gives and, for the double-rounding cases, differs from the exact rounding, so the test
fails if the engine reported the exact result instead.

Usage: python3 pytorch_conversion_test.py PATH/TO/ampscope-cli
"""
import json
import math
import subprocess
import sys
import unittest

import torch

CLI = None


def values_near(t, float32_steps=True):
    """t, t*(1 +- k*2^-j) for the spacings that matter: float32's ulp and far below it."""
    out = set()
    for j in (10, 11, 12, 23, 24, 25, 30, 40, 52):
        for k in (-3, -1, 1, 3):
            out.add(t * (1 + k * 2.0 ** -j))
    out.add(t)
    if float32_steps:
        out.add(math.nextafter(t, math.inf))
        out.add(math.nextafter(t, 0.0))
    return out


def thresholds(finfo_max, eps, tiny, smallest_subnormal):
    overflow = finfo_max + finfo_max * eps / 4  # max + half its ulp: the overflow tie
    pts = [finfo_max, overflow, tiny, smallest_subnormal, smallest_subnormal / 2, 1.0, 1 + eps / 2,
           1 + eps * 1.5, tiny - smallest_subnormal / 2]
    vals = set()
    for p in pts:
        vals |= values_near(p)
        vals |= {-v for v in values_near(p)}
    return sorted(vals)


def run_cli(dtype, values):
    args = [CLI, "convert", "--json", "--dtypes", dtype, "--"] + [repr(v) for v in values]
    done = subprocess.run(args, capture_output=True, text=True, check=True)
    # parse_int=float: "-0" must stay -0.0 (json reads it as the int 0).
    return json.loads(done.stdout, parse_int=float)["values"]


def as_float(x):
    return float(x) if not isinstance(x, str) else float(x)  # "inf", "-inf", "nan" read as floats


class PyTorchConversionTest(unittest.TestCase):
    def check(self, dtype_name, torch_dtype):
        fi = torch.finfo(torch_dtype)
        smallest_subnormal = fi.tiny * fi.eps
        values = thresholds(fi.max, fi.eps, fi.tiny, smallest_subnormal)
        self.assertGreater(len(values), 200)
        rows = run_cli(dtype_name, values)
        differing = 0
        for x, row in zip(values, rows):
            result = row["results"][0]
            engine = as_float(result["pytorch"]["stored"])
            exact = as_float(result["stored"])
            for how, got in (("torch.tensor(x, dtype)", torch.tensor(x, dtype=torch_dtype).item()),
                             ("float64 tensor .to(dtype)",
                              torch.tensor(x, dtype=torch.float64).to(torch_dtype).item())):
                with self.subTest(x=x.hex(), path=how):
                    if math.isnan(got):
                        self.assertTrue(math.isnan(engine))
                    else:
                        self.assertEqual(engine, got)
                        self.assertEqual(math.copysign(1, engine), math.copysign(1, got))
            if result["pytorch"]["differs"]:
                differing += 1
                self.assertNotEqual(engine, exact)
                self.assertIn("float32 first", result["pytorch"]["reason"])
        # The thresholds do hold double-rounding cases: the comparison above can tell the two apart.
        self.assertGreater(differing, 4, dtype_name)
        return differing

    def test_float16(self):
        self.check("fp16", torch.float16)
        # The two cases the docs name.
        rows = run_cli("fp16", [65519.99999, 2.0 ** -25 * (1 + 2.0 ** -40)])
        self.assertEqual(rows[0]["results"][0]["stored"], 65504)
        self.assertEqual(rows[0]["results"][0]["pytorch"]["stored"], "inf")
        self.assertEqual(torch.tensor(65519.99999, dtype=torch.float16).item(), math.inf)
        self.assertEqual(rows[1]["results"][0]["stored"], 2.0 ** -24)
        self.assertEqual(rows[1]["results"][0]["pytorch"]["stored"], 0)

    def test_bfloat16(self):
        self.check("bf16", torch.bfloat16)

    def test_float8(self):
        if not hasattr(torch, "float8_e4m3fn"):
            self.skipTest("torch %s has no float8 dtypes (they arrived in torch 2.1); FP8 is not compared"
                          % torch.__version__)
        self.check("fp8e4m3fn", torch.float8_e4m3fn)
        self.check("fp8e5m2", torch.float8_e5m2)


if __name__ == "__main__":
    CLI = sys.argv.pop(1)
    unittest.main(verbosity=2)
