"""vp.compile: vp-cc's passes on an ONNX file or a torch.nn.Module."""
import json
import os
import shutil
import tempfile
import weakref

import numpy as np

from . import _core
from ._figures import param_sets


def _as_array(x):
    """numpy arrays as they are; torch tensors through .numpy(); float32."""
    if hasattr(x, "detach") and hasattr(x, "numpy"):
        x = x.detach().cpu().numpy()
    return np.ascontiguousarray(np.asarray(x, dtype=np.float32))


def _calibration(calib):
    """calib -> (files, sets): a path or a list of paths are vp-cc's --calib
    files; an array [N, ...] is N inputs of one (the first axis kept, size 1
    each); a list holds one input per entry (an array, or a tuple of arrays
    for a model with several inputs)."""
    if calib is None:
        return [], []
    if isinstance(calib, (str, os.PathLike)):
        return [os.fspath(calib)], []
    if isinstance(calib, np.ndarray) or hasattr(calib, "detach"):
        a = _as_array(calib)
        if a.ndim == 0:
            raise TypeError("calib: a scalar; expected inputs in the model's shape, stacked on the first axis")
        return [], [[a[i:i + 1]] for i in range(a.shape[0])]
    files, sets = [], []
    for item in calib:
        if isinstance(item, (str, os.PathLike)):
            files.append(os.fspath(item))
        elif isinstance(item, (tuple, list)):
            sets.append([_as_array(t) for t in item])
        else:
            sets.append([_as_array(item)])
    return files, sets


def _export_torch(module, example, path, opset):
    import torch  # only for a torch.nn.Module

    was_training = module.training
    module.eval()
    try:
        with torch.no_grad():
            torch.onnx.export(module, torch.from_numpy(example), path, opset_version=opset,
                              input_names=["input"], output_names=["output"], do_constant_folding=True)
    finally:
        module.train(was_training)


def _is_torch_module(model):
    try:
        import torch
    except ImportError:
        return False
    return isinstance(model, torch.nn.Module)


class Compiled:
    """A model compiled for the chip: the program (.asm), its weight image
    (.xbar) and io.json, with what vp-cc reported about them."""

    def __init__(self, result, chip, sets, workdir=None):
        if workdir is not None:  # a temporary folder lives as long as the model
            weakref.finalize(self, shutil.rmtree, workdir, True)
        self.path = result["asm"]
        self.xbar_path = result["xbar"]
        self.io_json_path = result["io_json"]
        self.chip = chip
        self.sets = list(sets)
        self.cores = result["cores"]
        self.instructions = result["instructions"]
        self.image_bytes = result["image_bytes"]
        self.crossbars = result["crossbars"]
        self.chip_crossbars = result["chip_crossbars"]
        self.calibration_sets = result["calibration_sets"]
        self.report = result["report"]
        self.summary = result["summary"]
        with open(self.io_json_path) as f:
            self.io = json.load(f)
        self._program = None

    @property
    def size_bytes(self):
        """Bytes of the program and its weight image on disk."""
        return os.path.getsize(self.path) + os.path.getsize(self.xbar_path)

    @property
    def program(self):
        """The assembled program (assembled once, on first use)."""
        if self._program is None:
            self._program = _core.load_program(self.path)
        return self._program

    def __repr__(self):
        return "<Compiled %s: %d crossbars of %d, %d CUs, %d instructions, %d-byte weight image>" % (
            self.path, self.crossbars, self.chip_crossbars, self.cores, self.instructions, self.image_bytes)


def compile(model, calib=None, chip="sidra-y1", out=None, *, params=None, percentile=100.0, threads=0, batch=1,
            replicate="auto", lanes="auto", placement="pipeline", tests=(), test_dir="", opset=13,
            example_input=None, **kwparams):
    """Compiles `model` (an ONNX path, or a torch.nn.Module exported to ONNX on
    the way) for `chip` as vp-cc does and returns a Compiled.

    calib: calibration inputs (see docs/python.md; None: vp-cc's default).
    out: the program's path (MODEL.asm, with .xbar and .io.json beside it);
    None writes into a temporary folder that lives as long as the result.
    Chip parameters: params={"xbar.rows": 128} or xbar__rows=128.
    """
    sets = param_sets(params, kwparams)
    files, arrays = _calibration(calib)
    workdir = None
    if out is None and _is_torch_module(model) and example_input is None and not arrays:
        raise TypeError("a torch.nn.Module needs calib arrays or example_input= to be exported to ONNX")
    if out is None:
        workdir = tempfile.mkdtemp(prefix="sidra-vp-")
        out = os.path.join(workdir, "model.asm")
    out = os.fspath(out)
    if _is_torch_module(model):
        if example_input is None:
            if not arrays:
                raise TypeError("a torch.nn.Module needs calib arrays or example_input= to be exported to ONNX")
            example_input = arrays[0][0]
        onnx_path = os.path.splitext(out)[0] + ".onnx"
        _export_torch(model, _as_array(example_input), onnx_path, opset)
        model = onnx_path
    try:
        result = _core.compile(os.fspath(model), out, chip, sets, files, arrays, float(percentile), int(threads),
                               int(batch), str(replicate), str(lanes), placement, [os.fspath(t) for t in tests],
                               os.fspath(test_dir))
    except BaseException:
        if workdir is not None:
            shutil.rmtree(workdir, True)
        raise
    return Compiled(result, chip, sets, workdir)
