#!/usr/bin/python3
"""vp-eval end to end on a CNN trained on scikit-learn's digits
(scripts/models/train_digits.py): the ideal chip's accuracy equals the golden
model's image for image, the golden model is within a point of FP32, device
noise moves the chip off the golden model (and the same seed gives the same
figures), 8-bit ADCs lose accuracy until the ADC ranges are calibrated
(--mitigate adc-range, which brings the chip back to the golden model),
redundant weights give back what programming noise takes, and bad inputs are
refused by name.

  vp_eval_test.py BIN_DIR WORK_DIR
"""
import json
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def vp_eval(bin_dir, args):
    r = subprocess.run([os.path.join(bin_dir, "vp-eval")] + args, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    return r.returncode, r.stdout, r.stderr


def main():
    bin_dir, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    models = os.path.join(work, "models")
    subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "models", "train_digits.py"), models],
                   check=True)
    onnx = os.path.join(models, "digits_cnn.onnx")
    data = os.path.join(models, "digits")
    x, y = os.path.join(data, "test_x.npy"), os.path.join(data, "test_y.npy")
    calib = [arg for i in range(4) for arg in ("--calib", os.path.join(data, f"calib_{i:03d}.npy"))]
    base = [onnx, "--data", x, "--labels", y] + calib
    n = len(np.load(y))

    # The ideal chip, the firmware deploying the weights by ISPP.
    out = os.path.join(work, "ideal.json")
    code, stdout, err = vp_eval(bin_dir, base + ["--json", out])
    check(code == 0, f"ideal run exits 0 (got {code}): {err}")
    r = json.load(open(out))
    acc = r["accuracy"]
    ideal_energy = r["energy_uj_per_inference"]
    print("ideal:", acc, r["chip_equals_golden"], r["cycles_per_inference"], r["energy_uj_per_inference"])
    check(r["images"] == n, "every image evaluated")
    check(r["chip_equals_golden"] == n, f"chip equals golden on every image ({r['chip_equals_golden']} of {n})")
    check(acc["chip"] == acc["golden"], "chip accuracy equals golden accuracy")
    check(abs(acc["golden"] - acc["fp32"]) <= 0.01, f"golden within 1 point of FP32 ({acc})")
    check(acc["fp32"] >= 0.95, f"the trained network classifies the digits (FP32 {acc['fp32']})")
    check(r["cycles_per_inference"] > 0 and r["energy_uj_per_inference"] > 0, "cycles and energy reported")
    check(r["deploy"]["pulses"] > 0, "the weights were deployed by ISPP")
    check("accuracy   chip" in stdout, "a summary on stdout")

    # Read noise: outputs leave the golden model's, the same seed repeats them.
    noisy = base + ["--no-deploy", "--set", "nonideal.read_noise_sigma=0.3", "--seed", "7"]
    figures = []
    for k in range(2):
        out = os.path.join(work, f"noise{k}.json")
        code, _, err = vp_eval(bin_dir, noisy + ["--json", out, "-q"])
        check(code == 0, f"noisy run exits 0 (got {code}): {err}")
        r = json.load(open(out))
        figures.append((r["accuracy"], r["chip_equals_golden"], r["cycles_per_inference"]))
    print("read noise 0.3:", figures[0])
    check(figures[0] == figures[1], "the same seed gives the same figures")
    check(figures[0][1] < n, "read noise changes the chip's outputs")
    check(figures[0][0]["golden"] == acc["golden"], "the golden model does not see the device")

    # Averaged reads: four reads of every MVM buy accuracy back from the
    # read noise, at more cycles per inference.
    out = os.path.join(work, "averaged.json")
    code, _, err = vp_eval(bin_dir, noisy + ["--mitigate", "averaging", "--json", out, "-q"])
    check(code == 0, f"averaged run exits 0 (got {code}): {err}")
    avg = json.load(open(out))
    print("read noise 0.3, 4 reads averaged:", avg["accuracy"], avg["cycles_per_inference"])
    check(avg["mitigations"] == ["averaging"], "the averaging is listed")
    check(avg["accuracy"]["chip"] > figures[0][0]["chip"], "averaged reads are more accurate than single ones")
    check(avg["cycles_per_inference"] > figures[0][2], "averaged reads take more cycles")
    # The layers chosen on the calibration images: each one kept cut the
    # distance from the golden model, and the chosen set is more accurate.
    out = os.path.join(work, "averaged_auto.json")
    code, _, err = vp_eval(bin_dir, noisy + ["--mitigate", "averaging", "--average-layers", "auto", "--json", out, "-q"])
    check(code == 0, f"averaged run with chosen layers exits 0 (got {code}): {err}")
    auto_avg = json.load(open(out))
    ch = auto_avg["averaging"]
    print("read noise 0.3, layers chosen:", ch["layers"], auto_avg["accuracy"]["chip"], auto_avg["cycles_per_inference"])
    check(len(ch["layers"]) >= 1 and len(ch["alone"]) >= len(ch["layers"]), "some layers are chosen among those measured")
    check(ch["distance_with"] < ch["distance_without"], "the chosen layers bring the chip closer to the golden model")
    check(auto_avg["accuracy"]["chip"] > figures[0][0]["chip"], "the chosen layers buy accuracy back")

    # Programming noise is in the cells, where averaged reads cannot reach
    # it; redundant copies of the weights, each programmed on its own, give
    # accuracy back, at twice the crossbars and the same MVMs.
    prog = base + ["--no-deploy", "--set", "nonideal.prog_noise_sigma=0.3", "--seed", "7"]
    runs = {}
    for k, extra in (("single", []), ("redundant", ["--mitigate", "redundancy", "--redundancy", "4"])):
        out = os.path.join(work, f"prog_{k}.json")
        code, _, err = vp_eval(bin_dir, prog + extra + ["--json", out, "-q"])
        check(code == 0, f"programming-noise run ({k}) exits 0 (got {code}): {err}")
        runs[k] = json.load(open(out))
    one, four = runs["single"], runs["redundant"]
    print("programming noise 0.3:", one["accuracy"]["chip"], "4 copies:", four["accuracy"]["chip"],
          one["crossbars"], four["crossbars"])
    check(four["mitigations"] == ["redundancy"], "the redundancy is listed")
    check(four["accuracy"]["chip"] >= one["accuracy"]["chip"] + 0.03,
          "four copies of the weights are at least 3 points more accurate than one")
    check(four["crossbars"] >= 2 * one["crossbars"], "the copies take crossbars of their own")

    # IR drop at 4 Ohm per cell (up to 8 % of a cell's read lost, by position):
    # levels pre-distorted by the compiler read back as the weights again.
    drop = base + ["--no-deploy", "--set", "nonideal.ir_drop_ohm_per_cell=4"]
    irs = {}
    for k, extra in (("plain", []), ("compensated", ["--mitigate", "ir-drop"])):
        out = os.path.join(work, f"ir_{k}.json")
        code, _, err = vp_eval(bin_dir, drop + extra + ["--json", out, "-q"])
        check(code == 0, f"IR-drop run ({k}) exits 0 (got {code}): {err}")
        irs[k] = json.load(open(out))
    print("IR drop 4 Ohm:", irs["plain"]["accuracy"]["chip"], "compensated:", irs["compensated"]["accuracy"]["chip"])
    check(irs["compensated"]["accuracy"]["chip"] >= irs["plain"]["accuracy"]["chip"] + 0.02,
          "pre-distorted levels give back at least 2 points")
    check(irs["compensated"]["cycles_per_inference"] == irs["plain"]["cycles_per_inference"],
          "the pre-distortion costs no cycles")

    # Input bits chosen per layer on the calibration images: the chosen set
    # stays within the budget on them, the chip still equals the golden
    # model (which computes with the same bits), and the inference takes
    # less energy than at 8 bits.
    out = os.path.join(work, "input_bits.json")
    code, _, err = vp_eval(bin_dir, base + ["--no-deploy", "--input-bits", "auto", "--input-bits-budget", "0.01",
                                            "--json", out, "-q"])
    check(code == 0, f"--input-bits auto exits 0 (got {code}): {err}")
    bits = json.load(open(out))
    ib = bits["input_bits"]
    print("input bits chosen:", ib["layers"], ib["distance"], bits["accuracy"], bits["energy_uj_per_inference"])
    check(len(ib["layers"]) >= 1 and all(2 <= b < 8 for b in ib["layers"].values()), "some layers read fewer bits")
    check(ib["distance"] <= 0.01, "the chosen widths keep the output within the budget on the calibration images")
    check(bits["chip_equals_golden"] == n, "the chip computes the reduced widths exactly as the golden model")
    check(bits["energy_uj_per_inference"] < ideal_energy, "fewer DAC steps take less energy")
    check(bits["accuracy"]["golden"] >= acc["golden"] - 0.02, "within 2 points of the 8-bit golden model")

    # Weight bits chosen per layer the same way: the chip equals the golden
    # model (which computes with the narrower weights), some layers take
    # fewer bits within the budget, and the program sets their crossbars'
    # format with xfmt.
    out = os.path.join(work, "weight_bits.json")
    wb_work = os.path.join(work, "weight_bits")
    code, _, err = vp_eval(bin_dir, base + ["--no-deploy", "--weight-bits", "auto", "--weight-bits-budget", "0.01",
                                            "--json", out, "-q", "--work", wb_work])
    check(code == 0, f"--weight-bits auto exits 0 (got {code}): {err}")
    wbits = json.load(open(out))
    wb = wbits["weight_bits"]
    print("weight bits chosen:", wb["layers"], wb["distance"], wbits["accuracy"])
    check(len(wb["layers"]) >= 1 and all(2 <= b < 8 for b in wb["layers"].values()), "some layers take fewer bits")
    check(all(set(v) == {"6", "4", "2"} for v in wb["alone"].values()), "the widths of 3, 2 and 1 slices are measured")
    check(wb["distance"] <= 0.01, "the chosen widths keep the output within the budget on the calibration images")
    check(wbits["chip_equals_golden"] == n, "the chip computes the narrower weights exactly as the golden model")
    check(wbits["accuracy"]["golden"] >= acc["golden"] - 0.02, "within 2 points of the 8-bit golden model")
    asm = open(os.path.join(wb_work, "model.asm")).read()
    check(asm.count("xfmt ") > 0, "the program sets the layers' weight format with xfmt")
    # A budget tighter than the 8-bit network's own distance from the
    # 12-bit one: the most sensitive layers are widened to 12 bits first.
    out = os.path.join(work, "weight_bits_wide.json")
    code, _, err = vp_eval(bin_dir, base + ["--no-deploy", "--weight-bits", "auto", "--weight-bits-budget", "1e-5",
                                            "--json", out, "-q"])
    check(code == 0, f"--weight-bits auto with a tight budget exits 0 (got {code}): {err}")
    wide = json.load(open(out))
    wd = wide["weight_bits"]["widened"]
    print("weight bits widened:", wd["layers"], wd["distance_8"], wd["distance"])
    check(wd["distance_8"] > 1e-5 and len(wd["layers"]) >= 1 and set(wd["layers"].values()) == {12},
          "layers are widened to 12 bits when the 8-bit network is outside the budget")
    check(wd["distance"] < wd["distance_8"], "the widened layers bring the output closer to the 12-bit network")
    check(all(wide["weight_bits"]["layers"][layer] == 12 for layer in wd["layers"]), "the widened layers are kept")
    check(wide["chip_equals_golden"] == n, "the chip computes 12-bit weights exactly as the golden model")

    # The encoding per layer on the measured-device preset, with calibrated
    # ranges: the layers chosen bring the chip closer to the golden model
    # than offset slices everywhere, and the accuracy is at least that of
    # the ranges alone.
    analog = base + ["--chip", "sidra-y1-analog", "--no-deploy"]
    encs = {}
    for k, extra in (("offset", ["--mitigate", "adc-range"]),
                     ("auto", ["--mitigate", "adc-range,encoding", "--encoding-layers", "auto"])):
        out = os.path.join(work, f"enc_{k}.json")
        code, _, err = vp_eval(bin_dir, analog + extra + ["--json", out, "-q"])
        check(code == 0, f"encoding run ({k}) exits 0 (got {code}): {err}")
        encs[k] = json.load(open(out))
    ch = encs["auto"]["encoding"]
    print("encoding per layer:", ch["layers"], ch["distance_without"], ch["distance_with"],
          encs["offset"]["accuracy"]["chip"], encs["auto"]["accuracy"]["chip"])
    check(len(ch["layers"]) >= 1 and ch["distance_with"] < ch["distance_without"],
          "differential layers are chosen and bring the chip closer to the golden model")
    check(encs["auto"]["accuracy"]["chip"] >= encs["offset"]["accuracy"]["chip"],
          "the chosen encoding is at least as accurate as offset slices everywhere")

    # 8-bit ADCs at the configured full scale lose accuracy; ranges measured
    # on the calibration images give it back, byte for byte here.
    quant = base + ["--no-deploy", "--set", "adc.mode=quantize"]
    out = os.path.join(work, "quant.json")
    code, _, err = vp_eval(bin_dir, quant + ["--json", out, "-q"])
    check(code == 0, f"quantized run exits 0: {err}")
    plain = json.load(open(out))
    out = os.path.join(work, "ranged.json")
    ranged_work = os.path.join(work, "ranged")
    code, _, err = vp_eval(bin_dir, quant + ["--mitigate", "adc-range", "--json", out, "-q", "--work", ranged_work])
    check(code == 0, f"calibrated run exits 0: {err}")
    ranged = json.load(open(out))
    print("8-bit ADC:", plain["accuracy"]["chip"], "calibrated:", ranged["accuracy"]["chip"], ranged["adc_ranges_set"])
    check(plain["chip_equals_golden"] < n and plain["accuracy"]["chip"] < acc["golden"],
          "the configured full scale costs accuracy")
    check(ranged["chip_equals_golden"] == n, f"calibrated ranges: chip equals golden ({ranged['chip_equals_golden']})")
    check(ranged["adc_ranges_set"] > 0 and ranged["mitigations"] == ["adc-range"], "ranges were set")
    profile = json.load(open(os.path.join(ranged_work, "adc_profile.json")))
    check(profile["format"] == "vp-adc-profile" and profile["adc"]["bits"] == 8, "the profile names its ADC")
    check(all(0 <= c["max_column_sum"] <= profile["adc"]["max_column_sum"] for c in profile["crossbars"]),
          "measured sums within the possible range")
    asm = open(os.path.join(ranged_work, "model.asm")).read()
    check(asm.count("xadc ") > 0, "the program sets ADC ranges with xadc")

    # --auto on the measured-device preset: tries in order of cost, keeps the
    # first within the target (or the last), and says which.
    out = os.path.join(work, "auto.json")
    code, stdout, err = vp_eval(bin_dir, base + ["--chip", "sidra-y1-analog", "--no-deploy", "--auto",
                                                 "--target-drop", "1", "--json", out])
    check(code == 0, f"--auto exits 0: {err}")
    auto = json.load(open(out))
    tried = auto["auto"]["tried"]
    print("auto:", [(t["mitigations"], t["accuracy"]) for t in tried])
    check(tried[0]["mitigations"] == [] and len(tried) >= 2, "--auto starts without mitigations and goes on")
    check(auto["mitigations"] == tried[-1]["mitigations"], "the result is the last try's")
    check(all(100 * (auto["accuracy"]["fp32"] - t["accuracy"]) > 1 for t in tried[:-1]), "earlier tries missed")
    check(auto["auto"]["met"] == (100 * (auto["accuracy"]["fp32"] - auto["accuracy"]["chip"]) <= 1), "met is honest")
    check("--auto (" in stdout, "the summary says what --auto chose")

    # vp-cc --adc-ranges on profiles that are not: named errors.
    vp_cc = os.path.join(bin_dir, "vp-cc")
    head = '{"format": "vp-adc-profile", "version": 1, "crossbars_per_cu": 16, "crossbars": '
    for name, text, want in [("garbage.json", "{", "not JSON"),
                             ("other.json", '{"format": "x"}', "expected an ADC profile"),
                             ("chip.json", head.replace("16", "3") + "[]}", "crossbars per CU"),
                             ("far.json", head + '[{"crossbar": 99999999, "max_column_sum": 1}]}', "outside"),
                             ("negative.json", head + '[{"crossbar": 0, "max_column_sum": -1}]}', "finite sum")]:
        bad = os.path.join(work, name)
        with open(bad, "w") as f:
            f.write(text)
        r = subprocess.run([vp_cc, onnx, *calib, "-o", os.path.join(work, "bad", "m.asm"), "--adc-ranges", bad],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        check(r.returncode != 0 and name in r.stderr and want in r.stderr, f"{name}: {r.returncode} {r.stderr}")
    check(not os.path.exists(os.path.join(work, "bad", "m.asm")), "no program from a bad profile")
    r = subprocess.run([vp_cc, onnx, "-o", os.path.join(work, "bad", "m.asm"), "--adc-headroom", "0.5"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    check(r.returncode == 2 and "--adc-headroom" in r.stderr, f"headroom below 1 is a usage error: {r.stderr}")
    code, _, err = vp_eval(bin_dir, base + ["--mitigate", "frob"])
    check(code == 2 and "frob" in err, "an unknown mitigation is a usage error")
    for bad in ("9", "x", "4:", "4:a,,b"):
        code, _, err = vp_eval(bin_dir, base + ["--input-bits", bad])
        check(code == 2 and "--input-bits" in err, f"--input-bits {bad} is a usage error: {code} {err}")
    for bad in ("13", "1", "x", "4:", "4:a,,b"):
        code, _, err = vp_eval(bin_dir, base + ["--weight-bits", bad])
        check(code == 2 and "--weight-bits" in err, f"--weight-bits {bad} is a usage error: {code} {err}")
    code, _, err = vp_eval(bin_dir, base + ["--encoding-layers", "a,,b"])
    check(code == 2 and "--encoding-layers" in err, f"an empty layer name is a usage error: {code} {err}")
    code, _, err = vp_eval(bin_dir, base + ["--mitigate", "encoding", "--encoding-layers", "no_such_conv", "-q"])
    check(code == 1 and "no_such_conv" in err, f"an unknown layer is vp-cc's named error: {code} {err}")
    code, _, err = vp_eval(bin_dir, base + ["--redundancy", "3"])
    check(code == 2 and "--redundancy 3" in err, f"--redundancy 3 is a usage error: {code} {err}")
    code, _, err = vp_eval(bin_dir, base + ["--mitigate", "redundancy", "--redundancy-layers", "no_such_conv", "-q"])
    check(code == 1 and "no_such_conv" in err, f"an unknown layer is vp-cc's named error: {code} {err}")

    # The same accuracy from vp-sweep (batch: and a labels metric), against
    # read noise: the ideal point equals vp-eval's, noise costs accuracy.
    sweep = os.path.join(work, "noise.yaml")
    calib_args = ", ".join(f'"--calib", "{os.path.join(data, f"calib_{i:03d}.npy")}"' for i in range(4))
    with open(sweep, "w") as f:
        f.write(f"""name: digits-noise
model: {onnx}
preset: sidra-y1
inputs: [{x}]
outputs: [y.npy:int8]
batch: {n}
inferences_per_run: {n}
parameters:
  nonideal.read_noise_sigma: [0, 0.3]
metrics:
  - {{name: accuracy, labels: {y}, output: y.npy}}
compiler:
  args: ["{{model}}", "-o", "{{out}}/model.asm", "--chip", "{{preset}}", "{{sets}}", {calib_args}]
  program: model.asm
""")
    r = subprocess.run([os.path.join(bin_dir, "vp-sweep"), sweep, "-o", os.path.join(work, "sweep"), "-j2", "-q"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    check(r.returncode == 0, f"vp-sweep exits 0: {r.stderr}")
    rows = {}
    with open(os.path.join(work, "sweep", "results.csv")) as f:
        header = f.readline().strip().split(",")
        for line in f:
            cells = dict(zip(header, line.strip().split(",")))
            rows[cells["nonideal.read_noise_sigma"]] = float(cells["accuracy"] or "nan")
    print("sweep:", rows)
    check(rows.get("0") == acc["golden"], f"the sweep's ideal point has the golden accuracy ({rows})")
    check(rows.get("0.3", 1.0) < acc["golden"], f"read noise costs accuracy in the sweep ({rows})")
    check(os.path.exists(os.path.join(work, "sweep", "plots", "accuracy-vs-nonideal_read_noise_sigma.png")),
          "accuracy plotted against the noise")

    # Bad inputs: named, exit 1; usage errors exit 2.
    bad_labels = os.path.join(work, "bad_labels.npy")
    np.save(bad_labels, np.load(y)[:-1])
    code, _, err = vp_eval(bin_dir, [onnx, "--data", x, "--labels", bad_labels] + calib)
    check(code == 1 and "bad_labels.npy" in err and f"for {n} images" in err, f"label count mismatch named: {code} {err}")
    bad_data = os.path.join(work, "bad_data.npy")
    np.save(bad_data, np.load(x).astype(np.float64))
    code, _, err = vp_eval(bin_dir, [onnx, "--data", bad_data, "--labels", y] + calib)
    check(code == 1 and "bad_data.npy" in err and "float32" in err, f"float64 data named: {code} {err}")
    code, _, err = vp_eval(bin_dir, [os.path.join(work, "missing.onnx"), "--data", x, "--labels", y])
    check(code == 1 and "missing.onnx" in err, f"a missing model is vp-cc's named error: {code} {err}")
    code, _, err = vp_eval(bin_dir, [onnx, "--labels", y])
    check(code == 2, f"no --data is a usage error: {code}")

    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("vp_eval_test: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
