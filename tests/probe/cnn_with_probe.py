"""A small CNN (Conv2d, BatchNorm2d, ReLU, MaxPool2d, Linear) trained on synthetic images with the probe's
activations on: a PyTorch script that is not the example's transformer (issue 45 item 1's evidence).

The data: 3 x 16 x 16 images of noise with one of four patterns added (a horizontal bar, a vertical bar,
a bright top-left quadrant, a checkerboard), the class being the pattern; the CNN learns it in a few
dozen steps. Every module of `features` and `classifier` is probed (activations and the gradients
arriving at them), with weights and rounding costs. The tensors of one module are kept by the script's
own hooks so that test_cnn_activations.py can check the probe's record against them.

    PYTHONPATH=probe/python python3 tests/probe/cnn_with_probe.py --out cnn.jsonl [--steps 40] [--bf16]
"""
import argparse

import torch
import torch.nn.functional as F

from ampscope_probe import Probe

CLASSES = 4


class SmallCNN(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.features = torch.nn.Sequential(
            torch.nn.Conv2d(3, 16, 3, padding=1), torch.nn.BatchNorm2d(16), torch.nn.ReLU(inplace=True),
            torch.nn.MaxPool2d(2),
            torch.nn.Conv2d(16, 32, 3, padding=1), torch.nn.BatchNorm2d(32), torch.nn.ReLU(inplace=True),
            torch.nn.AdaptiveAvgPool2d(2))
        self.classifier = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(128, 64),
                                              torch.nn.ReLU(), torch.nn.Linear(64, CLASSES))

    def forward(self, x):
        return self.classifier(self.features(x))


def batch(generator, size=32):
    labels = torch.randint(0, CLASSES, (size,), generator=generator)
    images = torch.randn(size, 3, 16, 16, generator=generator) * 0.5
    patterns = torch.zeros(CLASSES, 3, 16, 16)
    patterns[0, :, 7:9, :] = 2.0
    patterns[1, :, :, 7:9] = 2.0
    patterns[2, :, :8, :8] = 1.5
    patterns[3] = ((torch.arange(16).view(-1, 1) + torch.arange(16)) % 2).float() * 1.5
    return images + patterns[labels], labels


def train(out, steps=40, every=5, bf16=False, keep="features.0", overwrite=False):
    """Trains SmallCNN for `steps` steps with the probe writing to `out`. Returns (losses, kept): kept maps
    each step that recorded activations to the output of module `keep` and the gradient arriving at it,
    as this script's own hooks saw them (float32 clones)."""
    torch.manual_seed(0)
    model = SmallCNN()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    generator = torch.Generator().manual_seed(1)
    probe = Probe(model, optimizer=optimizer, every=every, out=out, overwrite=overwrite, name="cnn",
                  mode="bf16-amp" if bf16 else None, activations=["features.*", "classifier.*"],
                  weights=True, rounding_cost=True)
    seen = {}

    def hook(module, inputs, output):
        seen["activation"] = output.detach().float().clone()
        output.register_hook(lambda g: seen.__setitem__("activation-gradient", g.detach().float().clone()))
    dict(model.named_modules())[keep].register_forward_hook(hook)
    losses, kept = [], {}
    for step in range(1, steps + 1):
        seen.clear()
        images, labels = batch(generator)
        optimizer.zero_grad()
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
            loss = F.cross_entropy(model(images), labels)
        loss.backward()
        if (step - 1) % every == 0:
            kept[step] = dict(seen)
        probe.after_backward(loss)
        optimizer.step()
        probe.after_step()
        losses.append(float(loss))
    probe.close()
    return losses, kept


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--every", type=int, default=5)
    parser.add_argument("--bf16", action="store_true", help="bf16 autocast")
    args = parser.parse_args()
    losses, _ = train(args.out, args.steps, args.every, args.bf16, overwrite=True)
    print("loss %.4f -> %.4f over %d steps; stream %s" % (losses[0], losses[-1], len(losses), args.out))


if __name__ == "__main__":
    main()
