"""vp.Chip: vp-run's platform on one chip configuration."""
import json
import os

import numpy as np

from . import _core, _paths
from ._compile import Compiled
from ._figures import chip_figures, param_sets


class RunResult:
    """One run: the outputs as arrays, vp-run's statistics and the chip's
    figures (cycles and energy per inference, deployment)."""

    def __init__(self, raw):
        self.status = raw["status"]
        self.cycles = raw["cycles"]
        self.outputs = list(raw["outputs"])
        self.stats = json.loads(raw["stats"]) if raw["stats"] else {}
        self.figures = chip_figures(self.stats)

    @property
    def output(self):
        """The first output."""
        return self.outputs[0] if self.outputs else None

    cycles_per_inference = property(lambda self: self.figures["inference_cycles"])
    energy_per_inference_uj = property(lambda self: self.figures["energy_per_inference_uj"])
    inferences = property(lambda self: self.figures["inferences"])
    # Cycles per image once a stream is full (programs compiled with
    # batch=N of 4 or more); 0 otherwise.
    stream_period_cycles = property(lambda self: self.figures["stream_period_cycles"])

    def __repr__(self):
        return "<RunResult %s: %d cycles, %s cycles and %.3f uJ per inference>" % (
            self.status, self.cycles, self.cycles_per_inference, self.energy_per_inference_uj)


class DeployReport:
    """What deploying a model cost: the firmware's program-and-verify (ISPP)
    of every cell the model uses."""

    def __init__(self, run):
        f = run.figures
        self.cycles = f["deploy_cycles"]
        self.us = f["deploy_us"]
        self.pulses = f["pulses"]
        self.failed_cells = f["failed_cells"]
        self.retries = f["retries"]
        self.rows = f["rows_programmed"]
        self.energy_uj = f["deploy_energy_uj"]
        self.crossbars_used = f["crossbars_used"]
        self.run = run

    def __repr__(self):
        return "<DeployReport: %d cycles (%.1f us), %d pulses, %d failed cells, %.3f uJ>" % (
            self.cycles, self.us, self.pulses, self.failed_cells, self.energy_uj)


def _program(model):
    if isinstance(model, Compiled):
        return model.program
    if isinstance(model, _core.Program):
        return model
    return _core.load_program(os.fspath(model))


def _input(x):
    """An input as vp-run takes it: a file name (or FILE@ADDR) or an array."""
    if isinstance(x, (str, os.PathLike)):
        return os.fspath(x)
    if hasattr(x, "detach") and hasattr(x, "numpy"):
        x = x.detach().cpu().numpy()
    a = np.asarray(x)
    if a.dtype == np.float64:
        a = a.astype(np.float32)
    return np.ascontiguousarray(a)


def _batch_of(binding, a):
    """Elements in array `a` for an input binding: 1 for the binding's own
    shape, N for [N, shape...] or for shape with its first axis N times larger
    (float values); bytes / binding bytes for codes."""
    shape = tuple(binding["shape"])
    if a.dtype == np.float32 and binding["scale"] > 0:
        if a.shape == shape or not shape:
            return 1
        if a.ndim == len(shape) + 1 and a.shape[1:] == shape:
            return a.shape[0]
        if a.ndim == len(shape) and a.shape[1:] == shape[1:] and shape[0] and a.shape[0] % shape[0] == 0:
            return a.shape[0] // shape[0]
        return 1
    return max(1, a.nbytes // binding["bytes"]) if binding["bytes"] and a.nbytes % binding["bytes"] == 0 else 1


class Chip:
    """A chip built from a preset (configs/) with parameter overrides, as
    vp-run --chip NAME --set k=v builds it.

        chip = vp.Chip("sidra-y1", seed=7, xbar__read_ns=50)

    Every run is one simulation of the whole chip: the firmware boots,
    deploys the model's weights (ISPP program-and-verify) and infers. The
    chip keeps what deploy() put on it; infer() runs that model again from
    the same configuration and seed, so the cells hold the same levels.
    """

    def __init__(self, chip="sidra-y1", *, config=(), seed=None, firmware=None, params=None, **kwparams):
        self.preset = chip
        self.configs = [os.fspath(c) for c in ([config] if isinstance(config, (str, os.PathLike)) else config)]
        self.sets = param_sets(params, kwparams)
        if seed is not None:
            self.sets.append("device.seed=%d" % int(seed))
        self.firmware = _paths.FIRMWARE if firmware is None else ("" if firmware == "none" else os.fspath(firmware))
        self.model = None
        self.deployment = None
        self.last = None

    def run(self, model, inputs=(), outputs=None, *, trace=None, vcd=None, stats=None, batch=0, deploy=True,
            retries=2, max_cycles=0, check_races=False):
        """Runs `model` (a Compiled, or a program file: .s, .asm, .vpo) as
        vp-run --model does and returns a RunResult.

        inputs: arrays or vp-run --input specs (FILE, FILE@ADDR), in the
        model's .input order. outputs: vp-run --output specs (written as
        vp-run writes them, and returned); None returns every output binding
        as vp-run --output y.npy would hold it, writing nothing.
        trace, vcd, stats: files as vp-run's --trace, --vcd, --stats.
        check_races: as vp-run --check-races (a race raises RunError, exit
        code 7, with vp-run's lines).
        """
        if isinstance(inputs, (str, os.PathLike, np.ndarray)) or hasattr(inputs, "detach"):
            inputs = [inputs]
        raw = _core.run(_program(model), self.preset, self.configs, self.sets, [_input(x) for x in inputs],
                        [] if outputs is None else list(outputs), outputs is None, int(batch), self.firmware,
                        bool(deploy), int(retries), int(max_cycles), os.fspath(trace) if trace else "",
                        os.fspath(vcd) if vcd else "", os.fspath(stats) if stats else "", bool(check_races))
        self.last = RunResult(raw)
        return self.last

    def deploy(self, compiled, retries=2, **run_options):
        """Programs `compiled`'s weights into the crossbars through the
        firmware (ISPP program-and-verify, `retries` extra passes for a row
        with failed cells) and returns the DeployReport."""
        run = self.run(compiled, (), None, deploy=True, retries=retries, **run_options)
        self.model = compiled
        self._retries = retries
        self.deployment = DeployReport(run)
        return self.deployment

    def infer(self, *x, **run_options):
        """The deployed model on input `x`: float32 values in the model's
        shape (quantized as vp-cc --quantize-input does) or the int8 codes;
        a batch stacked on the first axis. Returns the output (a tuple for
        several) as float32 in the model's shape ([N, ...] for a batch);
        chip.last has the cycles and energy per inference."""
        if self.model is None:
            raise _core.Error("no model deployed on this chip; call chip.deploy(compiled) first")
        program = _program(self.model)
        ins = [_input(a) for a in x]
        batch = run_options.pop("batch", 0)
        if not batch and ins and isinstance(ins[0], np.ndarray):
            first = next((b for b in program.bindings if not b["output"]), None)
            if first is not None:
                n = _batch_of(first, ins[0])
                batch = n if n > 1 else 0
        run = self.run(program, ins, None, batch=batch, retries=getattr(self, "_retries", 2), **run_options)
        return run.outputs[0] if len(run.outputs) == 1 else tuple(run.outputs)
