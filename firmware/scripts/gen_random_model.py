#!/usr/bin/env python3
"""A model that fills N crossbars with random target levels, for measuring
deployment (docs/firmware.md, "Figures"). Writes OUT.s and OUT.cells.bin:
crossbars are packed CU by CU (XBARS per CU, CUS per cluster), each CU gets
a one-instruction program, and the levels come from the .incbin file.

    gen_random_model.py OUT --xbars 128 [--rows 256 --cols 256 --cell-bits 2]
                        [--xbars-per-cu 16 --cus-per-cluster 25 --seed 1]
"""
import argparse
import random


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--xbars", type=int, default=128)
    ap.add_argument("--rows", type=int, default=256)
    ap.add_argument("--cols", type=int, default=256)
    ap.add_argument("--cell-bits", type=int, default=2)
    ap.add_argument("--xbars-per-cu", type=int, default=16)
    ap.add_argument("--cus-per-cluster", type=int, default=25)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    cells = a.rows * a.cols
    top = (1 << a.cell_bits) - 1
    with open(a.out + ".cells.bin", "wb") as f:
        for _ in range(a.xbars):
            f.write(bytes(rng.randint(0, top) for _ in range(cells)))
    cores = (a.xbars + a.xbars_per_cu - 1) // a.xbars_per_cu
    name = a.out.rsplit("/", 1)[-1] + ".cells.bin"
    lines = [f"; {a.xbars} crossbars of {a.rows}x{a.cols} random levels (seed {a.seed})",
             f".chip rows={a.rows}, cols={a.cols}, cell_bits={a.cell_bits}"]
    for c in range(cores):
        lines += [f".core {c // a.cus_per_cluster}, {c % a.cus_per_cluster}", "    halt"]
    for x in range(a.xbars):
        c, k = divmod(x, a.xbars_per_cu)
        lines += [f".xbar {c // a.cus_per_cluster}, {c % a.cus_per_cluster}, {k}, 0, 0, {a.rows}, {a.cols}",
                  f'    .incbin "{name}", {x * cells}, {cells}']
    with open(a.out + ".s", "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
