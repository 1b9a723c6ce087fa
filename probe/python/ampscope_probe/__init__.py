"""AmpScope's PyTorch probe: records what mixed-precision training does to the gradients.

    probe = Probe(model, optimizer=opt, scaler=scaler, every=10, out="run.jsonl")
    ...
    scaler.scale(loss).backward()
    probe.after_backward(loss)
    scaler.step(opt); scaler.update()
    probe.after_step()

The stream (a JSON Lines file or a TCP server) is read by `ampscope` (File > Follow Run) and
`ampscope-cli follow`. Needs torch only.
"""
__version__ = "0.3.0"

from .probe import Probe  # noqa: E402

__all__ = ["Probe", "__version__"]
