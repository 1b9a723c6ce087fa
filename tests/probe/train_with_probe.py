#!/usr/bin/python3
"""CI training run with the probe: a small MLP on CPU with BF16 autocast, 200 steps, every=10.

Writes the cross-check directory the C++ tests read:
  DIR/stream.jsonl              the probe's stream
  DIR/grads/manifest.json       {"steps":[{"step":S,"inv-scale":M,"tensors":[{"name":N,"file":F},...]},...]}
  DIR/grads/step<S>/<name>.npy  each gradient exactly as the probe saw it in after_backward (NPY 1.0,
                                '<f4', C order; scaled when a scaler is used)
--scaler adds a GradScaler (torch.amp.GradScaler("cpu") where this torch has one, else the test double
that follows GradScaler's contract), so the unscaled histograms use a multiplier other than 1.
The probe runs with rounding_cost=True, and also writes
  DIR/rounding/manifest.json    {"tensors":[{"name":N,"file":F,"rounding-cost":{...}},...]}: the probe's
                                rounding costs of tensors at the formats' edges (edge_tensors())
  DIR/rounding/<name>.npy       those tensors
"""
import argparse
import json
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ampscope_probe import Probe  # noqa: E402
from probe_test_support import SmallMLP, cpu_grad_scaler  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="directory to write (created; must not hold a stream)")
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--every", type=int, default=10)
    parser.add_argument("--scaler", action="store_true")
    args = parser.parse_args()

    torch.manual_seed(0)
    os.makedirs(os.path.join(args.out, "grads"), exist_ok=True)
    model = SmallMLP()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    # torch.amp.GradScaler("cpu") on torch >= 2.3; the ContractGradScaler stand-in on torch 1.13, which has
    # no CPU GradScaler.
    scaler = cpu_grad_scaler(init_scale=256.0) if args.scaler else None
    inputs = torch.randn(512, 16)
    labels = (inputs[:, :4].sum(dim=1) > 0).long() + 2 * (inputs[:, 4:8].sum(dim=1) > 0).long()
    manifest = []
    with Probe(model, optimizer=optimizer, scaler=scaler, every=args.every,
               out=os.path.join(args.out, "stream.jsonl"), mode="bf16-amp", name="ci-train",
               rounding_cost=True) as probe:
        for step in range(1, args.steps + 1):
            batch = torch.randint(0, inputs.shape[0], (32,))
            optimizer.zero_grad()
            with torch.autocast("cpu", dtype=torch.bfloat16):
                loss = F.cross_entropy(model(inputs[batch]), labels[batch])
            (scaler.scale(loss) if scaler is not None else loss).backward()
            probe.after_backward(loss)
            if probe.instrumenting:
                manifest.append(save_gradients(args.out, step, model, probe.inv_scale))
            if scaler is not None:
                scaler.step(optimizer)
                scaler.update()
            else:
                optimizer.step()
            probe.after_step()
    with open(os.path.join(args.out, "grads", "manifest.json"), "w", encoding="utf-8") as f:
        json.dump({"steps": manifest}, f, indent=1)
        f.write("\n")
    save_rounding_edges(args.out)
    print("wrote %s" % os.path.join(args.out, "stream.jsonl"))


def save_gradients(out, step, model, inv_scale):
    folder = "step%d" % step
    os.makedirs(os.path.join(out, "grads", folder), exist_ok=True)
    tensors = []
    for name, parameter in model.named_parameters():
        if parameter.grad is None:
            continue
        grad = parameter.grad.detach().float().contiguous().numpy()
        relative = "%s/%s.npy" % (folder, name)
        np.save(os.path.join(out, "grads", relative), np.ascontiguousarray(grad, dtype="<f4"))
        tensors.append({"name": name, "file": relative})
    return {"step": step, "inv-scale": float(inv_scale), "tensors": tensors}


def edge_tensors():
    """Values at the six formats' rounding edges (the thresholds of docs/record-format.md and the OCP specs),
    whose rounding costs the engine recomputes: ties to even, flush and overflow thresholds, blocks holding
    NaN or inf, zero blocks, tensors whose amax is subnormal or huge, and a partial last block."""
    ties = [1.0, 1 + 2.0 ** -11, 1 + 3 * 2.0 ** -11, 1 + 2.0 ** -8, 2.0 ** -25, 2.0 ** -24 * 1.5, 65504.0,
            65519.0, 65520.0, 2.0 ** -133, 2.0 ** -134, 448.0, 464.0, 465.0, 61440.0, 57344.0, 6.0, 5.0,
            7.0, 2.5, 0.25, 0.75, -0.0, 0.0]
    g = torch.Generator().manual_seed(45)
    out = [("ties", torch.tensor(ties, dtype=torch.float32))]
    for scale in (1e-30, 1e-6, 1.0, 1e4, 1e30):
        out.append(("normal-%g" % scale, (torch.randn(1000, generator=g) * scale).float()))
    heavy = torch.randn(96, generator=g)
    heavy[5] = 1e6     # one outlier: per-tensor scales lose the small values, blocks keep them
    out.append(("outlier", heavy))
    nan_block = torch.randn(70, generator=g)
    nan_block[40] = float("nan")
    nan_block[3] = float("inf")
    out.append(("nonfinite", nan_block))
    zeros = torch.zeros(48)
    zeros[33] = 2.0 ** -140
    out.append(("subnormal-amax", zeros))
    out.append(("huge", torch.tensor([3e38, -3.4e38, 1.0, 1e-45], dtype=torch.float32)))
    return out


def save_rounding_edges(out):
    from ampscope_probe import records, rounding_cost
    os.makedirs(os.path.join(out, "rounding"), exist_ok=True)
    entries = []
    for name, tensor in edge_tensors():
        x = tensor.float().contiguous()
        np.save(os.path.join(out, "rounding", name + ".npy"), np.ascontiguousarray(x.numpy(), dtype="<f4"))
        cost = rounding_cost.decode(rounding_cost.cost_counts(x).tolist(), records.number)
        entries.append({"name": name, "file": name + ".npy", "rounding-cost": cost})
    with open(os.path.join(out, "rounding", "manifest.json"), "w", encoding="utf-8") as f:
        json.dump({"tensors": entries}, f, indent=1, allow_nan=False)
        f.write("\n")


if __name__ == "__main__":
    main()
