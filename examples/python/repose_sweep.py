"""Angle of repose against rolling friction: glass beads poured onto a rough floor in a
periodic slab form a ridge whose flanks steepen as the rolling friction rises (002 §5,
Fig. 7). The angle is fitted to the ridge's surface between a quarter and three quarters of
its height; the plot goes to docs/figures/python-repose.png (or into the folder given as the
argument).

    python examples/python/repose_sweep.py [OUT_DIR]

GRAINFLOW_EXAMPLE_SHORT=1 runs a few grains for a few steps (CI), which shows the code runs,
not the physics.
"""

import os
import pathlib
import sys

import numpy as np

import grainflow as gf

SHORT = os.environ.get("GRAINFLOW_EXAMPLE_SHORT") == "1"
RADIUS = 1.5e-3  # mean grain radius (m), ±10 %
DEPTH = 8 * RADIUS  # periodic slab thickness (m)
POUR = 0.15 if SHORT else 1.25  # s of pouring at RATE
RATE = 1200.0  # grains/s
SETTLE = 0.05 if SHORT else 0.75  # s after the pour
MU_R = [0.0, 0.2] if SHORT else [0.0, 0.05, 0.1, 0.15, 0.2]


def scene(mu_r):
    """The pour with rolling friction mu_r between the beads."""
    glass = {"name": "glass", "density": 2500.0, "youngs_modulus": 10e6, "poisson_ratio": 0.24,
             "restitution": 0.5, "sliding_friction": 0.5, "rolling_friction": mu_r}
    floor = {"name": "floor", "youngs_modulus": 10e6, "poisson_ratio": 0.24,
             "restitution": 0.5, "sliding_friction": 0.9, "rolling_friction": 0.3}
    return {
        "simulation": {"duration": POUR + SETTLE, "dt": "auto", "seed": 1,
                       "domain": [[-0.16, -0.01, -0.01], [0.16, 0.2, DEPTH + 0.01]]},
        "contact": {"normal": "hertz", "tangential": "spring", "rolling": "constant",
                    "characteristic_velocity": 1.5},
        "materials": [glass, floor],
        "gravity": {"uniform": [0.0, -9.81, 0.0]},
        "boundary": {"periodic": {"z": [0.0, DEPTH]}},
        "walls": [
            {"type": "plane", "material": "floor", "point": [0, 0, 0], "normal": [0, 1, 0]},
            {"type": "plane", "material": "floor", "point": [-0.15, 0, 0], "normal": [1, 0, 0]},
            {"type": "plane", "material": "floor", "point": [0.15, 0, 0], "normal": [-1, 0, 0]},
        ],
        "inserts": [{"materials": [{"name": "glass", "fraction": 1.0}],
                     "region": {"box": {"min": [-0.006, 0.10, 0.0], "max": [0.006, 0.115, DEPTH]}},
                     "rate": RATE, "end": POUR, "velocity": [0.0, -0.5, 0.0],
                     "size": {"uniform": {"min": 0.9 * RADIUS, "max": 1.1 * RADIUS}}}],
    }


def ridge_angle(x, top):
    """The flank angle (degrees) of the ridge whose surface is `top` (m) over `x` (m): the
    highest grain top per bin of one diameter, fitted by h = a + b |x - x_peak| between a
    quarter and three quarters of the peak height."""
    bins = np.arange(x.min(), x.max() + 2 * RADIUS, 2 * RADIUS)
    which = np.digitize(x, bins)
    centres, heights = [], []
    for k in np.unique(which):
        centres.append(x[which == k].mean())
        heights.append(top[which == k].max())
    centres, heights = np.array(centres), np.array(heights)
    peak = heights.max()
    flank = (heights > 0.25 * peak) & (heights < 0.75 * peak)
    if flank.sum() < 3:
        return float("nan")
    distance = np.abs(centres[flank] - centres[np.argmax(heights)])
    slope = np.polyfit(distance, heights[flank], 1)[0]
    return float(np.degrees(np.arctan(-slope)))


def main(out):
    angles = []
    for mu_r in MU_R:
        sim = gf.Simulation.from_dict(scene(mu_r))
        sim.run(POUR + SETTLE)
        angle = ridge_angle(sim.positions[:, 0], sim.positions[:, 1] + sim.radii)
        angles.append(angle)
        print(f"mu_r = {mu_r:.2f}: {len(sim)} grains, angle of repose {angle:.1f} deg")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 3.5))
    ax.plot(MU_R, angles, "o-")
    ax.set_xlabel("rolling friction $\\mu_r$")
    ax.set_ylabel("angle of repose (deg)")
    ax.set_title("Poured ridge, glass beads d = 3 mm" + (" (short run)" if SHORT else ""))
    ax.grid(alpha=0.3)
    fig.tight_layout()
    out.mkdir(parents=True, exist_ok=True)
    fig.savefig(out / "python-repose.png", dpi=120)
    print(f"plot: {out / 'python-repose.png'}")


if __name__ == "__main__":
    root = pathlib.Path(__file__).resolve().parents[2]
    main(pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else root / "docs" / "figures")
