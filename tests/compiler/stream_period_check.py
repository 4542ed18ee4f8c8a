#!/usr/bin/python3
"""A stream's image times in vp-run's statistics against two runs' cycles.

  stream_period_check.py MODEL N --models DIR --out DIR --bin DIR [check_model args...]

Compiles and runs MODEL as a stream of N and of 2N images (check_model.py,
vp-cc --batch, every output equal to the golden model). In each run's
firmware statistics, `image_done_cycles` has one cycle per image, each
written, in image order and within the start; and the one-run
`stream_period_cycles` of the 2N run (the middle half's cycles per image)
is within 10 % of what the N more images cost: (cycles of 2N - cycles of
N) / N.
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CHECK = os.path.join(os.path.dirname(os.path.dirname(HERE)), "compiler", "tools", "check_model.py")


def main():
    model, n, rest = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    i = rest.index("--out")
    out = rest[i + 1]
    failures, cycles, period = [], {}, 0.0
    for b in (n, 2 * n):
        args = list(rest)
        args[i + 1] = os.path.join(out, "stream%d" % b)
        r = subprocess.run([sys.executable, CHECK, model, *args, "--vp-cc-arg=--batch", "--vp-cc-arg=%d" % b],
                           stdout=subprocess.PIPE, text=True)
        sys.stdout.write(r.stdout)
        if r.returncode != 0:
            return r.returncode
        fw = json.load(open(os.path.join(args[i + 1], "stats.json")))["firmware"]
        done = fw.get("image_done_cycles", [])
        starts = fw["inference_cycles"]
        if len(done) != len(starts) or any(len(row) != b for row in done):
            failures.append("stream of %d: image_done_cycles %r, expected %d starts of %d images" %
                            (b, done, len(starts), b))
            continue
        for row, total in zip(done, starts):
            if not all(0 < t <= total for t in row) or row != sorted(row):
                failures.append("stream of %d: image times %r not in order within the start's %d cycles" %
                                (b, row, total))
        cycles[b] = sum(starts)
        period = fw.get("stream_period_cycles", 0)
    if not failures:
        marginal = (cycles[2 * n] - cycles[n]) / n
        print("%s: %d more images cost %.0f cycles each; the stream of %d's middle half %.0f (%.3f)" %
              (model, n, marginal, 2 * n, period, period / marginal if marginal else 0))
        if not (marginal > 0 and abs(period / marginal - 1) <= 0.1):
            failures.append("stream_period_cycles %.0f is not within 10 %% of %.0f" % (period, marginal))
    for f in failures:
        print("FAIL: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
