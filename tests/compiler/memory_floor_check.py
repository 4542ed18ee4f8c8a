#!/usr/bin/python3
"""check_model.py on a model whose maps are large (VGG-11's convolutions at
224x224), then the cost model's memory floor against the run: the report's
estimate is the floor (every layer's memory traffic through the memory's
ports at once) plus the firmware's part, not the row hand-over, and the
cycles the platform measures are above the floor.

  memory_floor_check.py MODEL [check_model args...]
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
    out = rest[rest.index("--out") + 1]
    r = subprocess.run([sys.executable, CHECK, model, *rest, "--report"], stdout=subprocess.PIPE, text=True)
    sys.stdout.write(r.stdout)
    if r.returncode != 0:
        return r.returncode
    total = re.search(r"^total: .* est\. (\d+) cycles .*memory floor (\d+) cycles", r.stdout, re.M)
    firmware = re.search(r"^\(firmware: copies, starts\)\s.*?(\d+)\s+-\s+-\s*$", r.stdout, re.M)
    if not total or not firmware:
        print("FAIL: no estimate, memory floor or firmware line in the report")
        return 1
    est, floor, fw = int(total.group(1)), int(total.group(2)), int(firmware.group(1))
    stats = json.load(open(os.path.join(out, "stats.json")))
    measured = stats["firmware"]["inference_cycles_mean"]
    print(f"estimate {est} = memory floor {floor} + firmware {fw}; measured {measured:.0f} "
          f"({measured / est:.2f} of the estimate)")
    failures = []
    if est != floor + fw:
        failures.append("the memory floor sets the estimate")
    if not measured > floor:
        failures.append("the platform's cycles are above the memory floor")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
