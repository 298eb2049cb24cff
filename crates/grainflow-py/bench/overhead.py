"""What stepping from Python costs over the command line, per step, on overhead.toml (20 471
grains), settled first for SETTLE s into a checkpoint that both resume: CPU time of
`grainflow --threads 1 run --resume` and of `Simulation.resume(...).step(n)` with threads=1,
each a process of its own, run for two step counts so that start-up (building the scene,
starting Python, writing the final checkpoint) cancels: per step = (T(long) − T(short)) /
(long − short). The runs alternate, command line and Python, round after round; the medians
are printed. With --callgrind each run goes under `valgrind --tool=callgrind` and instructions
are counted instead of seconds (build both for x86-64-v3: valgrind knows no AVX-512).

    python overhead.py [--cli target/release/grainflow] [--rounds 5] [--steps 100 600] [--callgrind]
"""

import argparse
import os
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile

import grainflow as gf

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[2]
SETTLE = 0.02  # s: the grains fall 0.2 mm onto each other and the floor


def settled(folder):
    """A checkpoint of overhead.toml after SETTLE s, and the time and step it holds."""
    sim = gf.Simulation.from_toml(HERE / "overhead.toml")
    sim.run(SETTLE)
    path = folder / "settled.gfck"
    sim.checkpoint(path)
    return path, sim.time, sim.dt


def scene_for(steps, folder, time, dt):
    """overhead.toml ending `steps` steps after `time`, written into `folder`."""
    text = (HERE / "overhead.toml").read_text()
    path = folder / f"overhead-{steps}.toml"
    path.write_text(text.replace("duration = 1.0", f"duration = {time + steps * dt!r}"))
    return path


def measure(command, callgrind):
    """CPU seconds (user + system) of `command`, or its instructions under callgrind."""
    if callgrind:
        command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *command]
    before = os.times()
    r = subprocess.run(command, capture_output=True, text=True)
    after = os.times()
    if r.returncode != 0:
        sys.exit(f"{command[0]} failed:\n{r.stderr}")
    if callgrind:
        return float(re.search(r"Collected : (\d+)", r.stderr).group(1))
    return (after.children_user - before.children_user) + (after.children_system - before.children_system)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", default=ROOT / "target" / "release" / "grainflow")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--steps", type=int, nargs=2, default=[100, 600])
    ap.add_argument("--callgrind", action="store_true")
    a = ap.parse_args()
    short, long = a.steps
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        ckpt, time, dt = settled(tmp)
        scenes = {n: scene_for(n, tmp, time, dt) for n in (short, long)}
        cli = {n: [str(a.cli), "--threads", "1", "run", str(scenes[n]), "--resume", str(ckpt),
                   "--out"] for n in (short, long)}
        py = {n: [a.python, "-c", "import sys, grainflow as gf; gf.Simulation.resume("
                  f"sys.argv[1], sys.argv[2], threads=1).step({n})", str(scenes[n]), str(ckpt)]
              for n in (short, long)}
        per_step = {"cli": [], "python": []}
        for k in range(a.rounds):
            # Each command-line run writes into a fresh folder.
            fresh = {n: [*cli[n], str(tmp / f"out-{n}-{k}")] for n in (short, long)}
            for name, runs in (("cli", fresh), ("python", py)):
                t_short = measure(runs[short], a.callgrind)
                t_long = measure(runs[long], a.callgrind)
                per_step[name].append((t_long - t_short) / (long - short))
        unit = "instructions" if a.callgrind else "s"
        for name, values in per_step.items():
            print(f"{name:7s} per step: median {statistics.median(values):.6e} {unit}  "
                  f"(rounds: {', '.join(f'{v:.4e}' for v in values)})")
        ratio = statistics.median(per_step["python"]) / statistics.median(per_step["cli"])
        print(f"python / cli: {ratio:.4f} ({100 * (ratio - 1):+.2f} %)")


if __name__ == "__main__":
    main()
