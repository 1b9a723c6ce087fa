#!/usr/bin/python3
"""The chapter's training step in Python, timed, as the reference for ampscope_bench_train.

TinyMLP(128, 512, 10) = Linear -> GELU -> Linear, batch 32, AdamW(lr=1e-3), cross-entropy, as in the
chapter; FP32 and BF16 autocast on CPU (the chapter's bf16_amp_training_step). Run it with Debian's
/usr/bin/python3 (python3-torch: the same LibTorch 1.13 the C++ engine links). Like Google
Benchmark's aggregates, each mode is timed in `--repetitions` runs of `--steps` steps and the median
of the run means is reported, for wall time and for the thread's CPU time (which a busy machine
disturbs less; Google Benchmark's cpu_time is the same measure). Prints one line per mode:
    python <mode> <wall_us> <median_step_wall_us> <cpu_us> <steps_per_repetition>
"""
import argparse
import statistics
import time

import torch
import torch.nn.functional as F
from torch import nn, optim


class TinyMLP(nn.Module):
    def __init__(self, input_dim, hidden_dim, output_dim):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(input_dim, hidden_dim),
            nn.GELU(),
            nn.Linear(hidden_dim, output_dim),
        )

    def forward(self, x):
        return self.net(x)


def fp32_step(model, optimizer, inputs, labels):
    optimizer.zero_grad()
    logits = model(inputs)
    loss = F.cross_entropy(logits, labels)
    loss.backward()
    optimizer.step()
    return loss.detach()


def bf16_amp_step(model, optimizer, inputs, labels):
    optimizer.zero_grad()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        logits = model(inputs)
        loss = F.cross_entropy(logits, labels)
    loss.backward()
    optimizer.step()
    return loss.detach()


def time_mode(step, warmup, steps, repetitions, seed):
    torch.manual_seed(seed)
    model = TinyMLP(128, 512, 10)
    optimizer = optim.AdamW(model.parameters(), lr=1e-3)
    inputs = torch.randn(32, 128)
    labels = torch.randint(10, (32,))
    for _ in range(warmup):
        step(model, optimizer, inputs, labels)
    means = []
    cpu_means = []
    samples = []
    for _ in range(repetitions):
        run = []
        cpu_start = time.thread_time()
        for _ in range(steps):
            start = time.perf_counter()
            loss = step(model, optimizer, inputs, labels)
            loss.item()  # the C++ record reads the loss too
            run.append((time.perf_counter() - start) * 1e6)
        cpu_means.append((time.thread_time() - cpu_start) * 1e6 / steps)
        means.append(statistics.fmean(run))
        samples.extend(run)
    return statistics.median(means), statistics.median(samples), statistics.median(cpu_means)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2000, help="timed steps per mode")
    parser.add_argument("--repetitions", type=int, default=3, help="timed runs per mode")
    parser.add_argument("--warmup", type=int, default=50, help="untimed steps first")
    parser.add_argument("--threads", type=int, default=1, help="torch.set_num_threads (C++ uses 1)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    # BLAS_INFO=generic: the libblas.so.3 alternative decides (OpenBLAS once libopenblas0-pthread is in).
    print(f"# torch {torch.__version__}, threads {torch.get_num_threads()}")
    for name, step in (("fp32", fp32_step), ("bf16-amp", bf16_amp_step)):
        wall_us, median_us, cpu_us = time_mode(step, args.warmup, args.steps, args.repetitions, args.seed)
        print(f"python {name} {wall_us:.1f} {median_us:.1f} {cpu_us:.1f} {args.steps}", flush=True)


if __name__ == "__main__":
    main()
