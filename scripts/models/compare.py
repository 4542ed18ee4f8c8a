#!/usr/bin/python3
# (Debian's interpreter on purpose: see export_models.py. Needs only numpy.)
"""Compare an output against a reference: top-1, cosine, max abs error.

  compare.py OUT.npy REF.npy [thresholds] [--json FILE]
  compare.py OUT_DIR REF_DIR [thresholds]     (every REF_DIR/*.npy against OUT_DIR/<same name>)

Prints a one-line summary, then the metrics as one JSON line (also to
--json FILE, atomically). Metrics, over all files:
  top1       fraction of rows whose argmax agrees (rows: the last axis is the
             class axis; null when the outputs have no class axis)
  top5       fraction of rows whose output argmax is in the reference's top 5
  ref_top1_margin_min  smallest gap between the reference's two largest
             logits: with untrained weights it is small, so a quantized
             output can flip top-1 without being wrong; judge by cosine/top5
  cosine     the smallest per-file cosine similarity of the flattened outputs
  max_abs    largest |out - ref|;  max_rel: max_abs / max |ref|
  violations elements outside |out - ref| <= atol + rtol*|ref| (with --atol/--rtol)
Thresholds (each optional): --min-top1 F, --min-top5 F, --min-cosine C, --max-abs E,
--max-rel R, --atol A --rtol R. Exit: 0 all thresholds met, 1 a threshold
failed or shapes differ or a value is NaN/Inf, 2 usage or unreadable input.
"""

import argparse
import glob
import json
import math
import os
import sys

import numpy as np


def load(path):
    try:
        return np.load(path, allow_pickle=False)
    except (OSError, ValueError) as e:
        print(f"compare: cannot read {path}: {e}", file=sys.stderr)
        sys.exit(2)


def pairs(out, ref):
    if os.path.isdir(ref):
        if not os.path.isdir(out):
            sys.exit(f"compare: {ref} is a directory but {out} is not")
        refs = sorted(glob.glob(os.path.join(ref, "*.npy")))
        if not refs:
            print(f"compare: no .npy files in {ref}", file=sys.stderr)
            sys.exit(2)
        return [(os.path.join(out, os.path.basename(r)), r) for r in refs]
    return [(out, ref)]


def metrics_one(a, b):
    """a: output, b: reference, same shape; float64 copies."""
    a = a.astype(np.float64).ravel()
    b = b.astype(np.float64).ravel()
    finite = bool(np.all(np.isfinite(a)) and np.all(np.isfinite(b)))
    diff = np.abs(a - b)
    na, nb = np.linalg.norm(a), np.linalg.norm(b)
    if na == 0 and nb == 0:
        cos = 1.0
    elif na == 0 or nb == 0:
        cos = 0.0
    else:
        cos = float(np.dot(a, b) / (na * nb))
    ref_max = float(np.max(np.abs(b))) if b.size else 0.0
    max_abs = float(diff.max()) if diff.size else 0.0
    return finite, cos, max_abs, ref_max, diff


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    p.add_argument("out", help="output .npy (or directory) under test")
    p.add_argument("ref", help="reference .npy (or directory)")
    p.add_argument("--min-top1", type=float)
    p.add_argument("--min-top5", type=float)
    p.add_argument("--min-cosine", type=float)
    p.add_argument("--max-abs", type=float)
    p.add_argument("--max-rel", type=float)
    p.add_argument("--atol", type=float)
    p.add_argument("--rtol", type=float)
    p.add_argument("--json", help="also write the metrics JSON to this file")
    p.add_argument("--label", default="", help="name printed in the summary line")
    args = p.parse_args()
    if (args.atol is None) != (args.rtol is None):
        p.error("--atol and --rtol go together")

    failures = []
    rows = agree = in_top5 = 0
    margin_min = None
    top1_applicable = True
    cos_min, max_abs, ref_max, violations, elements = 1.0, 0.0, 0.0, 0, 0
    all_finite = True
    files = pairs(args.out, args.ref)
    for out_path, ref_path in files:
        if not os.path.exists(out_path):
            failures.append(f"missing output {out_path}")
            continue
        a, b = load(out_path), load(ref_path)
        if a.shape != b.shape:
            failures.append(f"{os.path.basename(out_path)}: shape {list(a.shape)} vs reference {list(b.shape)}")
            continue
        finite, cos, mabs, rmax, diff = metrics_one(a, b)
        all_finite &= finite
        cos_min = min(cos_min, cos)
        max_abs = max(max_abs, mabs)
        ref_max = max(ref_max, rmax)
        elements += b.size
        if args.atol is not None:
            bound = args.atol + args.rtol * np.abs(b.astype(np.float64).ravel())
            violations += int(np.count_nonzero(~(diff <= bound)))  # NaN counts as a violation
        if b.ndim >= 1 and b.shape[-1] > 1 and b.size:
            ra, rb = a.reshape(-1, b.shape[-1]), b.reshape(-1, b.shape[-1])
            agree += int(np.count_nonzero(np.argmax(ra, 1) == np.argmax(rb, 1)))
            k = min(5, rb.shape[1])
            top5 = np.argsort(-rb.astype(np.float64), axis=1, kind="stable")[:, :k]
            in_top5 += int(np.count_nonzero((top5 == np.argmax(ra, 1)[:, None]).any(1)))
            srt = np.sort(rb.astype(np.float64), axis=1)
            m = float(np.min(srt[:, -1] - srt[:, -2]))
            margin_min = m if margin_min is None else min(margin_min, m)
            rows += ra.shape[0]
        else:
            top1_applicable = False

    top1 = (agree / rows) if (rows and top1_applicable) else None
    top5 = (in_top5 / rows) if top1 is not None else None
    if not elements and failures:  # nothing compared: no metric to report
        cos_min = max_abs = None
    if max_abs is None:
        max_rel = None
    else:
        max_rel = max_abs / ref_max if ref_max > 0 else (0.0 if max_abs == 0 else math.inf)
    if not all_finite:
        failures.append("NaN or Inf in the output or the reference")
    if args.min_top1 is not None:
        if top1 is None:
            print("compare: --min-top1 given but the outputs have no class axis", file=sys.stderr)
            sys.exit(2)
        if top1 < args.min_top1:
            failures.append(f"top1 {top1:.4f} < {args.min_top1}")
    if args.min_top5 is not None:
        if top5 is None:
            print("compare: --min-top5 given but the outputs have no class axis", file=sys.stderr)
            sys.exit(2)
        if top5 < args.min_top5:
            failures.append(f"top5 {top5:.4f} < {args.min_top5}")
    if args.min_cosine is not None and cos_min is not None and not cos_min >= args.min_cosine:
        failures.append(f"cosine {cos_min:.6f} < {args.min_cosine}")
    if args.max_abs is not None and max_abs is not None and not max_abs <= args.max_abs:
        failures.append(f"max_abs {max_abs:.3g} > {args.max_abs}")
    if args.max_rel is not None and max_rel is not None and not max_rel <= args.max_rel:
        failures.append(f"max_rel {max_rel:.3g} > {args.max_rel}")
    if args.atol is not None and violations:
        failures.append(f"{violations} of {elements} elements outside atol {args.atol} + rtol {args.rtol}*|ref|")

    result = {
        "files": len(files), "top1": top1, "top1_rows": rows if top1 is not None else None,
        "top5": top5, "ref_top1_margin_min": margin_min if top1 is not None else None,
        "cosine": cos_min, "max_abs": max_abs, "max_rel": max_rel, "ref_max_abs": ref_max,
        "violations": violations if args.atol is not None else None,
        "pass": not failures, "failures": failures,
    }
    label = (args.label + ": ") if args.label else ""
    t1 = "n/a" if top1 is None else f"{top1:.4f} ({agree}/{rows})"
    fmt = lambda v, f: "n/a" if v is None else format(v, f)  # noqa: E731
    print(f"compare: {label}{'PASS' if not failures else 'FAIL'} top1 {t1}, cosine {fmt(cos_min, '.8f')}, "
          f"max_abs {fmt(max_abs, '.3g')}, max_rel {fmt(max_rel, '.3g')}"
          + ("" if not failures else " -- " + "; ".join(failures)))
    text = json.dumps(result, sort_keys=True)
    print(text)
    if args.json:
        tmp = args.json + f".{os.getpid()}.tmp"
        with open(tmp, "w") as f:
            f.write(text + "\n")
        os.replace(tmp, args.json)
    sys.exit(0 if not failures else 1)


if __name__ == "__main__":
    main()
