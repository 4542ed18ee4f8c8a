"""Sidra VP from Python: compile a model for the chip, deploy it, infer.

    import sidra_vp as vp
    compiled = vp.compile("model.onnx", calib=images, chip="sidra-y1")
    chip = vp.Chip("sidra-y1")
    chip.deploy(compiled)
    y = chip.infer(x)

vp.compile runs vp-cc's passes and vp.Chip runs vp-run's platform, both as
libraries in this process (each chip run in a child process: SystemC builds
one simulation per process). Errors are sidra_vp.Error exceptions with the
tools' own messages. docs/python.md has the whole API.
"""
import os as _os

from . import _core, _paths
from ._core import CompileError, ConfigError, Error, InputError, RunError
from ._compile import Compiled, compile
from ._chip import Chip, DeployReport, RunResult

# The presets installed beside this package (or the source tree's).
if _os.path.isdir(_paths.CONFIGS):
    _core.add_config_dir(_paths.CONFIGS)

FIRMWARE = _paths.FIRMWARE


def presets():
    """Names of the chip presets (configs/): sidra-y1, small, ..."""
    return list(_core.preset_names())


__all__ = ["compile", "Compiled", "Chip", "DeployReport", "RunResult", "Error", "CompileError", "ConfigError",
           "InputError", "RunError", "presets", "FIRMWARE"]
