#!/usr/bin/python3
"""vp-eval: the accuracy of a classifier on the chip, on a labelled data set.

  vp-eval MODEL.onnx --data X.npy --labels Y.npy [--calib C.npy]...
          [--chip NAME] [--set k=v]... [--config FILE]... [--seed N]
          [--mitigate adc-range,encoding,ir-drop,redundancy,averaging | --auto [--target-drop P]]
          [--adc-headroom H]
          [--redundancy N] [--redundancy-layers all|NAME,...]
          [--input-bits N[:NAME,...]|auto [--input-bits-budget R]]
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
             Chip-wide: the chip has one encoding for every crossbar
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
        out, st = os.path.join(work, "try.npy"), os.path.join(work, "try.json")
        run([vp_run, "--model", asm, *run_params, "--batch", str(k), "--input", stack, "--output", out + ":int8",
             "--stats", st, "-q", *deploy], "vp-run (averaging try)")
        y = np.load(out).reshape(k, -1).astype(np.float64)
        return float(((y - y_golden) ** 2).mean()), json.load(open(st))["firmware"]["inference_cycles_mean"]

    progress(f"averaging: measuring {len(convs)} layer(s) on {k} calibration image(s)")
    base, base_cycles = distance([])
    alone = []
    for name in convs:
        d, cyc = distance([name])
        alone.append({"layer": name, "distance": d, "cycles_per_inference": cyc})
    ranked = sorted((t for t in alone if t["distance"] < base),
                    key=lambda t: -(base - t["distance"]) / max(1.0, t["cycles_per_inference"] - base_cycles))
    chosen, cur = [], base
    for t in ranked:
        d, _ = distance(chosen + [t["layer"]])
        if d > 0.9 * cur:
            break
        chosen.append(t["layer"])
        cur = d
    return {"layers": chosen, "distance_without": base, "distance_with": cur, "alone": alone,
            "reads": int(a.average_reads)}


def crossbar_reads(vp_cc, model, common, cc_params, work):
    """Per Conv layer, crossbar activations per inference (output pixels x
    crossbars of one copy's lane), from vp-cc --report: each input bit is a
    DAC step of every one of them, the energy and time a bit costs."""
    out = run([vp_cc, model, *common, *cc_params, "-o", os.path.join(work, "report.asm"), "--report"], "vp-cc --report")
    reads = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) > 8 and f[1] == "Conv" and f[2].startswith("xbar"):
            _, h, w = (int(v) for v in f[3].split("x"))
            copies = 1
            for part in f[7].split("/")[0].split("+")[0].split("x"):
                copies *= int(part)
            reads[f[0]] = h * w * int(f[5]) / copies
    return reads


def choose_input_bits(a, vp_cc, common, cc_params, work, progress):
    """--input-bits auto: per Conv, the fewest input bits the golden model's
    output tolerates on the calibration images, within a summed budget."""
    stack, k = calibration_stack(a, work)
    out = os.path.join(work, "bits_try.npy")

    def golden(spec):
        bits = [arg for layer, b in spec.items() for arg in ("--input-bits", f"{b}:{layer}")]
        run([vp_cc, a.model, *common, *cc_params, *bits, "--reference", stack, "-o", out], "vp-cc --reference (input bits)")
        return np.load(out).reshape(k, -1).astype(np.float64)

    reads = crossbar_reads(vp_cc, a.model, common, cc_params, work)
    y8 = golden({})
    power = max(float((y8 ** 2).mean()), 1e-12)

    def distance(spec):
        return float(((golden(spec) - y8) ** 2).mean()) / power

    progress(f"input bits: measuring {len(reads)} layer(s) at 7 to 3 bits on {k} calibration image(s)")
    alone = {}
    for layer in reads:
        alone[layer] = {}
        for b in range(7, 2, -1):
            alone[layer][b] = distance({layer: b})
    budget = a.input_bits_budget
    tries = []
    while True:
        # Each layer's steps down one bit, as (DAC steps saved per unit of
        # distance added, layer, bits); a step is taken only after the one
        # above it, and only while the summed distances stay in the budget.
        chosen, spent = {layer: 8 for layer in reads}, 0.0
        while True:
            best = None
            for layer, b in chosen.items():
                if b <= 3:
                    continue
                cost = alone[layer][b - 1] - (alone[layer][b] if b < 8 else 0.0)
                if spent + max(cost, 0.0) > budget:
                    continue
                gain = reads[layer] / max(cost, 1e-12)
                if best is None or gain > best[0]:
                    best = (gain, layer, cost)
            if best is None:
                break
            chosen[best[1]] -= 1
            spent += max(best[2], 0.0)
        spec = {layer: b for layer, b in chosen.items() if b < 8}
        together = distance(spec) if spec else 0.0
        tries.append({"budget": budget, "layers": spec, "distance": together})
        if together <= a.input_bits_budget or not spec:
            break
        budget /= 2
    return {"layers": spec, "distance": together, "budget": a.input_bits_budget, "tries": tries,
            "alone": {layer: {str(b): d for b, d in v.items()} for layer, v in alone.items()}}


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
        if "encoding" in mitigations:
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
