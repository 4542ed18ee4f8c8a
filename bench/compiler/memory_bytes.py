#!/usr/bin/env python3
"""The bytes each layer moves between its CUs and memory: what vp-cc's cost
model counts (--dump-ir's memory_bytes, the report's memory floor and mesh
terms) beside what the platform's DMA engines moved to and from memory
(vp-run --stats, each core's dma_bytes less its dma_cluster_bytes, the
copies between its scratchpad and its own cluster's SRAM that shared loads
make off the mesh; summed over the layer's cores), per inference.

    bench/compiler/memory_bytes.py MODEL --models DIR [--bin BUILD/bin]
        [--batch N] [--work DIR] [--top K] [--max-error E]

MODELS_DIR is scripts/models/export_models.py's output (manifest.json).
One test input, --no-deploy; a stream of N images per start with --batch N
(the figures are per image). A core's bytes count for its layer; the cores
of a layer that shares them with others (placement shared) are counted
once, in the totals only. Exits non-zero when the platform's output
differs from the golden model, or (--max-error E) when the model's total
is off the measured one by more than E, relative.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("--models", required=True)
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--work")
    ap.add_argument("--top", type=int, default=15, help="layers listed, largest measured first (0: all)")
    ap.add_argument("--max-error", type=float, help="fail when model / measured total is off 1 by more")
    a = ap.parse_args()
    work = a.work or tempfile.mkdtemp(prefix="memory_bytes_")
    os.makedirs(work, exist_ok=True)
    entry = json.load(open(os.path.join(a.models, "manifest.json")))["models"][a.model]
    test = os.path.join(a.models, entry["test"][0])
    asm = os.path.join(work, a.model + ".asm")
    cc = [os.path.join(a.bin, "vp-cc"), os.path.join(a.models, a.model + ".onnx"), "-o", asm, "--chip", "sidra-y1",
          "--test", test, "--test-dir", work, "--dump-ir", os.path.join(work, "ir")]
    for c in entry["calib"]:
        cc += ["--calib", os.path.join(a.models, c)]
    if a.batch > 1:
        cc += ["--batch", str(a.batch)]
    subprocess.run(cc, check=True, stdout=subprocess.DEVNULL)
    stem = os.path.splitext(os.path.basename(test))[0]
    out = os.path.join(work, "y.bin")
    stats = os.path.join(work, "stats.json")
    subprocess.run([os.path.join(a.bin, "vp-run"), "-q", "--chip", "sidra-y1", "--model", asm, "--input",
                    os.path.join(work, stem + ".in.bin"), "--output", out, "--no-deploy", "--stats", stats],
                   check=True, stdout=subprocess.DEVNULL)
    if open(out, "rb").read() != open(os.path.join(work, stem + ".golden.bin"), "rb").read():
        sys.exit(a.model + ": the platform's output differs from the golden model")

    images = a.batch
    st = json.load(open(stats))
    by_core = {c["core"]: c.get("dma_bytes", 0) - c.get("dma_cluster_bytes", 0) for c in st["cores"]
               if c["core"] != "cp"}
    nodes = [n for n in json.load(open(os.path.join(work, "ir", "6-emitted.json")))["nodes"] if n.get("cores")]
    owners = {}
    for n in nodes:
        for c in n["cores"]:
            owners.setdefault(c, []).append(n["name"])
    rows = []
    for n in nodes:
        own = all(len(owners[c]) == 1 for c in n["cores"])
        measured = sum(by_core.get(c, 0) for c in n["cores"]) / images if own else None
        rows.append((n["name"], n.get("replicas", 1), len(n["cores"]), n.get("memory_bytes", 0), measured))
    model_total = sum(r[3] for r in rows)
    measured_total = sum(by_core.values()) / images
    print(f"{a.model}, batch {a.batch}: bytes per inference between the CUs and memory")
    print(f"{'layer':40s} {'copies':>6s} {'cores':>5s} {'model':>12s} {'measured':>12s} {'ratio':>6s}")
    listed = sorted(rows, key=lambda r: -(r[4] or 0))
    for name, rep, cores, mb, meas in listed[:a.top] if a.top else listed:
        ratio = f"{mb / meas:6.2f}" if meas else "     -"
        shown = f"{meas:12.0f}" if meas is not None else "      shared"
        print(f"{name[-40:]:40s} {rep:6d} {cores:5d} {mb:12d} {shown} {ratio}")
    print(f"total: model {model_total:.0f}, measured {measured_total:.0f} (every CU's DMA bytes to and from memory, "
          f"the graph input's copy and the row hand-over tables included), model / measured {model_total / measured_total:.2f}")
    if a.max_error is not None and abs(model_total / measured_total - 1) > a.max_error:
        sys.exit(f"{a.model}: the cost model's bytes are {model_total / measured_total:.3f} of the measured, "
                 f"more than {a.max_error} off")


if __name__ == "__main__":
    main()
