#!/usr/bin/env python3
"""Where vp-cc's estimate of one inference parts from the platform's run,
layer by layer (docs/compiler.md, "Cost model").

    bench/compiler/estimate_layers.py MODEL --models DIR [--bin BUILD/bin]
        [--work DIR] [--vp-cc-arg=ARG ...]

Compiles MODEL (check_model.py, one test input, --no-deploy) with --dump-ir
and a trace, then prints per layer the cost model's first and last output
row (cycles after the layers start, the IR dump's est_first_row_cycles and
est_last_row_cycles) beside the trace's: the layer's first store
(dma.lg: its first row is done) and its last record, both
from the first record of any layer on. The layers with the largest
differences are where the model is wrong.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def layer_times(vp_trace, trace, extra):
    out = tempfile.NamedTemporaryFile(suffix=".json", delete=False).name
    try:
        subprocess.run([vp_trace, trace, "--stats-json", out, *extra], check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        return {l["name"]: (l["start"], l["end"]) for l in json.load(open(out))["layers"] if l["id"] >= 0}
    finally:
        os.unlink(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("--models", required=True)
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--work")
    ap.add_argument("--vp-cc-arg", action="append", default=[])
    a = ap.parse_args()
    work = a.work or tempfile.mkdtemp()
    ir = os.path.join(work, "ir")
    trace = os.path.join(work, "run.trace")
    cmd = [sys.executable, os.path.join(ROOT, "compiler", "tools", "check_model.py"), a.model, "--models", a.models,
           "--out", os.path.join(work, "out"), "--bin", a.bin, "--max-tests", "1", "--trace", trace,
           "--vp-run-arg=--no-deploy", "--vp-cc-arg=--dump-ir", "--vp-cc-arg=" + ir]
    cmd += ["--vp-cc-arg=" + x for x in a.vp_cc_arg]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        sys.stdout.write(r.stdout)
        sys.exit("check_model.py failed")
    dumps = sorted(f for f in os.listdir(ir) if f.endswith(".json"))
    nodes = json.load(open(os.path.join(ir, dumps[-1])))["nodes"]
    vp_trace = os.path.join(a.bin, "vp-trace")
    whole = layer_times(vp_trace, trace, [])
    store = layer_times(vp_trace, trace, ["--mnemonics", "dma.lg"])
    t0 = min(s for s, _ in whole.values())
    t1 = max(e for _, e in whole.values())
    print("%-34s %-10s %10s %10s %10s %10s %6s" % ("layer", "op", "est first", "first", "est last", "last", "last/est"))
    rows = []
    for n in nodes:
        if "est_last_row_cycles" not in n or n["name"] not in whole:
            continue
        first = (store.get(n["name"]) or (None, None))[0]
        last = whole[n["name"]][1] - t0
        est_first, est_last = n["est_first_row_cycles"], n["est_last_row_cycles"]
        rows.append((n, est_first, None if first is None else first - t0, est_last, last))
        print("%-34.34s %-10.10s %10d %10s %10d %10d %6.2f" % (n["name"], n["op"], est_first,
              "-" if first is None else first - t0, est_last, last, last / max(1, est_last)))
    est_total = max(r[3] for r in rows)
    print("layers: estimated %d cycles, measured %d (first record of a layer to the last): %.2f" %
          (est_total, t1 - t0, est_total / max(1, t1 - t0)))


if __name__ == "__main__":
    main()
