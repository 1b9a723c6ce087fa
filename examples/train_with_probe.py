#!/usr/bin/python3
"""Train a small Transformer classifier with AmpScope's probe watching the gradients.

With CUDA: FP16 autocast and a GradScaler (the classic loss-scaled AMP loop). Without: BF16 autocast on
the CPU. Follow the run live while it trains:

    python3 train_with_probe.py --out run.jsonl            then  ampscope-cli follow run.jsonl
    python3 train_with_probe.py --out tcp://127.0.0.1:5000  then  ampscope-cli follow 127.0.0.1:5000

or File > Follow Run... in AmpScope.
"""
import argparse

import torch
import torch.nn.functional as F
from torch import nn

from ampscope_probe import Probe


class TinyTransformer(nn.Module):
    def __init__(self, vocab=64, width=64, heads=4, layers=2, classes=4):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        layer = nn.TransformerEncoderLayer(width, heads, dim_feedforward=4 * width, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers)
        self.head = nn.Linear(width, classes)

    def forward(self, tokens):
        return self.head(self.encoder(self.embed(tokens)).mean(dim=1))


def batches(device, vocab=64, length=32, size=32):
    """Sequences whose class is which quarter of the vocabulary occurs most: learnable, endless."""
    while True:
        tokens = torch.randint(0, vocab, (size, length), device=device)
        yield tokens, (tokens // (vocab // 4)).mode(dim=1).values


def main():
    parser = argparse.ArgumentParser(description="Train a small model with AmpScope's probe.")
    parser.add_argument("--out", default="run.jsonl",
                        help="a JSON Lines file to create, or tcp://HOST:PORT to serve (default run.jsonl)")
    parser.add_argument("--steps", type=int, default=500)
    parser.add_argument("--every", type=int, default=10, help="instrument every N-th step (default 10)")
    parser.add_argument("--overwrite", action="store_true", help="replace an existing --out file")
    parser.add_argument("--inject-inf", type=int, default=0, metavar="STEP",
                        help="put an inf into head.weight's gradient at STEP (a GradScaler skips the "
                             "step; without one the run diverges)")
    parser.add_argument("--name", default=None, help="the run's name in AmpScope (default: the script's)")
    args = parser.parse_args()

    cuda = torch.cuda.is_available()
    device = torch.device("cuda" if cuda else "cpu")
    torch.manual_seed(0)
    model = TinyTransformer().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    # FP16 needs a loss scale; BF16 has FP32's exponent range and trains without one.
    scaler = None
    if cuda:
        # torch.amp.GradScaler("cuda") since torch 2.3; torch.cuda.amp.GradScaler before (deprecated after).
        scaler = torch.amp.GradScaler("cuda") if hasattr(torch.amp, "GradScaler") else torch.cuda.amp.GradScaler()
    dtype = torch.float16 if cuda else torch.bfloat16
    mode = "fp16-amp-scaled" if cuda else "bf16-amp"

    with Probe(model, optimizer=optimizer, scaler=scaler, every=args.every, out=args.out, mode=mode,
               name=args.name, overwrite=args.overwrite) as probe:
        where = probe.destination
        follow = where[len("tcp://"):] if where.startswith("tcp://") else where
        print("probe stream: %s" % where)
        print("follow it with: ampscope-cli follow %s   (or AmpScope: File > Follow Run...)" % follow)
        data = batches(device)
        for step in range(1, args.steps + 1):
            tokens, labels = next(data)
            optimizer.zero_grad(set_to_none=True)
            with torch.autocast(device.type, dtype=dtype):
                loss = F.cross_entropy(model(tokens), labels)
            if scaler is not None:
                scaler.scale(loss).backward()
                if step == args.inject_inf:
                    model.head.weight.grad[0, 0] = float("inf")
                probe.after_backward(loss)
                scaler.step(optimizer)
                scaler.update()
            else:
                loss.backward()
                if step == args.inject_inf:
                    model.head.weight.grad[0, 0] = float("inf")
                probe.after_backward(loss)
                optimizer.step()
            probe.after_step()
            if step % 100 == 0:
                print("step %d  loss %.4f" % (step, loss.item()))


if __name__ == "__main__":
    main()
