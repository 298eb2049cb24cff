"""In-run analysis of a rotating drum (scenes/drum-quick.toml, Fr = 0.01): every 0.1 s the
callback fits the free surface, and measures the flowing layer's thickness on the line
through the drum's axis normal to the surface: the depth at which the mean velocity along
the surface (downhill positive) changes sign, below which the bed turns with the drum
(002 §6.3). Nothing is written to disk; the numbers come from the views while the run goes on.

    python examples/python/drum_layer.py

GRAINFLOW_EXAMPLE_SHORT=1 stops at 0.6 s (CI), as the drum comes up to speed.
"""

import os
import pathlib

import numpy as np

import grainflow as gf

SHORT = os.environ.get("GRAINFLOW_EXAMPLE_SHORT") == "1"
SCENE = pathlib.Path(__file__).resolve().parents[2] / "scenes" / "drum-quick.toml"
LINING = 0.0215  # grains farther from the axis (m) are the glued lining
BIN = 2e-3  # one grain diameter (m)


def surface(x, top):
    """The free surface y = a + b x fitted to the highest grain top per bin of one diameter
    within 12 mm of the axis; None when the bed has no such surface yet."""
    centres, heights = [], []
    for lo in np.arange(-0.012, 0.012, BIN):
        inside = (x >= lo) & (x < lo + BIN)
        if inside.any():
            centres.append(x[inside].mean())
            heights.append(top[inside].max())
    if len(centres) < 4:
        return None
    b, a = np.polyfit(centres, heights, 1)
    return a, b


def flowing_layer(sim):
    """(surface angle in degrees, flowing-layer thickness in m, fastest mean downhill speed
    in m/s) of the bed now."""
    p, v, r = sim.positions, sim.velocities, sim.radii
    bed = np.hypot(p[:, 0], p[:, 1]) < LINING
    x, y = p[bed, 0], p[bed, 1]
    fit = surface(x, y + r[bed])
    if fit is None:
        return float("nan"), float("nan"), float("nan")
    a, b = fit
    norm = np.hypot(1.0, b)
    downhill = -np.sign(b) * np.array([1.0, b]) / norm if b != 0 else np.array([1.0, 0.0])
    depth = (a + b * x - y) / norm
    along = (x - 0.0) * downhill[0] + (y - a) * downhill[1]
    column = np.abs(along) < 2 * BIN
    speed = v[bed][:, :2] @ downhill
    edges = np.arange(0.0, depth[column].max() + BIN / 2, BIN / 2)
    means = []
    for lo in edges:
        inside = column & (depth >= lo) & (depth < lo + BIN / 2)
        means.append(speed[inside].mean() if inside.any() else np.nan)
    means = np.array(means)
    thickness = float("nan")
    for k in range(1, len(means)):
        if means[k - 1] > 0.0 >= means[k]:
            # The sign change, interpolated between the bins' centres.
            t = means[k - 1] / (means[k - 1] - means[k])
            thickness = float(edges[k - 1] + BIN / 4 + t * BIN / 2)
            break
    return float(np.degrees(np.arctan(abs(b)))), thickness, float(np.nanmax(means))


def main():
    sim = gf.Simulation.from_toml(SCENE)
    print(f"{sim}\n   t (s)   drum (rad/s)   angle (deg)   layer (mm)   u_max (m/s)")

    def report(s):
        # The drum's angular speed, from the pose of its cylinder (0 while the bed settles).
        omega = float(np.linalg.norm(s.walls[0]["omega"]))
        angle, thickness, fastest = flowing_layer(s) if omega > 0 else (np.nan,) * 3
        print(f"{s.time:8.3f}   {omega:12.4f}   {angle:11.1f}   {1e3 * thickness:10.2f}"
              f"   {fastest:11.4f}")

    sim.run(0.6 if SHORT else 1.46, every=0.1, callback=report)


if __name__ == "__main__":
    main()
