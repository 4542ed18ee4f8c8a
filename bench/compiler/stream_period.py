#!/usr/bin/python3
"""Where a stream's period goes, per layer, from a vp-run trace.

    bench/compiler/stream_period.py TRACE [--skip K]

For a program compiled with `vp-cc --batch N`, every core runs each of its
layers once per image; a layer's `layer` marker starts each run. Per layer
and core, one segment per image: from its marker to the core's next marker
(or its last instruction). The table gives, per layer, the median over its
cores and over the middle images (the first and last K left out: the
pipeline filling and draining) of:

  period   cycles from one image's start to the next's on the same core
  segment  cycles of one image's run
  release  waits in recv for release tokens (tags 128-255, counted down
           from 255 by the compiler: row or image releases)
  rows     waits in recv for row tokens and partial sums (tags 0-127)
  send     cycles in send
  work     the rest: the core's own instructions, its DMAs and MVMs

In a steady stream every layer shows about the same period; the layer with
the most work and the least waiting sets it.
"""
import argparse
import collections
import re
import statistics
import sys

RECORD = re.compile(r"^\[([\w.]+), \{'slyr': (-?\d+), 'layer': '([^']*)', 'cluster': (-?\d+), 'cu': (-?\d+), "
                    r"'unit': '(\w+)', 'pc': \d+\}, \{'inst_idx': \d+, 'time': \[(\d+), (\d+)\]\}, \{(.*)\}\]")
TAG = re.compile(r"'tag': (\d+)")


def segments(path):
    cur, last, names = {}, {}, {}
    segs = collections.defaultdict(list)  # (layer, core) -> [(start, end, release, rows, send)]
    with open(path, errors="replace") as f:
        for line in f:
            m = RECORD.match(line)
            if not m:
                continue
            mn, slyr, lname, cl, cu, _unit, t0, t1, ops = m.groups()
            if cl == "-1":
                continue  # the control processor
            core, t0, t1 = (int(cl), int(cu)), int(t0), int(t1)
            if mn == "layer":
                if core in cur:
                    c = cur[core]
                    segs[(c[0], core)].append((c[1], t0, c[2], c[3], c[4]))
                cur[core] = [int(slyr), t0, 0, 0, 0]
                names[int(slyr)] = lname
                continue
            if core not in cur:
                continue
            last[core] = max(last.get(core, 0), t1)
            if mn == "recv":
                tag = int(TAG.search(ops).group(1))
                cur[core][2 if tag >= 128 else 3] += t1 - t0
            elif mn == "send":
                cur[core][4] += t1 - t0
    for core, c in cur.items():
        segs[(c[0], core)].append((c[1], last.get(core, c[1]), c[2], c[3], c[4]))
    return segs, names


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trace")
    ap.add_argument("--skip", type=int, default=3, help="images left out at each end (default 3)")
    a = ap.parse_args()
    segs, names = segments(a.trace)
    by_layer = collections.defaultdict(list)
    for (layer, core), s in segs.items():
        by_layer[layer].append(s)
    print(f"{'layer':40s} {'cores':>5s} {'images':>6s} {'period':>9s} {'segment':>9s} {'release':>9s} "
          f"{'rows':>9s} {'send':>7s} {'work':>9s}")
    shown = 0
    for layer in sorted(by_layer):
        per, seg, rel, rows, snd = [], [], [], [], []
        for s in by_layer[layer]:
            mid = s[a.skip:len(s) - a.skip]
            per += [mid[i + 1][0] - mid[i][0] for i in range(len(mid) - 1)]
            for x in mid:
                seg.append(x[1] - x[0])
                rel.append(x[2])
                rows.append(x[3])
                snd.append(x[4])
        if not per:
            continue
        md = statistics.median
        print(f"{names[layer][:40]:40s} {len(by_layer[layer]):5d} {len(by_layer[layer][0]):6d} {md(per):9.0f} "
              f"{md(seg):9.0f} {md(rel):9.0f} {md(rows):9.0f} {md(snd):7.0f} "
              f"{md(seg) - md(rel) - md(rows) - md(snd):9.0f}")
        shown += 1
    if not shown:
        sys.exit(f"{a.trace}: no layer ran more than {2 * a.skip + 1} images (a --batch N stream's trace?)")


if __name__ == "__main__":
    main()
