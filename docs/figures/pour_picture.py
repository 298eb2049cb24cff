#!/usr/bin/env python3
"""Draw the README picture: the built-in `pour` scene at its start and its end, seen from the side.

How to run (from the repository root, after `cargo run --release -- run`, which writes out/):
  venv/bin/python docs/figures/pour_picture.py [OUTDIR]
Reads the first and last frames of OUTDIR/particles.dump (default out/) and writes
docs/figures/pour.png: circles of the true radii in the x–z plane, coloured by speed.
"""
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.collections import PatchCollection
from matplotlib.patches import Circle


def frames(path):
    lines = Path(path).read_text().splitlines()
    k = 0
    while k < len(lines):
        if lines[k] == "ITEM: TIMESTEP":
            step = int(lines[k + 1])
            n = int(lines[k + 3])
            cols = lines[k + 8].split()[2:]
            rows = [dict(zip(cols, map(float, l.split()))) for l in lines[k + 9 : k + 9 + n]]
            yield step, rows
            k += 9 + n
        else:
            k += 1


def main():
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "out")
    all_frames = list(frames(out / "particles.dump"))
    picks = [all_frames[0], all_frames[len(all_frames) // 8], all_frames[-1]]
    fig, axes = plt.subplots(1, 3, figsize=(11, 4.2), sharey=True)
    titles = ["released (t = 0)", "landing", "at rest"]
    for ax, (step, rows), title in zip(axes, picks, titles):
        rows = sorted(rows, key=lambda r: r["y"])  # far grains first
        speed = [(r["vx"] ** 2 + r["vy"] ** 2 + r["vz"] ** 2) ** 0.5 for r in rows]
        patches = [Circle((1e3 * r["x"], 1e3 * r["z"]), 1e3 * r["radius"]) for r in rows]
        pc = PatchCollection(patches, cmap="viridis", edgecolor="k", linewidth=0.2)
        pc.set_array(speed)
        pc.set_clim(0, 1.2)
        ax.add_collection(pc)
        ax.set_xlim(-23, 23)
        ax.set_ylim(0, 125)
        ax.set_aspect("equal")
        ax.axhline(0, color="k", lw=1.5)
        for x in (-22.5, 22.5):
            ax.axvline(x, color="k", lw=1.5)
        ax.set_title(f"{title}, step {step}")
        ax.set_xlabel("x (mm)")
    axes[0].set_ylabel("z (mm)")
    cbar = fig.colorbar(pc, ax=axes, shrink=0.8)
    cbar.set_label("speed (m/s)")
    fig.suptitle("grainflow run: 2000 glass beads (002 Table 2) poured into a 45 mm box, Hertz–Mindlin with rolling friction")
    fig.savefig(Path(__file__).with_name("pour.png"), dpi=110, bbox_inches="tight")


if __name__ == "__main__":
    main()
