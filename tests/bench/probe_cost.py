#!/usr/bin/python3
"""What the probe costs: mean step time of the example model without the probe, with every=1 and with
every=10, measured in one run and printed as ratios. Not a test (no thresholds); the figures go into
docs/probe.md. Run with Debian's python3 (or any python with torch):

    PYTHONPATH=probe/python /usr/bin/python3 tests/bench/probe_cost.py [--steps 200] [--rounds 3]
"""
import argparse
import os
import platform
import statistics
import sys
import tempfile
import time

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "examples"))
from train_with_probe import TinyTransformer, batches  # noqa: E402
from ampscope_probe import Probe  # noqa: E402


def cpu_description():
    model, flags = platform.processor() or "unknown", []
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() == "model name" and model in ("unknown", "x86_64", ""):
                    model = value.strip()
                elif key.strip() == "flags" and not flags:
                    wanted = ("avx", "avx2", "avx512f", "avx512_bf16", "amx_bf16", "fma", "f16c")
                    flags = [flag for flag in value.split() if flag in wanted]
    except OSError:
        pass
    return model, flags


def run(steps, variant, out_dir, device, dtype, use_scaler):
    every, activations = variant
    torch.manual_seed(0)
    model = TinyTransformer().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = torch.cuda.amp.GradScaler() if use_scaler else None
    probe = None
    if every:
        extra = {"activations": "*", "rounding_cost": activations == "cost"} if activations else {}
        probe = Probe(model, optimizer=optimizer, scaler=scaler, every=every,
                      out=os.path.join(out_dir, "every%d-%d.jsonl" % (every, time.monotonic_ns())), **extra)
    data = batches(device)
    warmup = 10
    for step in range(warmup + steps):
        if step == warmup:
            if device.type == "cuda":
                torch.cuda.synchronize()
            start = time.perf_counter()
            cpu_start = time.process_time()
        tokens, labels = next(data)
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast(device.type, dtype=dtype):
            loss = F.cross_entropy(model(tokens), labels)
        (scaler.scale(loss) if scaler else loss).backward()
        if probe:
            probe.after_backward(loss)
        if scaler:
            scaler.step(optimizer)
            scaler.update()
        else:
            optimizer.step()
        if probe:
            probe.after_step()
    if device.type == "cuda":
        torch.cuda.synchronize()
    elapsed = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    if probe:
        probe.close()
    return elapsed / steps * 1000.0, cpu / steps * 1000.0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds; the median is reported")
    args = parser.parse_args()
    cuda = torch.cuda.is_available()
    device = torch.device("cuda" if cuda else "cpu")
    dtype = torch.float16 if cuda else torch.bfloat16
    model, flags = cpu_description()
    print("torch %s, python %s, %s, %d threads" % (torch.__version__, platform.python_version(),
                                                   device, torch.get_num_threads()))
    print("cpu: %s; flags: %s" % (model, " ".join(flags) or "-"))
    if cuda:
        print("gpu: %s" % torch.cuda.get_device_name())
    print("model: examples/train_with_probe.py TinyTransformer (%s autocast%s), %d steps x %d rounds"
          % ("fp16" if cuda else "bf16", " + GradScaler" if cuda else "", args.steps, args.rounds))
    # (every, activations): "act" = every module's output and its gradient (activations="*"), "cost" = the
    # same with the rounding costs of every tensor (rounding_cost=True).
    times = {(0, False): [], (1, False): [], (10, False): [], (1, "act"): [], (10, "act"): [], (1, "cost"): [],
             (10, "cost"): []}
    with tempfile.TemporaryDirectory() as out_dir:
        for _ in range(args.rounds):
            for variant in times:  # interleaved, so drift in machine load hits every variant alike
                times[variant].append(run(args.steps, variant, out_dir, device, dtype, cuda))
    # Wall time, and the process's CPU time (less disturbed by other work on a shared machine).
    base = [statistics.median(t[i] for t in times[(0, False)]) for i in (0, 1)]
    print("no probe : wall %.3f ms/step, cpu %.3f ms/step" % (base[0], base[1]))
    for every, activations in list(times)[1:]:
        t = [statistics.median(x[i] for x in times[(every, activations)]) for i in (0, 1)]
        label = "every=%d%s" % (every, " +" + activations if activations else "")
        print("%-14s: wall %.3f ms/step (ratio %.3f), cpu %.3f ms/step (ratio %.3f)"
              % (label, t[0], t[0] / base[0], t[1], t[1] / base[1]))


if __name__ == "__main__":
    main()
