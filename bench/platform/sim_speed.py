#!/usr/bin/env python3
"""Simulation speed of vp-run: simulated instructions per host second on a
long program (bench/platform/sim_speed.s, 2.6 M instructions on the small
chip), without and with the trace, interleaved so both see the same machine
load. Prints the medians over --runs runs and the trace's cost as a ratio.

usage: sim_speed.py [--bin build/bin] [--runs 5] [--chip small]
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile


def one_run(vp_run, chip, trace, tmp):
    stats = os.path.join(tmp, "stats.json")
    cmd = [vp_run, "-q", "--chip", chip, os.path.join(HERE, "sim_speed.s"), "--stats", stats]
    if trace:
        cmd += ["--trace", os.path.join(tmp, "speed.trace")]
    subprocess.run(cmd, check=True)
    with open(stats) as f:
        s = json.load(f)
    return s["instructions"], s["host"]["wall_s"]


HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(HERE, "..", "..", "build", "bin"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--chip", default="small")
    a = ap.parse_args()
    vp_run = os.path.join(a.bin, "vp-run")
    rates = {False: [], True: []}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(a.runs):
            for trace in (False, True):
                n, wall = one_run(vp_run, a.chip, trace, tmp)
                rates[trace].append(n / wall)
    plain, traced = statistics.median(rates[False]), statistics.median(rates[True])
    print(f"instructions per run:          {n}")
    print(f"without trace (median of {a.runs}): {plain / 1e6:.2f} M instructions/s")
    print(f"with trace    (median of {a.runs}): {traced / 1e6:.2f} M instructions/s")
    print(f"trace cost: runs take {plain / traced:.2f}x as long with the trace")


if __name__ == "__main__":
    main()
