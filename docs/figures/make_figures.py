#!/usr/bin/env python3
"""Make the validation figures of docs/validation.md.

What it runs
  * `grainflow validate restitution --full --json`     (002 §4.1.3, e = 0, 0.01, …, 1)
  * `grainflow validate oblique-impact --full --json`  (002 §4.1.4, φ = 2°, 3°, …, 88°)
  The JSON holds only the checked points: Flores for e ≥ 0.8, oblique impacts past φ_th.
  To show the rest, the script also runs the same two-body set-ups as ordinary scenes
  (`grainflow run` on TOML files it writes to a temporary folder, reading the final
  particles.dump): Flores at e = 0.05 … 0.75 and every model at φ ≤ φ_th. These extra
  points are drawn hollow and are not pass/fail metrics.

What it writes (next to this script)
  restitution.png  measured e' against input e for hooke, hertz, flores, with y = x,
                   and e' − e below with the ±0.01 tolerance band;
  oblique.png      ω' and e'_t against impact angle φ, with 002 eq 24 (ω' = 5/2 μ(1+e) v_n/r)
                   and eq 25 (e'_t = 1 − μ(1+e)/tan φ, tan φ as the code uses) and φ_th (eq 23).

How to run (from the repository root)
  cargo build --release
  python3 -m venv venv && venv/bin/pip install matplotlib   # any Python 3 with matplotlib and numpy
  venv/bin/python docs/figures/make_figures.py [--grainflow PATH]
PATH defaults to target/release/grainflow in the repository. Takes a few seconds.
"""
import argparse
import json
import math
import subprocess
import tempfile
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
MODELS = ["hooke", "hertz", "flores"]
COLORS = {"hooke": "tab:blue", "hertz": "tab:orange", "flores": "tab:green"}
MARKERS = {"hooke": "o", "hertz": "s", "flores": "^"}

# 002 Table 1 bodies: d = 1 m, m = 1 kg, E = 0.5 MPa, ν = 0.3, dt = 10 µs (as validation/two_body.rs).
R = 0.5
DENSITY = 1.0 / (4.0 / 3.0 * math.pi * R**3)
MU, E_OBLIQUE = 0.3, 1.0


def validate(gf, case):
    out = subprocess.run([gf, "validate", case, "--full", "--json"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def scene(normal, e, spheres, plane, duration):
    """A Table 1 scene as TOML: `spheres` is a list of (pos, vel) pairs."""
    body = ",\n".join(
        f"  {{ pos = [{p[0]!r}, {p[1]!r}, {p[2]!r}], radius = {R}, vel = [{v[0]!r}, {v[1]!r}, {v[2]!r}] }}"
        for p, v in spheres)
    wall = ('[[walls]]\ntype = "plane"\nmaterial = "body"\npoint = [0.0, 0.0, 0.0]\n'
            'normal = [0.0, 0.0, 1.0]\n') if plane else ""
    return f"""[simulation]
duration = {duration}
dt = 1e-5
skin = 0.05

[contact]
normal = "{normal}"
characteristic_velocity = 1.0

[[materials]]
name = "body"
density = {DENSITY!r}
youngs_modulus = 0.5e6
poisson_ratio = 0.3
restitution = {e!r}
sliding_friction = {MU}

{wall}
[[particles]]
type = "list"
material = "body"
spheres = [
{body}
]

[output]
snapshot_interval = {duration}
"""


def final_state(gf, toml, work):
    """Runs a scene; returns the last dump frame as a list of dicts keyed by column name."""
    work.mkdir(parents=True, exist_ok=True)
    (work / "scene.toml").write_text(toml)
    subprocess.run([gf, "run", str(work / "scene.toml"), "--out", str(work / "out"), "--overwrite"],
                   check=True, capture_output=True)
    lines = (work / "out" / "particles.dump").read_text().splitlines()
    head = max(i for i, l in enumerate(lines) if l.startswith("ITEM: ATOMS"))
    cols = lines[head].split()[2:]
    n = int(lines[head - 5])
    return [dict(zip(cols, map(float, l.split()))) for l in lines[head + 1:head + 1 + n]]


def by_model(metrics, prefix):
    """{model: [(parameter, value, expected)]} for metrics named `prefix <number>…`."""
    out = {m: [] for m in MODELS}
    for m in metrics:
        if m["metric"].startswith(prefix):
            x = float(m["metric"][len(prefix):].split()[0].rstrip("°"))
            out[m["model"]].append((x, m["value"], m["expected"]))
    return out


def restitution_figure(gf, tmp):
    pts = by_model(validate(gf, "restitution"), "e' at e =")
    extra = []
    for k in range(1, 16):  # Flores below e = 0.8: shown, not checked (Flores et al. 2011)
        e = 0.05 * k
        s = final_state(gf, scene("flores", e, [((-0.51, 0.0, 0.0), (0.5, 0.0, 0.0)),
                                                 ((0.51, 0.0, 0.0), (-0.5, 0.0, 0.0))],
                                  False, 0.5), tmp / f"flores_e{k}")
        extra.append((e, s[1]["vx"] - s[0]["vx"]))
    fig, (ax, res) = plt.subplots(2, 1, figsize=(6.2, 7.0), sharex=True,
                                  gridspec_kw={"height_ratios": [3, 1.3]})
    ax.plot([0, 1], [0, 1], "k-", lw=0.8, label="y = x (input e)")
    for m in MODELS:
        x, y, _ = zip(*pts[m])
        ms = 5.5 if m == "hooke" else 3.5  # Hooke and Hertz coincide: Hooke drawn larger, below
        ax.plot(x, y, MARKERS[m], ms=ms, color=COLORS[m], label=f"{m} (validate, checked)")
        res.plot(x, [b - a for a, b in zip(x, y)], MARKERS[m], ms=ms, color=COLORS[m])
    xe, ye = zip(*extra)
    ax.plot(xe, ye, MARKERS["flores"], ms=5, mfc="none", color=COLORS["flores"],
            label="flores, e < 0.8 (grainflow run, not checked)")
    res.plot(xe, [b - a for a, b in zip(xe, ye)], MARKERS["flores"], ms=5, mfc="none",
             color=COLORS["flores"])
    res.axhspan(-0.01, 0.01, color="0.85", label="±0.01 (Hooke, Hertz tolerance)")
    res.axhline(0, color="k", lw=0.8)
    ax.set_ylabel("measured e′ = (v′_j − v′_i)/(v_i − v_j)   (002 eq 22)")
    ax.set_title("Normal restitution, head-on pair at 1 m/s (002 §4.1.3, Table 1)")
    ax.legend(fontsize=8, loc="upper left")
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.02, 1.02)
    res.set_xlabel("input e (material restitution)")
    res.set_ylabel("e′ − e")
    res.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(HERE / "restitution.png", dpi=130)


def oblique_figure(gf, tmp):
    metrics = validate(gf, "oblique-impact")
    w = by_model(metrics, "ω' at")
    et = by_model(metrics, "e'_t at")
    phi_th = math.degrees(math.atan(3.5 * MU * (1 + E_OBLIQUE)))
    extra = {m: [] for m in MODELS}
    for m in MODELS:  # below φ_th: shown, not checked
        for deg in range(2, int(phi_th) + 1, 2):
            t = math.tan(math.radians(deg))
            s = final_state(gf, scene(m, E_OBLIQUE, [((0.0, 0.0, R + 1e-3), (t, 0.0, -1.0))],
                                      True, 0.05), tmp / f"{m}_{deg}")
            extra[m].append((deg, s[0]["omegay"], s[0]["vx"] / t))
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(6.2, 7.4), sharex=True)
    phis = [0.5 * k for k in range(2, 180)]
    slide = [p for p in phis if p >= phi_th]
    stick = [p for p in phis if p <= phi_th]
    w_slide = 2.5 * MU * (1 + E_OBLIQUE) * 1.0 / R
    a1.plot(slide, [w_slide] * len(slide), "k-", lw=1, label="002 eq 24: 5/2 μ(1+e) v_n / r = 3 rad/s")
    a1.plot(stick, [5 / 7 * math.tan(math.radians(p)) / R for p in stick], "k:", lw=1,
            label="rigid rolling limit 5/7 v_t / r (not in 002)")
    a2.plot(slide, [1 - MU * (1 + E_OBLIQUE) / math.tan(math.radians(p)) for p in slide], "k-",
            lw=1, label="002 eq 25 with tan φ: 1 − μ(1+e)/tan φ")
    a2.plot(stick, [5 / 7] * len(stick), "k:", lw=1,
            label="5/7 (rolling limit; = eq 25 as printed, tan φ_th)")
    for m in MODELS:
        x, y, _ = zip(*w[m])
        a1.plot(x, y, MARKERS[m], ms=3.5, color=COLORS[m], label=f"{m}, φ > φ_th (validate)")
        x, y, _ = zip(*et[m])
        a2.plot(x, y, MARKERS[m], ms=3.5, color=COLORS[m], label=f"{m}, φ > φ_th (validate)")
        x, yw, ye = zip(*extra[m])
        a1.plot(x, yw, MARKERS[m], ms=4.5, mfc="none", color=COLORS[m])
        a2.plot(x, ye, MARKERS[m], ms=4.5, mfc="none", color=COLORS[m],
                label=f"{m}, φ < φ_th (run, unchecked)")
    a1.axvline(phi_th, color="0.4", ls="--", lw=1)
    a1.text(phi_th - 1, a1.get_ylim()[0] + 0.03 * (a1.get_ylim()[1] - a1.get_ylim()[0]),
            f"φ_th = {phi_th:.2f}° (eq 23)", rotation=90, ha="right", va="bottom", fontsize=8)
    a2.axvline(phi_th, color="0.4", ls="--", lw=1, label=f"φ_th = {phi_th:.2f}° (eq 23)")
    a1.set_ylabel("ω′ (rad/s), sphere r = 0.5 m, v_n = 1 m/s")
    a1.set_title("Oblique impact on a plate, μ = 0.3, e = 1 (002 §4.1.4)")
    a1.legend(fontsize=7, loc="upper left")
    a2.set_ylabel("e′_t = v′_t / v_t")
    a2.set_xlabel("impact angle φ from the plate normal (°)")
    a2.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, 0.995))
    a2.set_xlim(0, 90)
    fig.tight_layout()
    fig.savefig(HERE / "oblique.png", dpi=130)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--grainflow", default=str(REPO / "target" / "release" / "grainflow"))
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        restitution_figure(args.grainflow, Path(tmp))
        oblique_figure(args.grainflow, Path(tmp))
    print("wrote", HERE / "restitution.png", "and", HERE / "oblique.png")


if __name__ == "__main__":
    main()
