"""The Python API against the tools it wraps: vp.compile writes what vp-cc
writes, a chip run gives the bytes vp-run gives for the same model and
input, and every error is the tool's own message.

    VP_BIN_DIR=build/bin VP_MODELS=build/tests/references/models \
      PYTHONPATH=build/python python3 tests/python/test_api.py
"""
import os
import subprocess
import sys
import tempfile
import unittest

import numpy as np

import sidra_vp as vp

BIN = os.environ["VP_BIN_DIR"]
MODELS = os.environ["VP_MODELS"]
# The MLP runs in a fraction of a second; the tiny CNN (a 4-D input stored
# channels-last) once.
MLP = os.path.join(MODELS, "mlp.onnx")
CALIB = [os.path.join(MODELS, "mlp", "calib_%03d.npy" % i) for i in range(2)]
TEST = os.path.join(MODELS, "mlp", "test_000.npy")
TINY = os.path.join(MODELS, "tiny_cnn.onnx")


def tool(name, *args, expect=0):
    """Runs build/bin/NAME; returns stderr. Fails unless it exits `expect`."""
    r = subprocess.run([os.path.join(BIN, name)] + [str(a) for a in args], capture_output=True, text=True)
    if r.returncode != expect:
        raise AssertionError("%s %s exited %d, expected %d:\n%s" % (name, args, r.returncode, expect, r.stderr))
    return r.stderr


def tool_message(stderr, prefix):
    """The message after the tool's prefix on its first line ("vp-run: ...")."""
    first = stderr.splitlines()[0]
    assert first.startswith(prefix), first
    return first[len(prefix):]


def read(path):
    with open(path, "rb") as f:
        return f.read()


class Session(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="sidra-vp-test-")
        cls.dir = cls.tmp.name
        cls.cli_asm = os.path.join(cls.dir, "cli", "mlp.asm")
        os.makedirs(os.path.dirname(cls.cli_asm))
        tool("vp-cc", MLP, "-o", cls.cli_asm, *sum([["--calib", c] for c in CALIB], []))
        cls.compiled = vp.compile(MLP, calib=CALIB, out=os.path.join(cls.dir, "api", "mlp.asm"))
        cls.chip = vp.Chip("sidra-y1")
        cls.deployment = cls.chip.deploy(cls.compiled)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def path(self, name):
        return os.path.join(self.dir, name)

    def test_compile_writes_what_vp_cc_writes(self):
        c = self.compiled
        for ext in (".asm", ".xbar", ".io.json"):
            api = read(os.path.splitext(c.path)[0] + ext)
            cli = read(os.path.splitext(self.cli_asm)[0] + ext)
            if ext == ".asm":  # the program names its weight image by path
                api = api.replace(os.path.dirname(c.path).encode(), b"DIR")
                cli = cli.replace(os.path.dirname(self.cli_asm).encode(), b"DIR")
            self.assertEqual(api, cli, ext)
        self.assertGreater(c.crossbars, 0)
        self.assertLessEqual(c.crossbars, c.chip_crossbars)
        self.assertEqual(c.size_bytes, os.path.getsize(c.path) + os.path.getsize(c.xbar_path))
        self.assertIn("total:", c.report)
        self.assertEqual(c.io["inputs"][0]["dims"], [1, 64])

    def test_calibration_arrays_equal_calibration_files(self):
        arrays = np.concatenate([np.load(f) for f in CALIB])
        c = vp.compile(MLP, calib=arrays, out=self.path("arrays/mlp.asm"))
        self.assertEqual(c.calibration_sets, 2)
        self.assertEqual(read(c.xbar_path), read(self.compiled.xbar_path))
        self.assertEqual(read(c.io_json_path), read(self.compiled.io_json_path))

    def test_infer_equals_vp_run(self):
        y_cli = self.path("y_cli.npy")
        tool("vp-run", "--model", self.cli_asm, "--input", TEST, "--output", y_cli, "-q")
        y = self.chip.infer(np.load(TEST))
        ref = np.load(y_cli)
        self.assertEqual(y.dtype, np.float32)
        self.assertEqual(y.shape, ref.shape)
        self.assertEqual(y.tobytes(), ref.tobytes())
        last = self.chip.last
        self.assertEqual(last.inferences, 1)
        self.assertGreater(last.cycles_per_inference, 0)
        self.assertGreater(last.energy_per_inference_uj, 0)

    def test_run_writes_vp_runs_files(self):
        # The codes, the trace and the values as files, byte for byte.
        cli = [self.path("cli_codes.bin"), self.path("cli.trace"), self.path("cli_y.npy")]
        api = [self.path("api_codes.bin"), self.path("api.trace"), self.path("api_y.npy")]
        tool("vp-run", "--model", self.cli_asm, "--input", TEST, "--output", cli[0] + ":int8", "--trace", cli[1], "-q")
        tool("vp-run", "--model", self.cli_asm, "--input", TEST, "--output", cli[2], "-q")
        r = self.chip.run(self.compiled, [TEST], outputs=[api[0] + ":int8"], trace=api[1])
        self.chip.run(self.compiled, [np.load(TEST)], outputs=[api[2]])
        self.assertEqual(read(api[0]), read(cli[0]))
        self.assertEqual(read(api[1]), read(cli[1]))
        self.assertEqual(read(api[2]), read(cli[2]))
        self.assertEqual(r.output.dtype, np.int8)
        self.assertEqual(r.output.tobytes(), read(cli[0]))

    def test_batch_equals_vp_run_batch(self):
        xs = [TEST] + CALIB
        y_cli = self.path("batch_cli.npy")
        tool("vp-run", "--model", self.cli_asm, *sum([["--input", x] for x in xs], []), "--output", y_cli, "-q")
        y = self.chip.infer(np.concatenate([np.load(x) for x in xs]))
        ref = np.load(y_cli)
        self.assertEqual(y.shape, ref.shape)
        self.assertEqual(y.tobytes(), ref.tobytes())
        self.assertEqual(self.chip.last.inferences, 3)

    def test_int8_codes_in(self):
        codes = self.path("x.bin")
        tool("vp-cc", MLP, *sum([["--calib", c] for c in CALIB], []), "--quantize-input", TEST, "-o", codes)
        y_codes = self.chip.infer(np.fromfile(codes, dtype=np.int8))
        self.assertEqual(y_codes.tobytes(), self.chip.infer(np.load(TEST)).tobytes())

    def test_deploy_report_is_the_firmwares(self):
        stats = self.path("stats.json")
        tool("vp-run", "--model", self.cli_asm, "--stats", stats, "-q")
        import json
        with open(stats) as f:
            fw = json.load(f)["firmware"]
        d = self.deployment
        self.assertGreater(d.cycles, 0)
        self.assertEqual(d.cycles, fw["deploy_cycles"])
        self.assertEqual(d.pulses, fw["pulses"])
        self.assertEqual(d.failed_cells, fw["failed_cells"])
        self.assertGreater(d.pulses, 0)

    def test_compile_errors_are_vp_cc_messages(self):
        missing = self.path("no-such-model.onnx")
        expected = tool_message(tool("vp-cc", missing, "-o", self.path("m.asm"), expect=1), "vp-cc: error: ")
        with self.assertRaises(vp.CompileError) as e:
            vp.compile(missing, out=self.path("m.asm"))
        self.assertEqual(str(e.exception), expected)
        bad = self.path("bad_calib.npy")
        np.save(bad, np.zeros((1, 63), np.float32))
        expected = tool_message(tool("vp-cc", MLP, "--calib", bad, "-o", self.path("m.asm"), expect=1),
                                "vp-cc: error: ")
        with self.assertRaises(vp.CompileError) as e:
            vp.compile(MLP, calib=[bad], out=self.path("m.asm"))
        self.assertEqual(str(e.exception), expected)
        expected = tool_message(tool("vp-cc", MLP, "--chip", "sidra-y9", "-o", self.path("m.asm"), expect=1),
                                "vp-cc: error: ")
        with self.assertRaises(vp.ConfigError) as e:
            vp.compile(MLP, chip="sidra-y9", out=self.path("m.asm"))
        self.assertEqual(str(e.exception), expected)

    def test_run_errors_are_vp_run_messages(self):
        bad = self.path("bad_input.npy")
        np.save(bad, np.zeros((1, 63), np.float32))
        expected = tool_message(tool("vp-run", "--model", self.cli_asm, "--input", bad, expect=1), "vp-run: ")
        with self.assertRaises(vp.InputError) as e:
            self.chip.infer(bad)
        self.assertEqual(str(e.exception), expected)

        expected = tool_message(tool("vp-run", "--chip", "sidra-y9", "--model", self.cli_asm, expect=1), "vp-run: ")
        with self.assertRaises(vp.ConfigError) as e:
            vp.Chip("sidra-y9").run(self.compiled)
        self.assertEqual(str(e.exception), expected)

        err = tool("vp-run", "--model", self.cli_asm, "--max-cycles", "1000", "-q", expect=4)
        with self.assertRaises(vp.RunError) as e:
            self.chip.run(self.compiled, max_cycles=1000)
        self.assertEqual(str(e.exception), tool_message(err, "vp-run: "))
        self.assertEqual(e.exception.exit_code, 4)

    def test_check_races_is_vp_runs(self):
        stats = self.path("races.json")
        self.chip.run(self.compiled, [TEST], check_races=True, stats=stats)
        import json
        with open(stats) as f:
            rc = json.load(f)["race_check"]
        self.assertEqual(rc["races"], 0)
        self.assertGreater(rc["accesses"], 0)
        # A read of what another core writes with no message between them.
        racy = self.path("racy.s")
        with open(racy, "w") as f:
            f.write(".core 0, 0\n li r1, 0\n li r2, 0x2000\n li r3, 16\n dma.lg r2, r1, r3\n halt\n"
                    ".core 0, 1\n li r1, 0\n li r2, 0x2000\n li r3, 16\n dma.gl r1, r2, r3\n halt\n")
        err = tool("vp-run", "--chip", "small", "--firmware", "none", "--check-races", racy, "-q", expect=7)
        with self.assertRaises(vp.RunError) as e:
            vp.Chip("small", firmware="none").run(racy, check_races=True)
        self.assertEqual(e.exception.exit_code, 7)
        # vp-run's lines: the count, then each race indented.
        self.assertEqual(str(e.exception).splitlines(), [tool_message(err, "vp-run: ")] + err.splitlines()[1:])
        self.assertIn("read-after-write race", str(e.exception))

    def test_chip_parameters_are_vp_runs_sets(self):
        import json
        stats = self.path("slow_stats.json")
        tool("vp-run", "--model", self.cli_asm, "--input", TEST, "--set", "xbar.read_ns=50", "--seed", "9",
             "--stats", stats, "-q")
        with open(stats) as f:
            cycles = json.load(f)["run"]["cycles"]
        slow = vp.Chip("sidra-y1", seed=9, xbar__read_ns=50).run(self.compiled, [TEST])
        self.assertEqual(slow.cycles, cycles)
        same = vp.Chip("sidra-y1", seed=9, params={"xbar.read_ns": 50}).run(self.compiled, [TEST])
        self.assertEqual(same.cycles, cycles)
        self.assertNotEqual(self.chip.run(self.compiled, [TEST]).cycles, cycles)

    def test_infer_needs_a_deployed_model(self):
        with self.assertRaises(vp.Error) as e:
            vp.Chip("sidra-y1").infer(np.load(TEST))
        self.assertIn("deploy", str(e.exception))


class Convolution(unittest.TestCase):
    def test_cnn_on_small_chip_equals_vp_run(self):
        # The tiny CNN on the `small` chip (8 CUs; on sidra-y1 it spreads
        # over 398 and a run takes seconds), deployed then inferred.
        with tempfile.TemporaryDirectory(prefix="sidra-vp-test-") as d:
            calib = [os.path.join(MODELS, "tiny_cnn", "calib_%03d.npy" % i) for i in range(2)]
            test = os.path.join(MODELS, "tiny_cnn", "test_000.npy")
            compiled = vp.compile(TINY, calib=calib, chip="small", out=os.path.join(d, "tiny.asm"))
            self.assertEqual(compiled.io["inputs"][0]["dims"], [1, 3, 32, 32])
            y_cli = os.path.join(d, "y.npy")
            tool("vp-run", "--chip", "small", "--model", compiled.path, "--input", test, "--output", y_cli, "-q")
            chip = vp.Chip("small")
            chip.deploy(compiled)
            y = chip.infer(np.load(test))
            self.assertEqual(y.shape, (1, 10))
            self.assertEqual(y.tobytes(), np.load(y_cli).tobytes())


class Torch(unittest.TestCase):
    def test_module_is_exported_and_agrees_with_torch(self):
        import torch
        torch.manual_seed(3)
        net = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4))
        rng = np.random.default_rng(5)
        calib = rng.standard_normal((8, 16)).astype(np.float32)
        x = rng.standard_normal((1, 16)).astype(np.float32)
        compiled = vp.compile(net, calib=calib)
        self.assertEqual(compiled.calibration_sets, 8)
        chip = vp.Chip("sidra-y1")
        chip.deploy(compiled)
        y = chip.infer(x)
        with torch.no_grad():
            ref = net(torch.from_numpy(x)).numpy()
        self.assertEqual(y.shape, ref.shape)
        cos = float((y * ref).sum() / np.sqrt((y * y).sum() * (ref * ref).sum()))
        self.assertGreater(cos, 0.98)


if __name__ == "__main__":
    unittest.main(verbosity=2)
