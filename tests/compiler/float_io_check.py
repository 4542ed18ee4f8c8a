#!/usr/bin/python3
"""check_model.py on models vp-cc-modelgen writes (no exported models needed).

  float_io_check.py model NAME BIN OUT [check_model args...]
      NAME is gap_head or gap_softmax (a CNN whose graph ends in
      GlobalAveragePool then Flatten, with a Softmax after it for
      gap_softmax): seeded inputs, then check_model.py --float-io, which
      compares vp-run's float32 output with ONNX Runtime.
  float_io_check.py shape-mismatch BIN OUT
      check_model.py with a vp-cc that publishes the output with two extra
      dims ([1, 10, 1, 1], what vp-cc published before the graph's own dims):
      the run must fail with both shapes named and no Python traceback.
"""
import os
import stat
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CHECK = os.path.join(ROOT, "compiler", "tools", "check_model.py")


def make_model(bin_dir, out, name):
    os.makedirs(out, exist_ok=True)
    gen = os.path.join(bin_dir, "vp-cc-modelgen")
    onnx = os.path.join(out, name + ".onnx")
    subprocess.run([gen, name, onnx, "--image", "12", "--classes", "10", "--seed", "5"], check=True)
    files = []
    for seed in range(1, 6):
        f = os.path.join(out, "x%d.npy" % seed)
        subprocess.run([gen, "input", f, "--image", "12", "--seed", str(seed)], check=True)
        files.append(f)
    return onnx, files[:2], files[2:]


def model(name, bin_dir, out, extra):
    onnx, calib, tests = make_model(bin_dir, out, name)
    cmd = [sys.executable, CHECK, onnx, "--out", os.path.join(out, "check"), "--bin", bin_dir,
           "--calib"] + calib + ["--test"] + tests + ["--float-io"] + extra
    return subprocess.run(cmd).returncode


def shape_mismatch(bin_dir, out):
    onnx, calib, tests = make_model(bin_dir, out, "gap_head")
    fake = os.path.join(out, "bin")
    os.makedirs(fake, exist_ok=True)
    for tool in ("vp-run", "vp-cc-modelgen"):
        link = os.path.join(fake, tool)
        if not os.path.exists(link):
            os.symlink(os.path.join(os.path.abspath(bin_dir), tool), link)
    wrapper = os.path.join(fake, "vp-cc")
    with open(wrapper, "w") as f:
        f.write("#!%s\n" % sys.executable + '''import json, subprocess, sys
r = subprocess.run([%r] + sys.argv[1:])
if r.returncode:
    sys.exit(r.returncode)
out = sys.argv[sys.argv.index("-o") + 1]
io = out[:out.rfind(".")] + ".io.json"
j = json.load(open(io))
j["outputs"][0]["dims"] += [1, 1]
json.dump(j, open(io, "w"))
''' % os.path.join(os.path.abspath(bin_dir), "vp-cc"))
    os.chmod(wrapper, os.stat(wrapper).st_mode | stat.S_IXUSR)
    r = subprocess.run([sys.executable, CHECK, onnx, "--out", os.path.join(out, "check"), "--bin", fake,
                        "--calib"] + calib + ["--test"] + tests, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    print(r.stdout)
    want = "FAILED: x3: output shape [1, 10, 1, 1] from the platform, [1, 10] from ONNX Runtime"
    ok = r.returncode == 1 and want in r.stdout and "Traceback" not in r.stdout
    if not ok:
        print("float_io_check: expected exit 1, '%s' and no traceback; got exit %d" % (want, r.returncode))
    return 0 if ok else 1


def main():
    if len(sys.argv) >= 5 and sys.argv[1] == "model":
        return model(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:])
    if len(sys.argv) == 4 and sys.argv[1] == "shape-mismatch":
        return shape_mismatch(sys.argv[2], sys.argv[3])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
