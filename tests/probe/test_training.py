"""Runs tests/probe/train_with_probe.py (CPU, BF16 autocast, 200 steps, every=10) and checks its
stream and cross-check directory: the stream parses, the header carries the version-4 probe fields,
there is one record per instrumented step (1, 11, ..., 191), each histogram counts every element, and
the saved gradients rebuild the stream's histograms."""
import os
import subprocess
import sys
import tempfile
import unittest

import numpy as np

from ampscope_probe import histogram
from probe_test_support import read_stream, reference_histogram

HERE = os.path.dirname(os.path.abspath(__file__))

HEADER_KEYS = {"format", "version", "app", "source", "run", "run-id", "rank", "world-size", "ranks",
               "device", "torch", "every", "parameters"}
RECORD_KEYS = {"mode", "step", "loss", "loss-scale", "skipped", "found-inf", "grad-norm-before-clip",
               "grad-norm-after-clip", "clip-norm-seen", "lr", "step-time-ms", "current-bytes",
               "peak-bytes", "diverged", "instrumented", "tensors", "seq", "wall-time"}


def run_training(out, *extra):
    subprocess.run([sys.executable, os.path.join(HERE, "train_with_probe.py"), "--out", out] + list(extra),
                   check=True, stdout=subprocess.DEVNULL, timeout=120)


class TrainingRun(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        run_training(cls.tmp.name)
        cls.header, cls.records = read_stream(os.path.join(cls.tmp.name, "stream.jsonl"))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_header(self):
        h = self.header
        self.assertEqual(set(h), HEADER_KEYS)
        self.assertEqual((h["format"], h["version"], h["source"]), ("ampscope-records", 4, "probe"))
        self.assertEqual((h["rank"], h["world-size"], h["ranks"], h["device"], h["every"]),
                         (0, 1, "single", "cpu", 10))
        self.assertEqual(h["run"], "ci-train")
        self.assertRegex(h["run-id"], "^[0-9a-f]{16}$")
        self.assertEqual(h["parameters"], ["net.0.weight", "net.0.bias", "net.2.weight", "net.2.bias",
                                           "net.4.weight", "net.4.bias"])

    def test_one_record_per_instrumented_step(self):
        self.assertEqual([r["step"] for r in self.records], list(range(1, 201, 10)))
        self.assertEqual([r["seq"] for r in self.records], list(range(1, 21)))
        for r in self.records:
            self.assertEqual(set(r), RECORD_KEYS)
            self.assertEqual(r["mode"], "bf16-amp")
            self.assertTrue(r["instrumented"])
            self.assertFalse(r["skipped"])
            self.assertEqual(r["loss-scale"], 1.0)
            self.assertEqual(r["lr"], 0.05)
            self.assertIsInstance(r["loss"], float)
        self.assertEqual(self.records[0]["step-time-ms"], 0.0)
        self.assertGreater(self.records[1]["step-time-ms"], 0.0)
        self.assertLess(self.records[-1]["loss"], self.records[0]["loss"])

    def test_histograms_count_every_element(self):
        for r in self.records:
            self.assertEqual([t["name"] for t in r["tensors"]], self.header["parameters"])
            for t in r["tensors"]:
                for side in ("scaled", "unscaled"):
                    self.assertEqual(histogram.total(t[side]), t["numel"], (r["step"], t["name"], side))
                self.assertEqual(t["scaled"], t["unscaled"])  # no scaler

    def test_saved_gradients_rebuild_the_stream(self):
        import json
        with open(os.path.join(self.tmp.name, "grads", "manifest.json"), encoding="utf-8") as f:
            manifest = json.load(f)
        self.assertEqual([s["step"] for s in manifest["steps"]], [r["step"] for r in self.records])
        by_step = {r["step"]: r for r in self.records}
        for entry in manifest["steps"]:
            self.assertEqual(entry["inv-scale"], 1.0)
            tensors = {t["name"]: t for t in by_step[entry["step"]]["tensors"]}
            for saved in entry["tensors"]:
                array = np.load(os.path.join(self.tmp.name, "grads", saved["file"]))
                self.assertEqual(array.dtype.str, "<f4")
                self.assertTrue(array.flags["C_CONTIGUOUS"])
                self.assertEqual(tensors[saved["name"]]["numel"], array.size)
                want = reference_histogram(array.reshape(-1).tolist(), "bf16")
                self.assertEqual(tensors[saved["name"]]["scaled"], want)


class TrainingRunWithScaler(unittest.TestCase):
    def test_inv_scale_and_unscaled_histograms(self):
        with tempfile.TemporaryDirectory() as tmp:
            run_training(tmp, "--scaler", "--steps", "21")
            header, records = read_stream(os.path.join(tmp, "stream.jsonl"))
            import json
            with open(os.path.join(tmp, "grads", "manifest.json"), encoding="utf-8") as f:
                manifest = json.load(f)
            self.assertEqual([r["step"] for r in records], [1, 11, 21])
            for entry, record in zip(manifest["steps"], records):
                self.assertEqual(entry["inv-scale"], 1.0 / 256.0)
                self.assertEqual(record["loss-scale"], 256.0)
                tensors = {t["name"]: t for t in record["tensors"]}
                for saved in entry["tensors"]:
                    values = np.load(os.path.join(tmp, "grads", saved["file"])).reshape(-1)
                    unscaled = (values * np.float32(entry["inv-scale"])).astype("<f4")
                    self.assertEqual(tensors[saved["name"]]["unscaled"],
                                     reference_histogram(unscaled.tolist(), "bf16"))


if __name__ == "__main__":
    unittest.main()
