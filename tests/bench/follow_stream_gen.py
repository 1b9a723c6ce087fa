#!/usr/bin/env python3
"""Writes a probe-format record stream (docs/record-format.md, version 4) for the follow memory bench.

    follow_stream_gen.py OUT --records 1000000 [--params 8] [--every 1]
        OUT gets a probe header and RECORDS records, steps 1.., seq 1..; every EVERY-th record is
        instrumented with one gradient tensor per parameter (PARAMS of them), each with both
        histograms and their "formats" counts, as the probe writes them at every=EVERY.
    follow_stream_gen.py OUT --wide-line 200000
        OUT gets a header and one instrumented record holding that many tensor entries (the record
        line of issue 47: 200,000 entries, about 60 MB), then one plain record.

Values are deterministic (no randomness): the loss falls as 1/sqrt(step), one step in 1,000 is a
skipped overflow step (loss scale halved, "nonfinite" names the first parameter).
"""
import argparse
import json
import math
import sys


def histogram(exponent, count, flushed, subnormal):
    zero = {"flushed": 0, "subnormal": 0, "overflowed": 0}
    return {"bins": [[exponent, count - 1], [exponent - 14, 1]], "zero": 0, "pos-inf": 0, "neg-inf": 0,
            "nan": 0, "target-subnormal": subnormal, "target-underflow": flushed,
            "formats": {"fp16": {"flushed": flushed, "subnormal": subnormal, "overflowed": 0},
                        "bf16": dict(zero), "fp8-e4m3": dict(zero), "fp8-e5m2": dict(zero)}}


def tensor(name, numel, step):
    exponent = -12 - (step % 7)
    return {"name": name, "is-parameter": True, "numel": numel,
            "scaled": histogram(exponent + 16, numel, 0, 0),
            "unscaled": histogram(exponent, numel, 1, 1)}


def lean_tensor(name, numel):
    """A tensor entry of about 300 bytes (one bin, no "formats"), as in issue 47's 60 MB line."""
    h = {"bins": [[-12, numel]], "zero": 0, "pos-inf": 0, "neg-inf": 0, "nan": 0, "target-subnormal": 0,
         "target-underflow": 0}
    return {"name": name, "is-parameter": True, "numel": numel, "scaled": h, "unscaled": dict(h)}


def record(step, params, instrumented, scale):
    skipped = step % 1000 == 0
    loss = 2.5 / math.sqrt(step)
    r = {"mode": "fp16-amp-scaled", "step": step, "loss": loss, "loss-scale": scale, "skipped": skipped,
         "found-inf": skipped, "grad-norm-before-clip": "inf" if skipped else 0.5 + 1.0 / step,
         "grad-norm-after-clip": 0.5, "clip-norm-seen": 0.5, "lr": 0.01, "step-time-ms": 1.5,
         "current-bytes": 0, "peak-bytes": 0, "diverged": False, "instrumented": instrumented}
    if instrumented:
        r["tensors"] = [tensor(name, 64, step) for name in params]
    r["seq"] = step
    r["wall-time"] = 1764550000.0 + step * 0.01
    if skipped:
        r["nonfinite"] = [params[0]]
    return r


def header(params, every):
    return {"format": "ampscope-records", "version": 4, "app": "follow_stream_gen", "source": "probe",
            "run": "bench", "run-id": "00000000be0c4a11", "rank": 0, "world-size": 1, "ranks": "single",
            "device": "cpu", "torch": "generated", "every": every, "parameters": params}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out")
    parser.add_argument("--records", type=int, default=1000000)
    parser.add_argument("--params", type=int, default=8)
    parser.add_argument("--every", type=int, default=1)
    parser.add_argument("--wide-line", type=int, default=0, metavar="TENSORS")
    args = parser.parse_args()
    dumps = json.JSONEncoder(separators=(",", ":")).encode
    with open(args.out, "w", encoding="utf-8") as out:
        if args.wide_line:
            params = ["layer%d.weight" % i for i in range(args.wide_line)]
            out.write(dumps(header(params[:16], 1)) + "\n")
            wide = record(1, params[:1], True, 65536.0)
            wide["tensors"] = [lean_tensor(name, 64) for name in params]
            out.write(dumps(wide) + "\n")
            out.write(dumps(record(2, params[:1], False, 65536.0)) + "\n")
            return 0
        params = ["net.%d.weight" % i for i in range(args.params)]
        out.write(dumps(header(params, args.every)) + "\n")
        # The tensors depend on step % 7 only: encoded once each and spliced in (the generator is then
        # about as fast as the disk).
        tensors = [dumps([tensor(name, 64, k) for name in params]) for k in range(7)]
        scale = 65536.0
        for step in range(1, args.records + 1):
            if step % 1000 == 0:
                scale /= 2
            elif step % 2000 == 1:
                scale = min(scale * 2, 65536.0)
            instrumented = (step - 1) % args.every == 0
            r = record(step, params, False, scale)
            r["instrumented"] = instrumented
            line = dumps(r)
            if instrumented:
                at = line.index(',"seq":')
                line = line[:at] + ',"tensors":' + tensors[step % 7] + line[at:]
            out.write(line + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
