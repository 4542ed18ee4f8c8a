#!/usr/bin/python3
"""vp-eval: the accuracy of a classifier on the chip, on a labelled data set.

  vp-eval MODEL.onnx --data X.npy --labels Y.npy [--calib C.npy]...
          [--chip NAME] [--set k=v]... [--config FILE]... [--seed N]
          [--mitigate adc-range,encoding,ir-drop,redundancy,averaging | --auto [--target-drop P]]
          [--adc-headroom H]
          [--redundancy N] [--redundancy-layers all|NAME,...]
          [--input-bits N[:NAME,...]|auto [--input-bits-budget R]]
          [--weight-bits N[:NAME,...]|auto [--weight-bits-budget R]] [--encoding-layers all|auto|NAME,...]
          [--average-reads N] [--average-layers all|auto|NAME,...] [--no-deploy] [--json FILE] [--work DIR] [-q]

X.npy holds N float32 images stacked along its first dimension (the model's
input shape with N in place of its leading 1), Y.npy N integer labels. One
compile (vp-cc, calibrated on the --calib images), then three classifiers on
the same N images:

  fp32    the compiler's FP32 interpreter (vp-cc --fp32): the trained network
  golden  the compiler's integer golden model (vp-cc --reference): what an
          ideal chip computes from the quantized network
  chip    the platform (vp-run): the firmware deploys the weights once by
          ISPP, then runs the N images as one batch, on the --chip preset with
          every --config, --set and --seed given (device and ADC models)

and prints each one's top-1 accuracy, how many images the chip computed
exactly as the golden model (byte for byte), and the chip's cycles and energy
per inference. --set and --config reach both tools; vp-cc takes the chip
geometry from them, vp-run everything. --json FILE writes the figures
(keys accuracy.chip, accuracy.golden, accuracy.fp32, cycles_per_inference,
energy_uj_per_inference, ...) whole or not at all.

Mitigations (--mitigate, comma-separated):

  adc-range  the calibration images run on the chip first (ideal ADCs, every
             other device model as configured) with vp-run --adc-profile;
             vp-cc --adc-ranges then gives every crossbar the finest ADC range
             that covers the largest column sum measured (x --adc-headroom)
  encoding   signed weights as differential pairs (xbar.signed_encoding =
             differential) instead of offset slices: a weight's cells then
             carry only their own programming error, at twice the columns
             per weight (more crossbars where a layer is wide).
             Which layers: --encoding-layers all (default: the chip-wide
             xbar.signed_encoding), Conv names (vp-cc --encoding; each
             layer's crossbars set by xfmt), or auto: measured on the
             calibration images (no labels), each Conv alone in
             differential pairs (with adc-range, each try with ranges of
             its own), the squared distance of the chip's outputs from the
             golden model's against the crossbars it adds; then the layers
             best per crossbar, one at a time, while each cuts the distance
             by at least 10 %, and every layer at once when that cuts it by
             10 % more
  ir-drop    every programmed weight pre-distorted against the chip's IR
             drop (vp-cc --ir-drop-compensate): the compiler knows each
             cell's factor from nonideal.ir_drop_ohm_per_cell and programs
             the level that reads back as the weight. No cost but the
             weights that cannot go higher (clamped)
  redundancy the weights held --redundancy times (default 2) on crossbars of
             their own, each copy programmed on its own, the copies' column
             sums added (vp-cc --redundancy): what is programmed in (the
             verify residual, relaxation, stuck cells) and read noise /
             sqrt(N), at N times the crossbars and conversions of each layer
             (fewer copies for the schedule where crossbars run short).
             Which layers: --redundancy-layers all (default) or Conv names
  averaging  every MVM read --average-reads times (default 4) and averaged
             (vp-cc --average-reads): read noise / sqrt(N), at N times the
             crossbar time and read energy of each layer averaged. Which
             layers: --average-layers all (default), a list of Conv names,
             or auto: measured on the calibration images (no labels), each
             Conv averaged alone, the squared distance of the chip's outputs
             from the golden model's against the cycles it adds; then the
             layers best per cycle, one at a time, while each cuts the
             distance by at least 10 %

--input-bits N[:NAME,...] has the named Conv layers (all without names)
read N of their inputs' 8 bits (vp-cc --input-bits; N DAC steps per MVM:
fewer conversions, less energy, shorter MVMs). --input-bits auto chooses
the bits per layer by measured sensitivity, on the calibration images and
the golden model (no labels, no chip): each Conv alone at 7 down to 3
bits, the output's squared distance from the 8-bit golden model's relative
to its power; then, most DAC steps saved (crossbar activations per
inference, from vp-cc --report) per unit of distance first, the
reductions whose distances sum to at most --input-bits-budget (default
0.01), checked together (halved while the whole set exceeds it). The JSON's
"input_bits" has the choice and every measurement.

--weight-bits N[:NAME,...] gives the named Conv layers (all without names)
N-bit weights (N = 2 to 12; vp-cc --weight-bits; the golden model computes
with them): ceil(N / xbar.cell_bits) slices per weight, so more output
channels per crossbar and fewer cells to program below 8 bits, finer
weights above. --weight-bits auto widens first: when the 8-bit network's
output on the calibration images is farther than --weight-bits-budget
(default 0.01, relative squared distance) from the network with every
layer at 12 bits, the layers whose 12 bits cut that distance most per
weight cell added go to 12 bits, one at a time, until it is within the
budget. Then it narrows the others as --input-bits auto does, over the
narrowest width of each slice count below 8 bits (6, 4 and 2 with 2-bit
cells), the steps ranked by weight cells saved per unit of distance,
within the budget. The JSON's "weight_bits" has the choice ("widened",
"narrowed") and every measurement.

--auto tries no mitigation, then adc-range with ir-drop, then those and
encoding, then with redundancy, then all five, and keeps the first within --target-drop points (default 1) of FP32 (or
the last); the JSON's "auto" lists each try.

Energy per inference is the run's energy after deployment over N: the ISPP
energy and the leakage of the deploy phase (its share of the run's cycles)
are left out.

Exit status: 0 done, 1 bad input or a failing tool (its message is shown),
2 usage error.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
MITIGATIONS = ("adc-range", "encoding", "ir-drop", "redundancy", "averaging")
# --auto's order: cheapest first (ranges cost one xadc per crossbar and the
# IR-drop pre-distortion nothing, so they go together; the differential
# encoding doubles the columns per weight; redundant copies multiply the
# crossbars and conversions; averaged reads multiply every layer's crossbar
# time).
AUTO_LADDER = ((), ("adc-range", "ir-drop"), ("adc-range", "ir-drop", "encoding"),
               ("adc-range", "ir-drop", "encoding", "redundancy"),
               ("adc-range", "ir-drop", "encoding", "redundancy", "averaging"))


class EvalError(Exception):
    pass


def tool(name, bin_dir):
    path = os.path.join(bin_dir, name)
    if not os.access(path, os.X_OK):
        raise EvalError(f"{path}: not found (give --bin, the folder holding vp-cc and vp-run)")
    return path


def run(cmd, what):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        raise EvalError(f"{what} failed (exit {r.returncode}):\n{r.stdout.rstrip()}")
    return r.stdout


def load_array(path, what):
    try:
        return np.load(path, allow_pickle=False)
    except (OSError, ValueError) as e:
        raise EvalError(f"{path}: cannot read the {what} as .npy: {e}")


def top1(y, n):
    return np.asarray(y).reshape(n, -1).argmax(axis=1)


def write_atomically(path, text):
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=d)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def calibration_stack(a, work):
    """The --calib images stacked in one .npy (what vp-run --batch and vp-cc
    --reference take), and how many there are."""
    stack = os.path.join(work, "calib_stack.npy")
    np.save(stack, np.concatenate([load_array(c, "calibration image") for c in a.calib]).astype(np.float32))
    return stack, len(a.calib)


def run_calibration(vp_run, asm, run_params, stack, k, deploy, work, what):
    """The chip's int8 outputs on the k stacked calibration images (one row
    each) and the run's statistics."""
    out, st = os.path.join(work, "try.npy"), os.path.join(work, "try.json")
    run([vp_run, "--model", asm, *run_params, "--batch", str(k), "--input", stack, "--output", out + ":int8",
         "--stats", st, "-q", *deploy], f"vp-run ({what})")
    return np.load(out).reshape(k, -1).astype(np.float64), json.load(open(st))


def greedy_layers(convs, distance, cost_name):
    """The layers chosen by a measured mitigation: distance(layers) gives
    the chip's distance from the golden model with the mitigation on those
    layers and its cost (cycles, crossbars). Each layer alone, ranked by
    distance cut per unit of cost added, then added one at a time while
    each cuts the distance by at least 10 %. Returns the layers, the
    distance without and with them, and the measurements alone."""
    base, base_cost = distance([])
    alone = []
    for name in convs:
        d, c = distance([name])
        alone.append({"layer": name, "distance": d, cost_name: c})
    ranked = sorted((t for t in alone if t["distance"] < base),
                    key=lambda t: -(base - t["distance"]) / max(1.0, t[cost_name] - base_cost))
    chosen, cur = [], base
    for t in ranked:
        d, _ = distance(chosen + [t["layer"]])
        if d > 0.9 * cur:
            break
        chosen.append(t["layer"])
        cur = d
    return chosen, base, cur, alone


def choose_average_layers(a, vp_cc, vp_run, common, cc_params, compile_extra, run_params, deploy, work, ir, progress):
    """--average-layers auto: the Conv layers whose averaged reads bring the
    chip's outputs closest to the golden model's per cycle they add,
    measured on the calibration images (their labels are not needed)."""
    stack, k = calibration_stack(a, work)
    golden = os.path.join(work, "calib_golden.npy")
    run([vp_cc, a.model, *common, *cc_params, "--reference", stack, "-o", golden], "vp-cc --reference (calibration)")
    y_golden = np.load(golden).reshape(k, -1).astype(np.float64)
    convs = [n["name"] for n in json.load(open(os.path.join(ir, "2-canonical.json")))["nodes"] if n["op"] == "Conv"]
    asm = os.path.join(work, "try.asm")

    def distance(layers):
        reads = ["--average-reads", a.average_reads + ":" + ",".join(layers)] if layers else []
        run([vp_cc, a.model, *common, *cc_params, *compile_extra, *reads, "-o", asm], "vp-cc (averaging try)")
        y, stats = run_calibration(vp_run, asm, run_params, stack, k, deploy, work, "averaging try")
        return float(((y - y_golden) ** 2).mean()), stats["firmware"]["inference_cycles_mean"]

    progress(f"averaging: measuring {len(convs)} layer(s) on {k} calibration image(s)")
    chosen, base, cur, alone = greedy_layers(convs, distance, "cycles_per_inference")
    return {"layers": chosen, "distance_without": base, "distance_with": cur, "alone": alone,
            "reads": int(a.average_reads)}


def report_layers(vp_cc, model, common, cc_params, work):
    """Per Conv layer of vp-cc --report: crossbar activations per inference
    (output pixels x crossbars of one copy's lane: each input bit is a DAC
    step of every one of them, the energy and time a bit costs) and its
    weights (MACs per output pixel)."""
    out = run([vp_cc, model, *common, *cc_params, "-o", os.path.join(work, "report.asm"), "--report"], "vp-cc --report")
    reads, weights = {}, {}
    for line in out.splitlines():
        f = line.split()
        if len(f) > 8 and f[1] == "Conv" and f[2].startswith("xbar"):
            _, h, w = (int(v) for v in f[3].split("x"))
            copies = 1
            for part in f[7].split("/")[0].split("+")[0].split("x"):
                copies *= int(part)
            reads[f[0]] = h * w * int(f[5]) / copies
            weights[f[0]] = int(f[4]) / (h * w)
    return reads, weights


def cell_bits_of(a, bin_dir):
    """xbar.cell_bits of the chip as --chip, --config and --set make it
    (vp-params --json: the effective configuration)."""
    cmd = [tool("vp-params", bin_dir), "--json", "--chip", a.chip, *[arg for c in a.config for arg in ("--config", c)],
           *[arg for s in a.sets for arg in ("--set", s)]]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise EvalError(f"vp-params failed (exit {r.returncode}):\n{r.stderr.rstrip()}")
    return int(json.loads(r.stdout)["xbar"]["cell_bits"])


def golden_with(a, vp_cc, common, cc_params, work, option):
    """spec -> the golden model's outputs on the calibration images (one row
    each) with `option` (--input-bits, --weight-bits) b:layer for each
    (layer, b) of spec."""
    stack, k = calibration_stack(a, work)
    out = os.path.join(work, "widths_try.npy")

    def golden(spec):
        args = [arg for layer, b in spec.items() for arg in (option, f"{b}:{layer}")]
        run([vp_cc, a.model, *common, *cc_params, *args, "--reference", stack, "-o", out], f"vp-cc --reference ({option})")
        return np.load(out).reshape(k, -1).astype(np.float64)
    return golden


def choose_widths(a, vp_cc, common, cc_params, work, progress, option, widths, layers, saving, budget_limit):
    """--input-bits auto and --weight-bits auto: per Conv, the narrowest of
    `widths` (below 8, widest first) the golden model's output tolerates on
    the calibration images, within a summed budget. saving(layer, b, b2)
    is what a step from b to b2 bits saves (the unit the steps are ranked
    by: DAC steps, weight cells)."""
    golden = golden_with(a, vp_cc, common, cc_params, work, option)
    k = len(a.calib)
    y8 = golden({})
    power = max(float((y8 ** 2).mean()), 1e-12)

    def distance(spec):
        return float(((golden(spec) - y8) ** 2).mean()) / power

    progress(f"{option[2:]}: measuring {len(layers)} layer(s) at {', '.join(map(str, widths))} bits "
             f"on {k} calibration image(s)")
    alone = {layer: {b: distance({layer: b}) for b in widths} for layer in layers}
    ladder = [8, *widths]
    budget = budget_limit
    tries = []
    while True:
        # Each layer's steps down the ladder, as (units saved per unit of
        # distance added, layer, cost); a step is taken only after the one
        # above it, and only while the summed distances stay in the budget.
        at, spent = {layer: 0 for layer in layers}, 0.0
        while True:
            best = None
            for layer, i in at.items():
                if i + 1 >= len(ladder):
                    continue
                b, b2 = ladder[i], ladder[i + 1]
                cost = alone[layer][b2] - (alone[layer][b] if b < 8 else 0.0)
                if spent + max(cost, 0.0) > budget:
                    continue
                gain = saving(layer, b, b2) / max(cost, 1e-12)
                if best is None or gain > best[0]:
                    best = (gain, layer, cost)
            if best is None:
                break
            at[best[1]] += 1
            spent += max(best[2], 0.0)
        spec = {layer: ladder[i] for layer, i in at.items() if i > 0}
        together = distance(spec) if spec else 0.0
        tries.append({"budget": budget, "layers": spec, "distance": together})
        if together <= budget_limit or not spec:
            break
        budget /= 2
    return {"layers": spec, "distance": together, "budget": budget_limit, "tries": tries,
            "alone": {layer: {str(b): d for b, d in v.items()} for layer, v in alone.items()}}


def choose_input_bits(a, vp_cc, common, cc_params, work, progress):
    """--input-bits auto: 7 down to 3 input bits, ranked by DAC steps saved
    (crossbar activations per inference x bits)."""
    reads, _ = report_layers(vp_cc, a.model, common, cc_params, work)
    return choose_widths(a, vp_cc, common, cc_params, work, progress, "--input-bits", [7, 6, 5, 4, 3],
                         list(reads), lambda layer, b, b2: reads[layer] * (b - b2), a.input_bits_budget)


WIDE_WEIGHT_BITS = 12


def widen_weight_bits(a, vp_cc, common, cc_params, work, progress, weights, slices):
    """The sensitive layers, at 12 bits: the reference is the network with
    every layer at 12 bits; when the 8-bit network's output is farther from
    it than --weight-bits-budget (relative squared distance on the
    calibration images), the layers whose 12 bits alone cut that distance
    most per weight cell added are widened, one at a time, until the
    output is within the budget or no layer helps."""
    golden = golden_with(a, vp_cc, common, cc_params, work, "--weight-bits")
    y_hi = golden({layer: WIDE_WEIGHT_BITS for layer in weights})
    power = max(float((y_hi ** 2).mean()), 1e-12)

    def distance(spec):
        return float(((golden(spec) - y_hi) ** 2).mean()) / power

    d8 = distance({})
    result = {"layers": {}, "distance_8": d8, "distance": d8, "alone": {}}
    if d8 <= a.weight_bits_budget:
        return result
    progress(f"weight bits: the 8-bit network is {d8:.4g} from the {WIDE_WEIGHT_BITS}-bit one; "
             f"measuring {len(weights)} layer(s) at {WIDE_WEIGHT_BITS} bits")
    alone = {layer: distance({layer: WIDE_WEIGHT_BITS}) for layer in weights}
    added = lambda layer: max(1.0, weights[layer] * (slices(WIDE_WEIGHT_BITS) - slices(8)))
    ranked = sorted((layer for layer in weights if alone[layer] < d8), key=lambda layer: -(d8 - alone[layer]) / added(layer))
    spec, cur = {}, d8
    for layer in ranked:
        if cur <= a.weight_bits_budget:
            break
        d = distance({**spec, layer: WIDE_WEIGHT_BITS})
        if d >= cur:
            continue
        spec[layer] = WIDE_WEIGHT_BITS
        cur = d
    result.update(layers=spec, distance=cur, alone=alone)
    return result


def choose_weight_bits(a, vp_cc, common, cc_params, work, progress):
    """--weight-bits auto: first the sensitive layers widened to 12 bits
    (widen_weight_bits), then the others narrowed as --input-bits auto
    does, to the narrowest width of each slice count below 8 bits (with
    2-bit cells 6, 4 and 2: three, two and one slices instead of four),
    ranked by weight cells saved (weights x slices)."""
    _, weights = report_layers(vp_cc, a.model, common, cc_params, work)
    cb = cell_bits_of(a, a.bin)
    slices = lambda b: -(-b // cb)
    wide = widen_weight_bits(a, vp_cc, common, cc_params, work, progress, weights, slices)
    base = cc_params + [arg for layer, b in wide["layers"].items() for arg in ("--weight-bits", f"{b}:{layer}")]
    rest = [layer for layer in weights if layer not in wide["layers"]]
    widths = [b for b in range(7, 1, -1) if slices(b) < slices(b + 1)]
    if widths and rest:
        narrow = choose_widths(a, vp_cc, common, base, work, progress, "--weight-bits", widths, rest,
                               lambda layer, b, b2: weights[layer] * (slices(b) - slices(b2)), a.weight_bits_budget)
    else:
        narrow = {"layers": {}, "distance": 0.0, "budget": a.weight_bits_budget, "tries": [], "alone": {}}
    return {**narrow, "layers": {**narrow["layers"], **wide["layers"]}, "narrowed": narrow["layers"], "widened": wide}


def conv_names(a, vp_cc, common, cc_params, work):
    """The model's Conv layers by name, from vp-cc's IR dump."""
    ir = os.path.join(work, "ir-names")
    run([vp_cc, a.model, *common, *cc_params, "--dump-ir", ir, "-o", os.path.join(work, "names.asm")], "vp-cc --dump-ir")
    return [n["name"] for n in json.load(open(os.path.join(ir, "2-canonical.json")))["nodes"] if n["op"] == "Conv"]


def choose_encoding_layers(a, vp_cc, vp_run, common, cc_params, run_params, deploy, ranges, work, progress):
    """--encoding-layers auto: the Conv layers whose differential pairs bring
    the chip's outputs closest to the golden model's per crossbar they add,
    measured on the calibration images (no labels): each Conv alone, then
    the best per crossbar one at a time while each cuts the distance by at
    least 10 %. With `ranges` every try gets its own ADC ranges first."""
    stack, k = calibration_stack(a, work)
    golden = os.path.join(work, "calib_golden.npy")
    run([vp_cc, a.model, *common, *cc_params, "--reference", stack, "-o", golden], "vp-cc --reference (calibration)")
    y_golden = np.load(golden).reshape(k, -1).astype(np.float64)
    convs = conv_names(a, vp_cc, common, cc_params, work)
    asm = os.path.join(work, "try.asm")

    def distance(layers):
        enc = ["--encoding", "differential:" + ",".join(layers)] if layers else []
        run([vp_cc, a.model, *common, *cc_params, *enc, "-o", asm], "vp-cc (encoding try)")
        if ranges:
            profile = os.path.join(work, "try_profile.json")
            run([vp_run, "--model", asm, *run_params, "--set", "adc.mode=ideal", *[x for c in a.calib for x in ("--input", c)],
                 "--adc-profile", profile, "-q", *deploy], "vp-run (encoding try, ADC profile)")
            run([vp_cc, a.model, *common, *cc_params, *enc, "-o", asm, "--adc-ranges", profile,
                 "--adc-headroom", a.adc_headroom], "vp-cc (encoding try, ADC ranges)")
        y, stats = run_calibration(vp_run, asm, run_params, stack, k, deploy, work, "encoding try")
        return float(((y - y_golden) ** 2).mean()), stats["crossbar"]["crossbars_used"]

    progress(f"encoding: measuring {len(convs)} layer(s) on {k} calibration image(s)")
    chosen, base, cur, alone = greedy_layers(convs, distance, "crossbars")
    # The errors of layers add up in the output, so layers that help little
    # alone can help together: every layer is tried too, and kept when it
    # cuts the distance by 10 % more.
    all_distance = None
    if len(chosen) < len(convs):
        all_distance, _ = distance(convs)
        if all_distance <= 0.9 * cur:
            chosen, cur = list(convs), all_distance
    return {"layers": chosen, "distance_without": base, "distance_with": cur, "distance_all": all_distance,
            "alone": alone}


def evaluate(a, vp_cc, vp_run, x, labels, mitigations, progress, t0):
    """Compiles with `mitigations`, then classifies the images three ways."""
    n = x.shape[0]
    work = a.work or tempfile.mkdtemp(prefix="vp-eval-")
    os.makedirs(work, exist_ok=True)
    try:
        common = []
        for c in a.calib:
            common += ["--calib", c]
        sets = list(a.sets)
        if "encoding" in mitigations and a.encoding_layers == "all":
            # Differential pairs: a weight's two cells carry only their own
            # programming error (offset slices add the offset's to every weight).
            sets.append("xbar.signed_encoding=differential")
        sets = [arg for s in sets for arg in ("--set", s)]
        cc_params = ["--chip", a.chip] + sets
        run_params = ["--chip", a.chip] + sets
        for c in a.config:
            run_params += ["--config", c]
        if a.seed is not None:
            run_params += ["--seed", a.seed]
        asm = os.path.join(work, "model.asm")
        deploy = ["--no-deploy"] if a.no_deploy else []
        progress("compiling")
        averaging = []
        if "averaging" in mitigations and a.average_layers != "auto":
            layers = "" if a.average_layers == "all" else ":" + a.average_layers
            averaging = ["--average-reads", a.average_reads + layers]
        redundancy = []
        if "redundancy" in mitigations:
            layers = "" if a.redundancy_layers == "all" else ":" + a.redundancy_layers
            redundancy = ["--redundancy", a.redundancy + layers]
        cc_params += redundancy
        if "ir-drop" in mitigations:
            cc_params += ["--ir-drop-compensate"]
        weight_choice = None
        if a.weight_bits == "auto":
            weight_choice = choose_weight_bits(a, vp_cc, common, cc_params, work, progress)
            cc_params += [arg for layer, b in weight_choice["layers"].items() for arg in ("--weight-bits", f"{b}:{layer}")]
        elif a.weight_bits:
            cc_params += ["--weight-bits", a.weight_bits]
        encoding_choice = None
        if "encoding" in mitigations and a.encoding_layers == "auto":
            encoding_choice = choose_encoding_layers(a, vp_cc, vp_run, common, cc_params, run_params, deploy,
                                                     "adc-range" in mitigations, work, progress)
            if encoding_choice["layers"]:
                cc_params += ["--encoding", "differential:" + ",".join(encoding_choice["layers"])]
        elif "encoding" in mitigations and a.encoding_layers != "all":
            cc_params += ["--encoding", "differential:" + a.encoding_layers]
        bits_choice = None
        if a.input_bits == "auto":
            bits_choice = choose_input_bits(a, vp_cc, common, cc_params, work, progress)
            cc_params += [arg for layer, b in bits_choice["layers"].items() for arg in ("--input-bits", f"{b}:{layer}")]
        elif a.input_bits:
            cc_params += ["--input-bits", a.input_bits]
        # --average-layers auto reads the Conv layers' names from the IR dump.
        ir = os.path.join(work, "ir")
        dump = ["--dump-ir", ir] if "averaging" in mitigations and a.average_layers == "auto" else []
        run([vp_cc, a.model, *common, *cc_params, *averaging, *dump, "-o", asm], "vp-cc")
        ranges = 0
        ranged = []
        if "adc-range" in mitigations:
            progress(f"measuring the ADC ranges on {len(a.calib)} calibration image(s)")
            profile = os.path.join(work, "adc_profile.json")
            calib_inputs = [arg for c in a.calib for arg in ("--input", c)]
            run([vp_run, "--model", asm, *run_params, "--set", "adc.mode=ideal", *calib_inputs,
                 "--adc-profile", profile, "-q", *deploy], "vp-run (ADC profile)")
            ranged = ["--adc-ranges", profile, "--adc-headroom", a.adc_headroom]
            run([vp_cc, a.model, *common, *cc_params, *averaging, "-o", asm, *ranged], "vp-cc --adc-ranges")
            ranges = len(json.load(open(profile))["crossbars"])
        choice = None
        if "averaging" in mitigations and a.average_layers == "auto":
            choice = choose_average_layers(a, vp_cc, vp_run, common, cc_params, ranged, run_params, deploy, work, ir,
                                           progress)
            if choice["layers"]:
                run([vp_cc, a.model, *common, *cc_params, *ranged, "-o", asm,
                     "--average-reads", a.average_reads + ":" + ",".join(choice["layers"])], "vp-cc --average-reads")
        progress(f"FP32 and golden model on {n} images")
        fp32 = os.path.join(work, "fp32.npy")
        golden = os.path.join(work, "golden.npy")
        run([vp_cc, a.model, *common, *cc_params, "--fp32", a.data, "-o", fp32], "vp-cc --fp32")
        run([vp_cc, a.model, *common, *cc_params, "--reference", a.data, "-o", golden], "vp-cc --reference")
        progress(f"the chip on {n} images (one deployment, a batch of {n})")
        chip = os.path.join(work, "chip.npy")
        stats_path = os.path.join(work, "stats.json")
        t_run = time.monotonic()
        run([vp_run, "--model", asm, *run_params, "--batch", str(n), "--input", a.data,
             "--output", chip + ":int8", "--stats", stats_path, "-q", *deploy], "vp-run")
        t_run = time.monotonic() - t_run

        y_fp32, y_golden, y_chip = np.load(fp32), np.load(golden), np.load(chip)
        if y_golden.size != y_chip.size:
            raise EvalError(f"the chip gave {y_chip.size} output values, the golden model {y_golden.size}")
        stats = json.load(open(stats_path))
        fw = stats["firmware"]
        energy = stats["energy_pj"]
        cycles = stats["run"]["cycles"]
        deploy_share = fw["deploy_cycles"] / cycles if cycles else 0.0
        after_deploy_pj = energy["total"] - energy.get("ispp", 0.0) - energy.get("leakage", 0.0) * deploy_share
        exact = (y_chip.reshape(n, -1) == y_golden.reshape(n, -1)).all(axis=1)
        chip_top1, golden_top1, fp32_top1 = top1(y_chip, n), top1(y_golden, n), top1(y_fp32, n)
        return {
            "model": a.model, "data": a.data, "images": int(n), "chip_preset": a.chip, "sets": a.sets,
            "configs": a.config, "seed": a.seed, "deployed": not a.no_deploy,
            "accuracy": {"chip": float((chip_top1 == labels).mean()),
                         "golden": float((golden_top1 == labels).mean()),
                         "fp32": float((fp32_top1 == labels).mean())},
            "mitigations": mitigations,
            "adc_ranges_set": ranges,
            **({"averaging": choice} if choice is not None else {}),
            **({"input_bits": bits_choice} if bits_choice is not None else {}),
            **({"weight_bits": weight_choice} if weight_choice is not None else {}),
            **({"encoding": encoding_choice} if encoding_choice is not None else {}),
            "chip_equals_golden": int(exact.sum()),
            "chip_top1_equals_golden": int((chip_top1 == golden_top1).sum()),
            "cycles_per_inference": fw["inference_cycles_mean"],
            "energy_uj_per_inference": after_deploy_pj / n / 1e6,
            "crossbars": stats["crossbar"]["crossbars_used"],
            "deploy": {"cycles": fw["deploy_cycles"], "pulses": fw["pulses"], "failed_cells": fw["failed_cells"]},
            "host_seconds": {"total": round(time.monotonic() - t0, 3), "vp_run": round(t_run, 3)},
        }
    finally:
        if not a.work:
            shutil.rmtree(work, ignore_errors=True)


def main(argv):
    ap = argparse.ArgumentParser(prog="vp-eval", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model", help="ONNX classifier")
    ap.add_argument("--data", required=True, help="float32 .npy, N images stacked")
    ap.add_argument("--labels", required=True, help="integer .npy, N labels")
    ap.add_argument("--calib", action="append", default=[], help="calibration image .npy (repeatable)")
    ap.add_argument("--chip", default="sidra-y1", help="preset name or file")
    ap.add_argument("--set", action="append", default=[], dest="sets", help="parameter=value (repeatable)")
    ap.add_argument("--config", action="append", default=[], help="configuration file (repeatable)")
    ap.add_argument("--seed", help="seed of every random model (vp-run --seed)")
    ap.add_argument("--no-deploy", action="store_true", help="crossbars assumed programmed (vp-run --no-deploy)")
    ap.add_argument("--mitigate", default="", help="comma-separated: " + ", ".join(MITIGATIONS))
    ap.add_argument("--adc-headroom", default="1", help="adc-range: measured sums x this (vp-cc --adc-headroom)")
    ap.add_argument("--redundancy", default="2", help="redundancy: copies of the weights (vp-cc --redundancy; default 2)")
    ap.add_argument("--redundancy-layers", default="all", help="redundancy: all (default) or Conv names, comma-separated")
    ap.add_argument("--input-bits", default="", help="N[:NAME,...] input bits of Conv layers (vp-cc --input-bits), "
                                                      "or auto: chosen per layer on the calibration images")
    ap.add_argument("--input-bits-budget", type=float, default=0.01,
                    help="--input-bits auto: the output's relative squared distance from 8 bits allowed (default 0.01)")
    ap.add_argument("--weight-bits", default="", help="N[:NAME,...] weight bits of Conv layers (vp-cc --weight-bits), "
                                                       "or auto: chosen per layer on the calibration images")
    ap.add_argument("--weight-bits-budget", type=float, default=0.01,
                    help="--weight-bits auto: the output's relative squared distance from 8 bits allowed (default 0.01)")
    ap.add_argument("--encoding-layers", default="all",
                    help="encoding: all (default: the chip-wide setting), auto (chosen on the calibration images) "
                         "or Conv names, comma-separated")
    ap.add_argument("--average-reads", default="4", help="averaging: reads per MVM (vp-cc --average-reads; default 4)")
    ap.add_argument("--average-layers", default="all",
                    help="averaging: all (default), auto (chosen on the calibration images) or Conv names, comma-separated")
    ap.add_argument("--auto", action="store_true",
                    help="try no mitigation, then adc-range with ir-drop, then encoding too, then redundancy, then all five, "
                         "until within --target-drop")
    ap.add_argument("--target-drop", type=float, default=1.0, help="--auto: points of accuracy below FP32 allowed (default 1)")
    ap.add_argument("--json", help="write the figures as JSON")
    ap.add_argument("--work", help="keep the compiled model and outputs in this folder (default: a temporary one)")
    ap.add_argument("--bin", default=HERE, help="folder of vp-cc and vp-run (default: this tool's own)")
    ap.add_argument("-q", "--quiet", action="store_true", help="print nothing but errors")
    a = ap.parse_args(argv)

    mitigations = [m for m in a.mitigate.split(",") if m]
    for m in mitigations:
        if m not in MITIGATIONS:
            ap.error(f"--mitigate: unknown mitigation '{m}'; known: {', '.join(MITIGATIONS)}")
    if "adc-range" in mitigations and not a.calib:
        ap.error("--mitigate adc-range measures the ADC ranges on the --calib images: give at least one")
    if a.average_layers == "auto" and not a.calib:
        ap.error("--average-layers auto measures the layers on the --calib images: give at least one")
    if a.redundancy not in ("1", "2", "4", "8", "16"):
        ap.error(f"--redundancy {a.redundancy}: expected 1, 2, 4, 8 or 16")
    if a.average_reads not in ("1", "2", "4", "8", "16"):
        ap.error(f"--average-reads {a.average_reads}: expected 1, 2, 4, 8 or 16")
    if a.input_bits and a.input_bits != "auto":
        width, _, names = a.input_bits.partition(":")
        if width not in ("2", "3", "4", "5", "6", "7", "8") or (":" in a.input_bits and not all(names.split(","))):
            ap.error(f"--input-bits {a.input_bits}: expected auto, or N or N:NAME,... with N from 2 to 8")
    if a.weight_bits and a.weight_bits != "auto":
        width, _, names = a.weight_bits.partition(":")
        if width not in [str(b) for b in range(2, 13)] or (":" in a.weight_bits and not all(names.split(","))):
            ap.error(f"--weight-bits {a.weight_bits}: expected auto, or N or N:NAME,... with N from 2 to 12")
    if a.weight_bits == "auto" and not a.calib:
        ap.error("--weight-bits auto measures the layers on the --calib images: give at least one")
    if not (a.weight_bits_budget >= 0 and a.weight_bits_budget <= 1e6):
        ap.error("--weight-bits-budget: expected a relative squared distance >= 0")
    if a.encoding_layers not in ("all", "auto") and not all(a.encoding_layers.split(",")):
        ap.error(f"--encoding-layers {a.encoding_layers}: expected all, auto or Conv names, comma-separated")
    if a.encoding_layers == "auto" and not a.calib:
        ap.error("--encoding-layers auto measures the layers on the --calib images: give at least one")
    if a.input_bits == "auto" and not a.calib:
        ap.error("--input-bits auto measures the layers on the --calib images: give at least one")
    if not (a.input_bits_budget >= 0 and a.input_bits_budget <= 1e6):
        ap.error("--input-bits-budget: expected a relative squared distance >= 0")
    if a.auto and mitigations:
        ap.error("--auto chooses the mitigations itself: leave out --mitigate")
    if not (a.target_drop >= 0 and a.target_drop <= 100):
        ap.error("--target-drop: expected points from 0 to 100")
    t0 = time.monotonic()
    progress = (lambda msg: sys.stderr.write(f"vp-eval: {msg}\n")) if not a.quiet and sys.stderr.isatty() else (lambda msg: None)
    vp_cc, vp_run = tool("vp-cc", a.bin), tool("vp-run", a.bin)

    x = load_array(a.data, "data")
    labels = load_array(a.labels, "labels")
    if x.dtype != np.float32:
        raise EvalError(f"{a.data}: dtype {x.dtype}, expected float32 images")
    if x.ndim < 2 or x.shape[0] < 1:
        raise EvalError(f"{a.data}: shape {list(x.shape)}, expected N images stacked along the first dimension")
    n = x.shape[0]
    if labels.ndim != 1 or not np.issubdtype(labels.dtype, np.integer):
        raise EvalError(f"{a.labels}: shape {list(labels.shape)} of {labels.dtype}, expected one integer label per image")
    if labels.shape[0] != n:
        raise EvalError(f"{a.labels}: {labels.shape[0]} labels for {n} images in {a.data}")

    if a.auto:
        # SIDRA's simulator loop: the mitigations in order of cost, until the
        # chip is within --target-drop points of FP32.
        tried = []
        for ladder in AUTO_LADDER:
            if "adc-range" in ladder and not a.calib:
                continue
            progress(f"--auto: trying {', '.join(ladder) or 'no mitigation'}")
            result = evaluate(a, vp_cc, vp_run, x, labels, list(ladder), progress, t0)
            acc = result["accuracy"]
            tried.append({"mitigations": list(ladder), "accuracy": acc["chip"],
                          "crossbars": result["crossbars"], "cycles_per_inference": result["cycles_per_inference"]})
            if 100 * (acc["fp32"] - acc["chip"]) <= a.target_drop:
                break
        result["auto"] = {"target_drop_points": a.target_drop, "tried": tried,
                          "met": 100 * (result["accuracy"]["fp32"] - result["accuracy"]["chip"]) <= a.target_drop}
    else:
        result = evaluate(a, vp_cc, vp_run, x, labels, mitigations, progress, t0)

    if a.json:
        write_atomically(a.json, json.dumps(result, indent=1) + "\n")
    if not a.quiet:
        acc = result["accuracy"]
        chosen = result["mitigations"]
        print(f"vp-eval: {a.model} on {n} images of {a.data}, chip {a.chip}"
              + "".join(f" --set {s}" for s in a.sets)
              + (f", mitigations: {', '.join(chosen)}" if chosen else ""))
        print(f"  accuracy   chip {100 * acc['chip']:.2f} %   golden {100 * acc['golden']:.2f} %   "
              f"fp32 {100 * acc['fp32']:.2f} %")
        print(f"  chip equals the golden model on {result['chip_equals_golden']} of {n} images "
              f"(same top-1 on {result['chip_top1_equals_golden']})")
        d = result["deploy"]
        print(f"  {result['cycles_per_inference']:.0f} cycles and {result['energy_uj_per_inference']:.3f} uJ "
              f"per inference, {result['crossbars']} crossbars; deployment {d['cycles']} cycles, "
              f"{d['pulses']} pulses, {d['failed_cells']} failed cells")
        if "auto" in result:
            au = result["auto"]
            steps = "; ".join(f"{', '.join(t['mitigations']) or 'none'} {100 * t['accuracy']:.2f} %" for t in au["tried"])
            print(f"  --auto ({'met' if au['met'] else 'not met'}: within {au['target_drop_points']:g} points "
                  f"of FP32): {steps}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except EvalError as e:
        sys.stderr.write(f"vp-eval: {e}\n")
        sys.exit(1)
    except KeyboardInterrupt:
        sys.exit(130)
