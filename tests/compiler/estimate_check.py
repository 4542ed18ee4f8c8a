#!/usr/bin/python3
"""check_model.py with --report, then vp-cc's estimates against the run.

  estimate_check.py MODEL [--above-floor] [--cycles-within F] [check_model args...]

Energy (every model): the report's crossbar energy per inference equals the
crossbar energy vp-run measures (dac, cell reads, sample-and-hold, ADC,
shift-and-add: the same event counts, priced alike) within rounding; the
whole estimate (crossbars, vector unit, memory and mesh) is within 10 % of
the measured energy without leakage, deployment and the global-memory
traffic of the firmware's program loads and copies (which the per-layer
estimate leaves out); the layers' energy shares add up to 100 %.

--above-floor (a model whose maps are large, such as VGG-11's convolutions
at 224x224): the cycles the platform measures are above the report's
memory floor (every layer's memory traffic through the memory's ports at
once), which the estimate is no lower than.

--cycles-within F: the report's cycle estimate of one inference is within
F (relative) of the cycles the platform measures for it (a decoder's
whole sequence; a stream's cycles per image, with vp-cc --batch N).
"""
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CHECK = os.path.join(ROOT, "compiler", "tools", "check_model.py")


def main():
    model, rest = sys.argv[1], sys.argv[2:]
    above_floor = "--above-floor" in rest
    rest = [a for a in rest if a != "--above-floor"]
    within = None  # --cycles-within F: the cycle estimate within F of the run's, relative
    if "--cycles-within" in rest:
        i = rest.index("--cycles-within")
        within = float(rest[i + 1])
        del rest[i:i + 2]
    out = rest[rest.index("--out") + 1]
    r = subprocess.run([sys.executable, CHECK, model, *rest, "--report"], stdout=subprocess.PIPE, text=True)
    sys.stdout.write(r.stdout)
    if r.returncode != 0:
        return r.returncode
    failures = []

    def check(cond, what):
        if not cond:
            failures.append(what)

    stats = json.load(open(os.path.join(out, "stats.json")))
    # A stream's estimates are per image (vp-cc --batch N).
    stream = re.search(r"^stream of \d+ images: est\. (\d+) cycles per inference", r.stdout, re.M)
    # One graph run per input vp-run was given (firmware.batch), each of N
    # images in a stream; a program may count its own inferences finer (a
    # decoder counts tokens).
    n = max(1, stats["firmware"]["batch"]) * (stats["firmware"]["images_per_start"] if stream else 1)
    e = stats["energy_pj"]
    crossbar = sum(e[k] for k in ("dac", "crossbar_read", "sample_hold", "adc", "shift_add")) / n * 1e-6
    measured = (e["total"] - e["ispp"] - e["leakage"] - e["global_memory"]) / n * 1e-6
    energy = re.search(r"^energy: est\. ([\d.]+) uJ .*crossbars ([\d.]+) \(", r.stdout, re.M)
    shares = [float(m) for m in re.findall(r"^\S.*\s([\d.]+)%\n", r.stdout, re.M)]
    check(energy is not None, "the report has its energy line")
    if energy:
        est, est_xbar = float(energy.group(1)), float(energy.group(2))
        print(f"energy per inference: estimate {est:.2f} uJ (crossbars {est_xbar:.2f}); measured {measured:.2f} "
              f"without leakage, deployment and global memory (crossbars {crossbar:.2f})")
        check(abs(est_xbar - crossbar) <= 0.005 + 0.001 * crossbar, "the crossbar energy is the platform's")
        check(abs(est - measured) <= 0.10 * measured, "the estimate is within 10 % of the measured energy")
    layer_shares = re.findall(r"^(?!total|energy|analog|layer|\(firmware)\S.*\s+[\d.]+\s+([\d.]+)%$", r.stdout, re.M)
    total_share = sum(float(s) for s in layer_shares)
    check(abs(total_share - 100) <= 0.1 * len(layer_shares) + 0.1, f"layer energy shares add up to 100 % ({total_share:.1f})")

    if above_floor:
        total = re.search(r"^total: .* est\. (\d+) cycles .*memory floor (\d+) cycles", r.stdout, re.M)
        firmware = re.search(r"^\(firmware: copies, starts\)\s.*?(\d+)(?:\s+-)+\s*$", r.stdout, re.M)
        check(total is not None and firmware is not None, "the report has its total and firmware lines")
        if total and firmware:
            est, floor, fw = int(total.group(1)), int(total.group(2)), int(firmware.group(1))
            cycles = stats["firmware"]["inference_cycles_mean"]
            print(f"estimate {est}, memory floor {floor} + firmware {fw}; measured {cycles:.0f} "
                  f"({cycles / est:.2f} of the estimate)")
            check(est >= floor + fw, "the estimate is no lower than the memory floor")
            check(cycles > floor, "the platform's cycles are above the memory floor")
    if within is not None:
        total = re.search(r"^total: .* est\. (\d+) cycles", r.stdout, re.M)
        check(total is not None, "the report has its total line")
        if total:
            # Per start: a decoder counts each token as an inference. A
            # stream's estimate and cycles are per image.
            fw = stats["firmware"]
            cycles = fw["inference_cycles_mean"] * (1 if stream else fw["images_per_start"])
            est = int((stream or total).group(1))
            print(f"cycle estimate {est}, measured {cycles:.0f}: {est / cycles:.3f} of the run")
            check(abs(est / cycles - 1) <= within, f"the cycle estimate is within {within:.0%} of the run's cycles")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
