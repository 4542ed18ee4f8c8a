"""The chip's figures from vp-run's statistics: one definition for the
Python API and compiler/tools/check_model.py (which loads this file by its
path, so it needs no built module)."""


def param_sets(params, kwparams):
    """{"xbar.read_ns": 50} and xbar__read_ns=50 -> ["xbar.read_ns=50"] (vp-run's --set)."""
    out = []
    items = list((params or {}).items()) + [(k.replace("__", "."), v) for k, v in kwparams.items()]
    for name, value in items:
        if isinstance(value, bool):
            value = "true" if value else "false"
        out.append("%s=%s" % (name, value))
    return out


def chip_figures(stats):
    """Cycles, energy per inference, crossbars and deployment from a run's statistics."""
    fw = stats.get("firmware", {})
    run = stats.get("run", {})
    xb = stats.get("crossbar", {})
    en = stats.get("energy_pj", {})
    ispp = stats.get("ispp", {})
    busiest = stats.get("noc", {}).get("busiest_link", {})
    mhz = run.get("clock_mhz", 0.0)
    total_cycles = run.get("cycles", 0)
    inf = fw.get("inference_cycles_mean") or total_cycles
    n = fw.get("inferences") or 1
    # Energy of the inferences: everything but the weight deployment (ISPP
    # pulses and verify reads) and the leakage of the cycles outside the
    # inferences (load and deployment).
    total = en.get("total", 0.0)
    leak = en.get("leakage", 0.0)
    inf_cycles = sum(fw.get("inference_cycles", [])) or total_cycles
    outside = max(0, total_cycles - inf_cycles)
    leak_outside = leak * outside / total_cycles if total_cycles else 0.0
    e_inf = (total - en.get("ispp", 0.0) - leak_outside) / n
    return {
        "clock_mhz": mhz,
        "cycles_total": total_cycles,
        "inferences": n,
        "inference_cycles": inf,
        "inference_us": inf / mhz if mhz else 0.0,
        "inferences_per_s": mhz * 1e6 / inf if inf else 0.0,
        # A stream's period once it is full (vp-cc --batch N, 4 or more
        # images); 0 otherwise.
        "stream_period_cycles": fw.get("stream_period_cycles", 0.0),
        "energy_per_inference_uj": e_inf / 1e6,
        "dynamic_energy_per_inference_uj": (total - en.get("ispp", 0.0) - leak) / n / 1e6,
        "energy_total_uj": total / 1e6,
        "deploy_cycles": fw.get("deploy_cycles", 0),
        "deploy_us": fw.get("deploy_us", 0.0),
        "deploy_energy_uj": en.get("ispp", 0.0) / 1e6,
        "pulses": fw.get("pulses", ispp.get("pulses", 0)),
        "failed_cells": fw.get("failed_cells", ispp.get("failed_cells", 0)),
        "retries": fw.get("retries", 0),
        "rows_programmed": fw.get("rows_programmed", ispp.get("rows_programmed", 0)),
        "crossbars_used": xb.get("crossbars_used"),
        "crossbars_total": xb.get("crossbars_total"),
        # The NoC link busy the longest over the whole run (the program's
        # load and the deployment included), and its busy cycles: no run
        # with this traffic is shorter.
        "busiest_link": busiest.get("link"),
        "busiest_link_busy_cycles": busiest.get("busy_cycles", 0),
    }
