#!/usr/bin/python3
"""Compile an ONNX model with vp-cc, run it on the platform with vp-run and
check the result two ways:

  * exactly: the platform's int8 output bytes equal the golden model's
    (vp-cc --test writes them), for every test input;
  * against FP32: the dequantized output against ONNX Runtime
    (scripts/models/run_ort.js), with scripts/models/compare.py: cosine
    similarity of the logits, top-1, top-5 and the reference's top-1 margin.

  check_model.py MODEL.onnx --out DIR --calib C0.npy ... --test T0.npy ...
  check_model.py NAME --models DIR --out DIR ...   (export_models.py's DIR/manifest.json
                                                    gives the file, calibration and test inputs)
      [--bin BUILD/bin] [--chip sidra-y1] [--trace FILE] [--stats FILE]
      [--min-cosine C] [--min-top5 F] [--json FILE] [--label NAME]
      [--vp-run-arg ARG]... [--vp-cc-arg ARG]... [--report] [--chips N]

With --chips N the model is cut over N chips (vp-cc --chips) and runs as a
system (vp-run --system): the last chip's output is what is checked.

All test inputs run in one vp-run call (a batch: the firmware deploys the
weights once, then runs one inference per input). Exit status: 0 when the
platform equals the golden model and the thresholds hold, 1 otherwise,
2 on a usage error.
"""
import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MODELS = os.path.join(ROOT, "scripts", "models")


def run(cmd, log=None, **kw):
    t0 = time.monotonic()
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)
    dt = time.monotonic() - t0
    if log is not None:
        with open(log, "a") as f:
            f.write("$ " + " ".join(cmd) + "\n" + r.stdout)
    if r.returncode != 0:
        sys.stderr.write(r.stdout)
        raise SystemExit("check_model: failed (%d): %s" % (r.returncode, " ".join(cmd)))
    return r.stdout, dt


def dequantize(raw, desc):
    """int8 bytes in the chip's channels-last layout -> float32 in ONNX order.

    Raises ValueError naming both sizes when the bytes do not fill the dims."""
    q = np.frombuffer(raw, dtype=np.int8).astype(np.float64)
    h, w, c = desc["h"], desc["w"], desc["c"]
    dims = desc["dims"]
    if q.size != int(np.prod(dims)) or q.size != h * w * c:
        raise ValueError("%d output bytes do not fill dims %s (chip tensor %dx%dx%d)" % (q.size, list(dims), h, w, c))
    if desc.get("channels_last", len(dims) >= 3):   # [1, C, H(, W)]: HWC -> CHW
        y = q.reshape(h, w, c).transpose(2, 0, 1)
    else:                # [B, K], [K], or a map of one channel or one pixel: HWC is the ONNX order
        y = q
    y = (y * desc["scale"]).reshape(dims)
    if desc.get("host_softmax"):
        e = np.exp(y - y.max(axis=-1, keepdims=True))
        y = e / e.sum(axis=-1, keepdims=True)
    return y.astype(np.float32)


def shape_failures(vp_dir, ort_dir, stems):
    """One message per test input whose platform output and ONNX Runtime
    output differ in shape, naming both shapes (a failed check, not an
    exception further on)."""
    failures = []
    for s in stems:
        a, b = os.path.join(vp_dir, s + ".npy"), os.path.join(ort_dir, s + ".npy")
        if not os.path.exists(a) or not os.path.exists(b):
            failures.append("%s: missing %s" % (s, a if not os.path.exists(a) else b))
            continue
        sa, sb = list(np.load(a, mmap_mode="r").shape), list(np.load(b, mmap_mode="r").shape)
        if sa != sb:
            failures.append("%s: output shape %s from the platform, %s from ONNX Runtime" % (s, sa, sb))
    return failures


def link_failures(system_file, stats):
    """The link's figures against its analytic model (hw/system/chip_link.h):
    each directed link busy for the serialization time of every byte it
    carried, bits x pJ per bit of energy, and the first element's inputs
    on a chip no earlier than its producer's end plus the serialization and
    one latency per hop, nor more than 2,000 cycles later (doorbells on the
    chips' meshes)."""
    import math
    sysf = json.load(open(system_file))
    link = stats["system"]["link"]
    chips = stats["chips"]
    n = len(chips)
    clock = chips[0]["run"]["clock_mhz"]
    hop = math.ceil(link["latency_ns"] * clock / 1000.0)

    def ser(nbytes):
        return math.ceil(nbytes / link["gbytes_per_s"] * clock / 1000.0)

    def hops(a, b):
        if link["topology"] == "switch":
            return [(a, "switch"), ("switch", b)]
        step = 1 if b > a else -1
        if link["topology"] == "ring":
            fwd = (b - a) % n
            step = 1 if fwd <= n - fwd else -1
        out, c = [], a
        while c != b:
            nxt = (c + step) % n
            out.append((c, nxt))
            c = nxt
        return out

    elements = stats["system"]["elements"]
    want_busy, want_bytes = {}, {}
    failures = []
    for r in sysf["routes"]:
        path = hops(r["from"], r["to"])
        for h in path:
            want_busy[h] = want_busy.get(h, 0) + elements * ser(r["bytes"])
            want_bytes[h] = want_bytes.get(h, 0) + elements * r["bytes"]
        end = chips[r["from"]]["firmware"]["inference_times"][0][1]
        start = chips[r["to"]]["firmware"]["inference_times"][0][0]
        floor = ser(r["bytes"]) + hop * len(path)
        if not floor <= start - end <= floor + 2000:
            failures.append("route %s: chip %d starts element 0 %d cycles after chip %d ended it; the link takes %d" %
                            (r["value"], r["to"], start - end, r["from"], floor))
    for l in link["links"]:
        h = (l["from"], l["to"])
        if l["busy_cycles"] != want_busy.get(h) or l["bytes"] != want_bytes.get(h):
            failures.append("link %s->%s: busy %d cycles for %d bytes, expected %s for %s" %
                            (l["from"], l["to"], l["busy_cycles"], l["bytes"], want_busy.get(h), want_bytes.get(h)))
        if abs(l["energy_pj"] - l["bytes"] * 8 * link["pj_per_bit"]) > 1e-6 * max(1.0, l["energy_pj"]):
            failures.append("link %s->%s: %.1f pJ for %d bytes at %g pJ/bit" %
                            (l["from"], l["to"], l["energy_pj"], l["bytes"], link["pj_per_bit"]))
    if len(link["links"]) != len(want_busy):
        failures.append("%d links carried data, the routes cross %d" % (len(link["links"]), len(want_busy)))
    return failures


def metric(comp, key, fmt):
    v = comp.get(key)
    return "n/a" if v is None else format(v, fmt)


def load_chip_figures():
    """chip_figures() of python/sidra_vp/_figures.py, the one definition the
    Python API shares; loaded by path, so the module need not be built."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "sidra_vp_figures", os.path.join(ROOT, "python", "sidra_vp", "_figures.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.chip_figures


chip_figures = load_chip_figures()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model")
    ap.add_argument("--out", required=True)
    ap.add_argument("--calib", nargs="+", default=[])
    ap.add_argument("--test", nargs="+", default=[])
    ap.add_argument("--models", help="directory export_models.py wrote (model given by name)")
    ap.add_argument("--max-tests", type=int, default=0, help="use only the first N test inputs")
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--chip", default="sidra-y1")
    ap.add_argument("--trace")
    ap.add_argument("--stats")
    ap.add_argument("--min-cosine", type=float)
    ap.add_argument("--min-top5", type=float)
    ap.add_argument("--min-top1", type=float)
    ap.add_argument("--json")
    ap.add_argument("--label")
    ap.add_argument("--node", default="node")
    ap.add_argument("--vp-run-arg", action="append", default=[])
    ap.add_argument("--vp-cc-arg", action="append", default=[],
                    help="extra vp-cc argument, e.g. --vp-cc-arg=--replicate --vp-cc-arg=2")
    ap.add_argument("--report", action="store_true", help="print vp-cc's per-layer report")
    ap.add_argument("--chips", type=int, default=1, help="cut the model over N chips and run the system")
    ap.add_argument("--float-io", action="store_true",
                    help="also run vp-run on the float32 test inputs themselves (the scales travel in the "
                         "program), check its float32 output against the dequantized golden bytes, and "
                         "compare that output with ONNX Runtime")
    a = ap.parse_args()

    if a.models:
        man = json.load(open(os.path.join(a.models, "manifest.json")))["models"]
        if a.model not in man:
            raise SystemExit("check_model: %s not in %s/manifest.json" % (a.model, a.models))
        e = man[a.model]
        a.calib = a.calib or [os.path.join(a.models, f) for f in e["calib"]]
        a.test = a.test or [os.path.join(a.models, f) for f in e["test"]]
        a.model = os.path.join(a.models, e["onnx"])
    if a.max_tests:
        a.test = a.test[:a.max_tests]
    if not a.test:
        raise SystemExit("check_model: no test inputs (--test)")
    name = a.label or os.path.splitext(os.path.basename(a.model))[0]
    out = os.path.abspath(a.out)
    os.makedirs(os.path.join(out, "vp"), exist_ok=True)
    os.makedirs(os.path.join(out, "ort"), exist_ok=True)
    log = os.path.join(out, "log.txt")
    open(log, "w").close()
    asm = os.path.join(out, name + ".asm")
    stems = [os.path.splitext(os.path.basename(t))[0] for t in a.test]
    if len(set(stems)) != len(stems):
        raise SystemExit("check_model: test inputs need distinct file names")

    # 1. Compile (calibration from --calib), quantized inputs and golden outputs.
    cmd = [os.path.join(a.bin, "vp-cc"), a.model, "-o", asm, "--chip", a.chip]
    for c in a.calib:
        cmd += ["--calib", c]
    for t in a.test:
        cmd += ["--test", t]
    if a.report:
        cmd.append("--report")
    if a.chips > 1:
        if a.float_io:
            raise SystemExit("check_model: --float-io runs one chip; drop it with --chips")
        cmd += ["--chips", str(a.chips)]
    cmd += a.vp_cc_arg
    text, t_compile = run(cmd, log)
    if a.report:
        print(text, end="")
    # A system's output is its last chip's.
    io_name = name + (".chip%d" % (a.chips - 1) if a.chips > 1 else "") + ".io.json"
    io = json.load(open(os.path.join(out, io_name)))
    desc = io["outputs"][0]
    # A stream (vp-cc --batch N): each test's files hold N images, the first
    # of them the test itself; that one is compared with ONNX Runtime.
    images = io.get("batch", 1)
    first = desc if images == 1 else dict(desc, dims=desc["image_dims"], bytes=desc["image_bytes"])
    if images > 1 and a.float_io:
        raise SystemExit("check_model: --float-io feeds one image per test; a stream of %d needs int8 inputs" % images)

    # 2. The platform: one run, a batch of the test inputs.
    y_all = os.path.join(out, "vp", "batch.bin")
    cmd = [os.path.join(a.bin, "vp-run"), "--chip", a.chip]
    cmd += ["--system", os.path.join(out, name + ".system.json")] if a.chips > 1 else ["--model", asm]
    for s in stems:
        cmd += ["--input", os.path.join(out, s + ".in.bin")]
    cmd += ["--output", y_all, "--stats", a.stats or os.path.join(out, "stats.json")]
    if a.trace:
        cmd += ["--trace", a.trace]
    cmd += a.vp_run_arg
    run_text, t_sim = run(cmd, log)
    raw = open(y_all, "rb").read()
    nb = desc["bytes"]
    exact = len(raw) == nb * len(stems)
    mismatched, failures = [], []
    for k, s in enumerate(stems):
        got = raw[k * nb:(k + 1) * nb]
        want = open(os.path.join(out, s + ".golden.bin"), "rb").read()
        if got != want:
            exact = False
            mismatched.append(s)
        try:
            np.save(os.path.join(out, "vp", s + ".npy"), dequantize(got[:first["bytes"]], first))
        except ValueError as e:
            failures.append("%s: %s" % (s, e))

    # 2b. The same inputs as float32, straight into vp-run: its float32
    #     output must be the dequantized golden bytes, and it is what is
    #     compared with ONNX Runtime.
    vp_dir = os.path.join(out, "vp")
    t_float = 0.0
    if a.float_io:
        vp_dir = os.path.join(out, "vp-float")
        os.makedirs(vp_dir, exist_ok=True)
        y_float = os.path.join(vp_dir, "batch.npy")
        cmd = [os.path.join(a.bin, "vp-run"), "-q", "--chip", a.chip, "--model", asm]
        for t in a.test:
            cmd += ["--input", t]
        cmd += ["--output", y_float] + a.vp_run_arg
        _, t_float = run(cmd, log)
        ys = np.load(y_float)
        if len(stems) > 1:
            if ys.shape[0] != len(stems):
                failures.append("vp-run's float output %s does not stack %d inputs" % (list(ys.shape), len(stems)))
                ys = []
        else:
            ys = [ys]
        for s, y in zip(stems, ys):
            ref = os.path.join(out, "vp", s + ".npy")
            if os.path.exists(ref):
                d = np.load(ref)
                if y.shape != d.shape or y.dtype != np.float32 or not np.array_equal(y, d):
                    failures.append("%s: vp-run's float32 output (%s %s) is not the dequantized golden output (%s)" %
                                    (s, y.dtype, list(y.shape), list(d.shape)))
            np.save(os.path.join(vp_dir, s + ".npy"), y)

    # 3. ONNX Runtime on the same float inputs, then compare.py.
    _, t_ort = run([a.node, os.path.join(MODELS, "run_ort.js"), a.model, "--each"] + a.test +
                   ["--out-dir", os.path.join(out, "ort"), "--threads", "1"], log)
    cjson = os.path.join(out, "compare.json")
    failures += shape_failures(vp_dir, os.path.join(out, "ort"), stems)
    cmp = [sys.executable, os.path.join(MODELS, "compare.py"), vp_dir, os.path.join(out, "ort"),
           "--label", name, "--json", cjson]
    if a.min_cosine is not None:
        cmp += ["--min-cosine", str(a.min_cosine)]
    if a.min_top5 is not None:
        cmp += ["--min-top5", str(a.min_top5)]
    if a.min_top1 is not None:
        cmp += ["--min-top1", str(a.min_top1)]
    r = subprocess.run(cmp, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    summary = r.stdout.splitlines()[0] if r.stdout else ""
    comp = json.load(open(cjson)) if os.path.exists(cjson) else {}
    if r.returncode != 0 and not comp.get("failures"):
        failures.append("compare.py failed (%d): %s" % (r.returncode, r.stdout.strip()))

    stats = json.load(open(a.stats or os.path.join(out, "stats.json")))
    system = stats.get("system")
    if system:
        failures += link_failures(os.path.join(out, name + ".system.json"), stats)
    chip = chip_figures(stats["chips"][-1] if system else stats)
    result = {
        "model": name, "chip": a.chip, "inputs": len(stems),
        "platform_equals_golden": exact, "mismatched": mismatched,
        "failures": failures,
        "compile_s": round(t_compile, 2), "vp_run_s": round(t_sim, 2), "ort_s": round(t_ort, 2),
        "vp_run_float_s": round(t_float, 2) if a.float_io else None,
        "compare": comp, "chip_figures": chip, "system": system,
    }
    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f, indent=1)

    print("%s: platform %s the golden model on %d input(s)" %
          (name, "equals" if exact else "DIFFERS FROM", len(stems)) +
          (" (differs: %s)" % ", ".join(mismatched) if mismatched else ""))
    print(summary)
    for f in failures:
        print("%s: FAILED: %s" % (name, f))
    if comp.get("cosine") is not None:
        rows = comp.get("top1_rows") or 0
        print("%s vs ONNX Runtime%s: top-1 %s/%d, top-5 %s, cosine (min over inputs) %s, "
              "ORT top-1 margin (min) %s, max abs error %s (largest |logit| %s)" %
              (name, " (vp-run's float32 output)" if a.float_io else "",
               "n/a" if comp.get("top1") is None else round(comp["top1"] * rows), rows,
               metric(comp, "top5", ".2f"), metric(comp, "cosine", ".6f"), metric(comp, "ref_top1_margin_min", ".4f"),
               metric(comp, "max_abs", ".4g"), metric(comp, "ref_max_abs", ".4g")))
    if system:
        link_bytes = sum(l["bytes"] for l in system["link"]["links"])
        print("%s on %d chips %s (%s link, %.1f GB/s): latency %s cycles, interval %s cycles between results, "
              "%d bytes over the links, %.1f uJ in all" %
              (name, system["chips"], a.chip, system["link"]["topology"], system["link"]["gbytes_per_s"],
               system.get("latency_cycles"), system.get("interval_cycles", "n/a"), link_bytes,
               system["energy_pj"] * 1e-6))
    else:
        print("%s on %s: %s cycles per inference (%.3f ms at %.0f MHz, %.1f inferences/s), "
            "%.1f uJ per inference (%.1f uJ without leakage), %s of %s crossbars; deployment %s cycles, %.1f uJ" %
            (name, a.chip, chip["inference_cycles"], chip["inference_cycles"] / chip["clock_mhz"] / 1e3,
             chip["clock_mhz"], chip["inferences_per_s"], chip["energy_per_inference_uj"],
             chip["dynamic_energy_per_inference_uj"],
             chip["crossbars_used"], chip["crossbars_total"], chip["deploy_cycles"], chip["deploy_energy_uj"]))
        if chip["stream_period_cycles"]:
            print("%s streamed %d images per start: %.0f cycles per image once the stream is full "
                  "(%.1f inferences/s; image %d's result to image %d's)" %
                  (name, images, chip["stream_period_cycles"], chip["clock_mhz"] * 1e6 / chip["stream_period_cycles"],
                   images // 4, 3 * images // 4))
    print("%s: host time: compile %.1f s, vp-run %.1f s (%d input(s)), ONNX Runtime %.1f s" %
          (name, t_compile, t_sim, len(stems), t_ort))
    return 0 if exact and r.returncode == 0 and not failures else 1


if __name__ == "__main__":
    sys.exit(main())
