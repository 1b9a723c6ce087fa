"""The Probe: hooks into a PyTorch AMP training loop and writes one record per instrumented step."""
import fnmatch
import math
import os
import secrets
import sys
import time

import torch

from . import histogram, records, rounding_cost, transport

_RANKS = ("merged", "per-rank")

# Layout of one tensor's row in the packed tensor: the scaled histogram, the unscaled histogram,
# the sum of squares of the unscaled gradient (parameters' gradients only), the element count (0: no
# gradient, or the tensor was not seen), and with rounding_cost=True the rounding_cost slots. The rows of
# the parameters' gradients come first, then one row per activation, activation gradient and weight.
_H = histogram.HISTOGRAM_SLOTS
_SUMSQ = 2 * _H
_NUMEL = 2 * _H + 1
_COST = 2 * _H + 2
# After the rows: loss, skipped (0/1), and how many ranks contributed.
_TAIL = 3


def _float32(value):
    return float(torch.tensor(value, dtype=torch.float64).to(torch.float32))


def _default_name():
    stem = os.path.splitext(os.path.basename(sys.argv[0] if sys.argv and sys.argv[0] else ""))[0]
    return stem if stem and not stem.startswith("-") else "python"


def _device_text(device):
    if device.type == "cuda" and device.index is None:
        return "cuda:%d" % torch.cuda.current_device()
    return str(device)


def _distributed():
    """(rank, world size, backend) when torch.distributed is initialised, else None."""
    dist = getattr(torch, "distributed", None)
    if dist is None or not dist.is_available() or not dist.is_initialized():
        return None
    return dist.get_rank(), dist.get_world_size(), str(dist.get_backend())


class Probe:
    """Records gradients' exponent histograms, loss scale and skipped steps of a training loop.

    Call after_backward(loss) after the backward pass (before unscale_, clipping or the optimizer
    step) and after_step() after the optimizer step (after scaler.update()). Steps 1, 1+every, ...
    are instrumented, and so is every step an enabled GradScaler skipped; other steps cost nothing.
    """

    def __init__(self, model, optimizer=None, scaler=None, every=10, out=None, mode=None, name=None,
                 ranks="merged", history=10000, overwrite=False, queue_lines=1024, activations=None,
                 activations_every=None, weights=False, rounding_cost=False):
        if not isinstance(model, torch.nn.Module):
            raise ValueError("model: expected a torch.nn.Module, got %s" % type(model).__name__)
        if isinstance(every, bool) or not isinstance(every, int) or every < 1:
            raise ValueError("every: expected an integer >= 1, got %r" % (every,))
        if mode is not None and mode not in records.MODES:
            raise ValueError("mode: %r is not one of %s" % (mode, ", ".join(records.MODES)))
        if ranks not in _RANKS:
            raise ValueError("ranks: expected \"merged\" or \"per-rank\", got %r" % (ranks,))
        if isinstance(history, bool) or not isinstance(history, int) or history < 0:
            raise ValueError("history: expected an integer >= 0, got %r" % (history,))
        if isinstance(queue_lines, bool) or not isinstance(queue_lines, int) or queue_lines < 1:
            raise ValueError("queue_lines: expected an integer >= 1, got %r" % (queue_lines,))
        if name is not None and not isinstance(name, str):
            raise ValueError("name: expected a string, got %r" % (name,))
        if optimizer is not None and not hasattr(optimizer, "param_groups"):
            raise ValueError("optimizer: expected a torch.optim.Optimizer")
        if scaler is not None and not (hasattr(scaler, "get_scale") and hasattr(scaler, "is_enabled")):
            raise ValueError("scaler: expected a GradScaler (get_scale, is_enabled)")
        if isinstance(activations, str):
            activations = [activations]
        if activations is not None:
            activations = list(activations)
            if not activations or not all(isinstance(p, str) and p for p in activations):
                raise ValueError("activations: expected a module name pattern or a list of them, got %r"
                                 % (activations,))
        if activations_every is None:
            activations_every = every
        if (isinstance(activations_every, bool) or not isinstance(activations_every, int)
                or activations_every < 1):
            raise ValueError("activations_every: expected an integer >= 1, got %r" % (activations_every,))
        if not isinstance(weights, bool):
            raise ValueError("weights: expected True or False, got %r" % (weights,))
        if not isinstance(rounding_cost, bool):
            raise ValueError("rounding_cost: expected True or False, got %r" % (rounding_cost,))
        target = transport.parse_out(out) if out is not None else None
        if target is None:
            raise ValueError("out: give a file path or tcp://HOST:PORT")

        self._model = model
        self._optimizer = optimizer
        self._scaler = scaler
        self._every = every
        self._parameters = list(model.named_parameters())
        if not self._parameters:
            raise ValueError("model: it has no parameters")
        self._cost = rounding_cost
        self._row = _COST + (_cost_slots() if rounding_cost else 0)
        self._modules = []
        if activations is not None:
            self._modules = [(n, m) for n, m in model.named_modules()
                             if n and any(fnmatch.fnmatchcase(n, p) for p in activations)]
            if not self._modules:
                raise ValueError("activations: no module name matches %s (names look like %s)" % (
                    ", ".join(activations), ", ".join(n for n, _ in list(model.named_modules())[1:4])))
        self._activations_every = activations_every
        self._extra_keys = []
        for n, _ in self._modules:
            self._extra_keys += [("activation", n), ("activation-gradient", n)]
        if weights:
            self._extra_keys += [("weight", n) for n, _ in self._parameters]
        self._extra_index = {key: i for i, key in enumerate(self._extra_keys)}
        self._weights = weights
        self._extra = None       # the extra rows of an armed step, filled by the hooks
        self._hooks = []         # forward hook handles while armed
        self._armed_inv_scale = 1.0
        first = self._parameters[0][1]
        self._device = first.device
        if mode is None:
            mode = "fp16-amp-scaled" if self._scaler_enabled() else self._infer_mode(first.dtype)
        self._mode = mode
        self._target_format = "bf16" if self._mode.startswith("bf16") else "fp16"

        dist = _distributed()
        if dist is None:
            self._rank, self._world, backend, ranks_text = 0, 1, None, "single"
        else:
            self._rank, self._world, backend = dist
            ranks_text = ranks
        self._merged = dist is not None and ranks == "merged"
        # Ranks that each hold a different part of every parameter (FSDP's shard group), 1 without FSDP:
        # the merged gradient norm divides the summed squares by the replicas only (see _record).
        self._shard_ranks = _fsdp_shard_ranks(model) if dist is not None else 1
        self._nccl = backend == "nccl"
        self.run_id = secrets.token_hex(8)
        self.name = name or _default_name()
        self._header = {
            "format": records.FORMAT, "version": records.VERSION,
            "app": "ampscope_probe " + _version(), "source": "probe",
            "run": self.name, "run-id": self.run_id,
            "rank": 0 if self._merged else self._rank, "world-size": self._world, "ranks": ranks_text,
            "device": _device_text(self._device), "torch": str(torch.__version__), "every": every,
            "parameters": [n for n, _ in self._parameters],
        }
        header_line = records.line(self._header)

        self._sink = None
        self.address = None
        if not self._merged or self._rank == 0:
            if target[0] == "file":
                path = target[1]
                if dist is not None and ranks == "per-rank":
                    path = transport.per_rank_file(path, self._rank)
                self._sink = transport.FileSink(path, header_line, overwrite=overwrite)
            else:
                port = target[2]
                if dist is not None and ranks == "per-rank" and port != 0:
                    port += self._rank
                self._sink = transport.TcpSink(target[1], port, header_line, history=history,
                                               queue_lines=queue_lines)
                self.address = self._sink.address

        self._steps = 0          # after_step calls so far
        self._seq = 0            # lines written (records only; the header has no seq)
        self._pending = None     # (packed rows, scale, inv_scale) of the step whose backward was seen
        self._loss = None
        self._scale_before = None
        self._scale_before_value = None
        self._states = None
        self._optimizer_steps = 0
        self._optimizer_steps_at_backward = 0
        self._hook = None
        self._pre_hook = None
        self._grads_still_scaled = False
        # torch >= 2.0: an optimizer step hook tells whether GradScaler ran optimizer.step without
        # reading anything from the device; older torch reads found_inf or compares the scale instead.
        # Not for optimizers that take the scaler's found_inf themselves (fused=True ones): GradScaler
        # calls their step() on skipped steps too, and does not unscale their gradients in place (it hands
        # them the scale as optimizer.grad_scale, unless unscale_ already ran). A step pre-hook notes
        # that, so a skipped step's gradients are read as still scaled.
        amp_step = optimizer is not None and getattr(optimizer, "_step_supports_amp_scaling", False)
        if amp_step:
            if hasattr(optimizer, "register_step_pre_hook"):
                self._pre_hook = optimizer.register_step_pre_hook(self._note_grad_scale)
        elif optimizer is not None and hasattr(optimizer, "register_step_post_hook"):
            self._hook = optimizer.register_step_post_hook(self._count_optimizer_step)
        self._last_record_time = None
        self._last_record_step = 0
        self._reduced = None     # the last all-reduced tensor (see _record)
        self._closed = False
        self._arm(1)

    # ------------------------------------------------------------------------------------------
    @property
    def dropped(self):
        """Lines the TCP server dropped for viewers that did not keep up (0 for a file)."""
        return self._sink.dropped if self._sink is not None else 0

    @property
    def step(self):
        """Optimizer steps seen so far (after_step calls)."""
        return self._steps

    @property
    def instrumenting(self):
        """Whether the step whose backward pass was last seen is an instrumented one."""
        return self._pending is not None

    @property
    def inv_scale(self):
        """The float32 multiplier of the current instrumented step's unscaled histogram."""
        return self._pending[2] if self._pending is not None else None

    @property
    def destination(self):
        """Where this process writes: a file path, tcp://host:port, or None (a merged non-zero rank)."""
        return self._sink.describe() if self._sink is not None else None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def close(self):
        if self._closed:
            return
        self._closed = True
        for hook in (self._hook, self._pre_hook):
            if hook is not None:
                hook.remove()
        self._hook = self._pre_hook = None
        self._disarm()
        if self._sink is not None:
            self._sink.close()

    # ------------------------------------------------------------------------------------------
    def after_backward(self, loss=None):
        """Call after the backward pass, before unscale_, clipping and the optimizer step."""
        if self._closed:
            raise RuntimeError("after_backward: the probe is closed")
        step = self._steps + 1
        armed = self._extra is not None
        self._disarm_hooks()
        planned = (step - 1) % self._every == 0 or armed
        if isinstance(loss, torch.Tensor):
            self._loss = loss.detach()
        else:
            self._loss = float("nan") if loss is None else float(loss)
        self._optimizer_steps_at_backward = self._optimizer_steps
        self._grads_still_scaled = False
        self._scale_before = None
        self._scale_before_value = None
        self._states = None
        scale = 1.0
        if self._scaler_enabled():
            # GradScaler internals, read only when present: its scale tensor (copied on the device, so
            # nothing waits) and the dict of per-optimizer state that step() fills and update() replaces
            # (holding it keeps this step's found_inf per device readable after update()).
            current = getattr(self._scaler, "_scale", None)
            if isinstance(current, torch.Tensor):
                self._scale_before = current.detach().clone()
            self._states = getattr(self._scaler, "_per_optimizer_states", None)
            if planned or (self._hook is None and self._scale_before is None):
                scale = float(self._scaler.get_scale())
                self._scale_before_value = scale
        if planned:
            inv_scale = _float32(1.0 / scale)
            self._pending = (self._rows(scaled=True, scale=scale, inv_scale=inv_scale), scale, inv_scale)
        else:
            self._pending = None
            self._extra = None

    def after_step(self):
        """Call after the optimizer step (after scaler.update() with a GradScaler)."""
        if self._closed:
            raise RuntimeError("after_step: the probe is closed")
        self._steps += 1
        try:
            self._after_step(self._steps)
        finally:
            self._disarm()
            self._arm(self._steps + 1)

    def _after_step(self, step):
        now = time.perf_counter()
        if self._last_record_time is None:
            self._last_record_time = now
            step_time_ms = 0.0
        else:
            step_time_ms = None
        skipped = self._skipped()
        pending = self._pending
        self._pending = None
        if pending is None and not skipped:
            return
        if pending is None:
            # A skipped step that was not planned: GradScaler.step has already unscaled the gradients in
            # place, so the unscaled histogram is exact and the scaled one is the gradient times the scale;
            # a fused optimizer's gradients are still as backward left them (see _note_grad_scale).
            scale = self._scale_used()
            inv_scale = _float32(1.0 / scale)
            rows = self._rows(scaled=self._grads_still_scaled, scale=scale, inv_scale=inv_scale)
        else:
            rows, scale, inv_scale = pending
        if step_time_ms is None:
            step_time_ms = (now - self._last_record_time) * 1000.0 / (step - self._last_record_step)
        self._last_record_time = now
        self._last_record_step = step
        per_device = None if self._merged else self._found_inf_per_device()
        if per_device and not skipped and self._hook is None:
            skipped = any(per_device.values())
        self._record(step, rows, scale, skipped, step_time_ms, per_device)

    # ------------------------------------------------------------------------------------------
    @staticmethod
    def _infer_mode(dtype):
        if dtype == torch.float16:
            return "fp16-pure"
        if dtype == torch.bfloat16:
            return "bf16-pure"
        return "fp32"

    def _scaler_enabled(self):
        return self._scaler is not None and bool(self._scaler.is_enabled())

    def _count_optimizer_step(self, *args):
        self._optimizer_steps += 1

    def _note_grad_scale(self, optimizer, *args):
        # torch >= 2.0 GradScaler.step sets grad_scale (a tensor) on an optimizer that unscales inside its
        # own step, and None (or leaves it unset) when unscale_ already unscaled the gradients in place.
        self._grads_still_scaled = getattr(optimizer, "grad_scale", None) is not None

    def _skipped(self):
        if not self._scaler_enabled():
            return False
        if self._hook is not None:
            return self._optimizer_steps == self._optimizer_steps_at_backward
        found = self._found_inf_per_device()
        if found:
            return any(found.values())
        if self._scale_before is not None:
            current = getattr(self._scaler, "_scale", None)
            if isinstance(current, torch.Tensor):
                return bool((current < self._scale_before).item())
        if self._scale_before_value is not None:
            return float(self._scaler.get_scale()) < self._scale_before_value
        return False

    def _scale_used(self):
        if self._scale_before_value is not None:
            return self._scale_before_value
        if self._scale_before is not None:
            return float(self._scale_before.item())
        # The scale was not kept: update() multiplied it by the backoff factor on this skipped step.
        return float(self._scaler.get_scale()) / float(self._scaler.get_backoff_factor())

    def _found_inf_per_device(self):
        """GradScaler's found_inf per device for this step's optimizer, when its state exposes it."""
        if self._states is None or self._optimizer is None:
            return None
        try:
            state = self._states.get(id(self._optimizer))
            found = state.get("found_inf_per_device") if state is not None else None
            if not found:
                return None
            return {str(device): bool(value.item()) for device, value in found.items()}
        except (AttributeError, TypeError, RuntimeError):
            return None

    def _rows(self, scaled, scale, inv_scale):
        """One row per parameter (layout above) and one per extra tensor, stacked on the parameters' device;
        zeros without a grad."""
        rows = []
        with torch.no_grad():
            for _, parameter in self._parameters:
                grad = parameter.grad
                if grad is None:
                    rows.append(torch.zeros(self._row, dtype=torch.float64, device=parameter.device))
                    continue
                if grad.is_sparse:
                    grad = grad.to_dense()
                x = histogram.as_float32(grad)
                if scaled:
                    unscaled = x * inv_scale if inv_scale != 1.0 else x
                    seen = x
                else:
                    unscaled = x
                    seen = x * _float32(scale) if scale != 1.0 else x
                wide = unscaled.double()
                rows.append(self._row_of(seen, unscaled, torch.sum(wide * wide)))
            extra = self._extra
            if extra is None and self._extra_keys:
                extra = torch.zeros(len(self._extra_keys), self._row, dtype=torch.float64,
                                    device=self._device)
            if self._weights and self._extra is not None:
                for name, parameter in self._parameters:
                    x = histogram.as_float32(parameter)
                    extra[self._extra_index[("weight", name)]] += self._row_of(x, x, None).to(extra.device)
        self._extra = None
        devices = {row.device for row in rows}
        if extra is not None:
            devices.add(extra.device)
        if len(devices) > 1:
            rows = [row.cpu() for row in rows]
            extra = extra.cpu() if extra is not None else None
        stacked = torch.stack(rows)
        return torch.cat((stacked, extra)) if extra is not None else stacked

    def _row_of(self, seen, unscaled, sumsq):
        """One row (the layout above) of a 1-D float32 tensor as seen and unscaled."""
        counts_seen = histogram.histogram_counts(seen)
        counts_unscaled = (histogram.histogram_counts(unscaled) if unscaled is not seen else counts_seen)
        if sumsq is None:
            sumsq = torch.zeros((), dtype=torch.float64, device=seen.device)
        pieces = [counts_seen.double(), counts_unscaled.double(),
                  torch.stack((sumsq, torch.tensor(float(seen.numel()), dtype=torch.float64,
                                                   device=seen.device)))]
        if self._cost:
            pieces.append(rounding_cost.cost_counts(seen))
        return torch.cat(pieces)

    # -- activations, their gradients and weights (armed on the steps that record them) --------------
    def _arm(self, step):
        """Hooks the matched modules for `step` when it records activations (or weights)."""
        due = (step - 1) % self._activations_every == 0 and bool(self._modules)
        due = due or (self._weights and (step - 1) % self._every == 0)
        if not due or self._closed:
            return
        self._extra = torch.zeros(len(self._extra_keys), self._row, dtype=torch.float64, device=self._device)
        self._armed_inv_scale = 1.0
        if self._modules and self._scaler_enabled():
            # The scale the coming backward uses: one device read on an armed step only.
            self._armed_inv_scale = _float32(1.0 / float(self._scaler.get_scale()))
        if (step - 1) % self._activations_every == 0:
            for name, module in self._modules:
                self._hooks.append(module.register_forward_hook(self._forward_hook(name)))

    def _disarm_hooks(self):
        for handle in self._hooks:
            handle.remove()
        self._hooks = []

    def _disarm(self):
        self._disarm_hooks()
        self._extra = None

    def _forward_hook(self, name):
        def hook(module, inputs, output):
            tensor = _first_tensor(output)
            if tensor is None or self._extra is None:
                return None
            self._add_extra(("activation", name), tensor, 1.0)
            if tensor.requires_grad:
                # The gradient arriving at the output (grad_output), through a tensor hook: a module
                # full backward hook would wrap the forward and fails when an in-place op follows.
                extra = self._extra
                inv = self._armed_inv_scale

                def grad_hook(grad):
                    if self._extra is extra:
                        self._add_extra(("activation-gradient", name), grad, inv)
                    return None
                tensor.register_hook(grad_hook)
            return None
        return hook

    def _add_extra(self, key, tensor, inv_scale):
        with torch.no_grad():
            x = histogram.as_float32(tensor)
            unscaled = x * inv_scale if inv_scale != 1.0 else x
            row = self._row_of(x, unscaled, None)
            index = self._extra_index[key]
            self._extra[index] += row.to(self._extra.device)

    def _record(self, step, rows, scale, skipped, step_time_ms, per_device):
        loss = self._loss
        if isinstance(loss, torch.Tensor) and loss.numel() > 0:
            loss = loss.reshape(-1)[:1].to(torch.float64)
        else:
            loss = torch.tensor([loss if isinstance(loss, float) else float("nan")], dtype=torch.float64)
        tail = torch.cat((loss.to(rows.device), torch.tensor([1.0 if skipped else 0.0, 1.0],
                                                             dtype=torch.float64, device=rows.device)))
        packed = torch.cat((rows.reshape(-1), tail))
        if self._merged and self._world > 1:
            import torch.distributed as dist  # only reached when it is initialised
            if self._nccl:
                packed = packed.to(torch.device("cuda", torch.cuda.current_device()))
            else:
                packed = packed.cpu()
            dist.all_reduce(packed, op=dist.ReduceOp.SUM)
            # Kept for the probe's lifetime. Otherwise, when the backend's worker thread drops the last
            # reference after this function has returned, freeing the tensor takes the GIL in that thread,
            # and destroy_process_group(), which waits for the thread while holding the GIL, never
            # returns: seen with torch 2.6's gloo on a rank that writes nothing (half of the two-process
            # merge runs hung there, a gloo thread waiting on the GIL).
            self._reduced = packed
            if self._rank != 0:
                self._reset_peak()
                return
        values = packed.cpu().tolist()  # the one device-to-host copy of this record
        if self._sink is None:
            return
        contributors = values[-1]
        loss_value = values[-3] / contributors
        skipped = values[-2] > 0
        tensors = []
        nonfinite = []
        sumsq = 0.0
        width = self._row
        for index, (name, _) in enumerate(self._parameters):
            row = values[index * width:(index + 1) * width]
            numel = int(row[_NUMEL])
            if numel == 0:
                continue
            seen_counts = row[:_H]
            unscaled_counts = row[_H:2 * _H]
            sumsq += row[_SUMSQ]
            if histogram.nonfinite(seen_counts) or histogram.nonfinite(unscaled_counts):
                nonfinite.append(name)
            tensors.append(self._tensor(name, "gradient", row))
        base = len(self._parameters)
        for index, (role, name) in enumerate(self._extra_keys):
            row = values[(base + index) * width:(base + index + 1) * width]
            if int(row[_NUMEL]) > 0:
                tensors.append(self._tensor(name, role, row))
        # Merged: the summed squares over the replicas (DDP: every rank holds the whole, equal gradient, so
        # this is each rank's norm; FSDP: each rank holds a shard, so this is the norm of the whole
        # gradient); inf and NaN stay as they are.
        replicas = max(contributors / self._shard_ranks, 1.0) if self._merged else 1.0
        norm = math.sqrt(sumsq / replicas) if sumsq == sumsq else float("nan")
        current, peak = self._memory()
        record = {
            "mode": self._mode, "step": step, "loss": records.number(loss_value),
            "loss-scale": records.number(scale), "skipped": skipped, "found-inf": bool(nonfinite),
            "grad-norm-before-clip": records.number(norm), "grad-norm-after-clip": records.number(norm),
            "clip-norm-seen": records.number(norm), "lr": records.number(self._lr()),
            "step-time-ms": records.number(step_time_ms), "current-bytes": current, "peak-bytes": peak,
            "diverged": False, "instrumented": True, "tensors": tensors,
        }
        self._seq += 1
        record["seq"] = self._seq
        record["wall-time"] = time.time()
        if nonfinite:
            record["nonfinite"] = nonfinite
        if per_device:
            record["found-inf-per-device"] = per_device
        self._sink.write(records.line(record))

    def _tensor(self, name, role, row):
        tensor = {
            "name": name, "is-parameter": role == "gradient", "role": role, "numel": int(row[_NUMEL]),
            "scaled": histogram.decode(row[:_H], self._target_format),
            "unscaled": histogram.decode(row[_H:2 * _H], self._target_format),
        }
        if self._cost:
            tensor["rounding-cost"] = rounding_cost.decode(row[_COST:], records.number)
        return tensor

    def _lr(self):
        if self._optimizer is None or not self._optimizer.param_groups:
            return float("nan")
        lr = self._optimizer.param_groups[0].get("lr", float("nan"))
        return float(lr.item()) if isinstance(lr, torch.Tensor) else float(lr)

    def _memory(self):
        if self._device.type != "cuda" or not torch.cuda.is_available():
            return 0, 0
        current = int(torch.cuda.memory_allocated(self._device))
        peak = int(torch.cuda.max_memory_allocated(self._device))
        self._reset_peak()
        return current, peak

    def _reset_peak(self):
        if self._device.type == "cuda" and torch.cuda.is_available():
            torch.cuda.reset_peak_memory_stats(self._device)


def _fsdp_shard_ranks(model):
    """How many ranks share out each parameter: the size of the process group of the model's outermost
    FullyShardedDataParallel (FSDP1) module unless it is NO_SHARD; 1 for DDP or a plain model. HYBRID_SHARD
    shards within that group and replicates across groups. Looked up only when the script has imported
    torch.distributed.fsdp (a model wrapped in FSDP has): importing it is not free, and on torch 1.13 with
    Python 3.11 (Debian 12) it raises ValueError (a dataclass with a mutable default)."""
    fsdp = sys.modules.get("torch.distributed.fsdp")
    FullyShardedDataParallel = getattr(fsdp, "FullyShardedDataParallel", None)
    ShardingStrategy = getattr(fsdp, "ShardingStrategy", None)
    if FullyShardedDataParallel is None:
        return 1
    for module in model.modules():
        if isinstance(module, FullyShardedDataParallel):
            no_shard = getattr(ShardingStrategy, "NO_SHARD", None)
            if no_shard is not None and getattr(module, "sharding_strategy", None) == no_shard:
                return 1
            group = getattr(module, "process_group", None)
            try:
                return max(int(group.size()), 1) if group is not None else 1
            except (AttributeError, RuntimeError):
                return 1
    return 1


def _cost_slots():
    return rounding_cost.COST_SLOTS


def _first_tensor(output):
    """A module's output tensor: the output itself, or the first tensor of a tuple or list."""
    if isinstance(output, torch.Tensor):
        return output
    if isinstance(output, (tuple, list)):
        for item in output:
            if isinstance(item, torch.Tensor):
                return item
    return None


def _version():
    from . import __version__
    return __version__
