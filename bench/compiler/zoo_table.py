#!/usr/bin/python3
"""The model zoo on sidra-y1: each of torchvision's classification CNNs that
scripts/models/export_zoo.py exports, through compiler/tools/check_model.py
(compile, vp-run, platform equal to the golden model, cosine of the logits
against ONNX Runtime), one row per model.

  bench/compiler/zoo_table.py [--build BUILD] [--zoo DIR] [--tests N] [--models a,b]
                        [--json FILE] [--out DIR]

DIR (default out/zoo) is export_zoo.py's output; when its manifest.json is
missing the zoo is exported there first. Every model runs with its own
calibration inputs (all of them) and its first N test inputs (default 2),
deployment skipped (vp-run --no-deploy: the cells start programmed, which
changes no output byte and no inference cycle). A model vp-cc refuses is a
row with the first line of its error (the chip's size, an operator). Prints
a Markdown table (the one in docs/compiler.md); exit 1 when a model that
compiles does not equal the golden model.
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def first_error(text):
    for line in text.splitlines():
        if "error:" in line:
            return line.split("error:", 1)[1].strip()
    lines = [l for l in text.splitlines() if l.strip()]
    return lines[-1] if lines else "failed"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--zoo", default=os.path.join(ROOT, "out", "zoo"))
    p.add_argument("--tests", type=int, default=2)
    p.add_argument("--models", default="")
    p.add_argument("--json")
    p.add_argument("--out", default="", help="work directory (default: a directory under --zoo)")
    a = p.parse_args()

    manifest = os.path.join(a.zoo, "manifest.json")
    if not os.path.exists(manifest):
        subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "scripts", "models", "export_zoo.py"), a.zoo],
                       check=True)
    with open(manifest) as f:
        models = sorted(json.load(f)["models"])
    if a.models:
        want = [m for m in a.models.split(",") if m]
        missing = [m for m in want if m not in models]
        if missing:
            sys.exit(f"zoo_table.py: {missing} not in {manifest}")
        models = want
    out = a.out or os.path.join(a.zoo, "check")
    os.makedirs(out, exist_ok=True)
    rows, bad = [], 0
    for m in models:
        t0 = time.monotonic()
        js = os.path.join(out, m + ".json")
        if os.path.exists(js):
            os.unlink(js)
        r = subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "compiler", "tools", "check_model.py"), m,
                            "--models", a.zoo, "--out", os.path.join(out, m), "--bin", os.path.join(a.build, "bin"),
                            "--max-tests", str(a.tests), "--vp-run-arg=--no-deploy", "--json", js],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        row = {"model": m, "seconds": round(time.monotonic() - t0, 1)}
        if os.path.exists(js):
            with open(js) as f:
                res = json.load(f)
            fig = res.get("chip_figures") or {}
            cmp = res.get("compare") or {}
            row.update(status="equal" if res.get("platform_equals_golden") else "DIFFERS",
                       cycles=fig.get("inference_cycles"), crossbars=fig.get("crossbars_used"),
                       cosine=cmp.get("cosine"), top5=cmp.get("top5"))
            bad += not res.get("platform_equals_golden")
        else:
            row.update(status="refused", reason=first_error(r.stdout))
        rows.append(row)
        print(f"zoo_table: {m}: {row.get('status')} {row.get('reason', '')} ({row['seconds']} s)", file=sys.stderr)

    print("| model | status | cycles per inference | crossbars | cosine vs ONNX Runtime |")
    print("|---|---|---:|---:|---:|")
    for r in rows:
        if r["status"] == "refused":
            print(f"| {r['model']} | refused: {r['reason']} | - | - | - |")
        else:
            print(f"| {r['model']} | platform {r['status']} to golden | {r['cycles']:,.0f} | {r['crossbars']:,} | "
                  f"{r['cosine']:.4f} |")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
