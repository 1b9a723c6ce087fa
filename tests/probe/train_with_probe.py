#!/usr/bin/python3
"""CI training run with the probe: a small MLP on CPU with BF16 autocast, 200 steps, every=10.

Writes the cross-check directory the C++ tests read:
  DIR/stream.jsonl              the probe's stream
  DIR/grads/manifest.json       {"steps":[{"step":S,"inv-scale":M,"tensors":[{"name":N,"file":F},...]},...]}
  DIR/grads/step<S>/<name>.npy  each gradient exactly as the probe saw it in after_backward (NPY 1.0,
                                '<f4', C order; scaled when a scaler is used)
--scaler adds a GradScaler (torch.amp.GradScaler("cpu") where this torch has one, else the test double
that follows GradScaler's contract), so the unscaled histograms use a multiplier other than 1.
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
               out=os.path.join(args.out, "stream.jsonl"), mode="bf16-amp", name="ci-train") as probe:
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


if __name__ == "__main__":
    main()
