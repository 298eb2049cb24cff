#!/usr/bin/env bash
# Weak and strong scaling of grainflow over MPI ranks and threads (docs/parallel.md, "On 16
# cores"): S1 tiled one bed per rank on 1, 2, 4, ... MAX ranks, then the million-grain bed
# (S1 10 × 5) on those rank counts (one thread each) and in one process on as many threads.
# Prints a Markdown table: wall ms per step, CPU ns per particle-step (all, and outside the
# transport's calls), the busiest rank's CPU time outside them over the mean, copies, bytes
# sent per particle-step, and the efficiency: for the weak series the wall time per step of
# one rank on one S1 over that of N ranks on N beds, for the million grains the wall time of
# one process on one thread over N times that of N.
# Usage: bench/scaling.sh GRAINFLOW [MAX (a power of two, default 16)] [STEPS (default 1000)]
# GRAINFLOW is a binary built with --features mpi; $MPIRUN (default mpirun) starts the ranks;
# $BENCH_ARGS go to every bench on several ranks (e.g. "--balance-every 1 --balance-by time").
set -euo pipefail
bin=$1 max=${2:-16} steps=${3:-1000}
mpirun=${MPIRUN:-mpirun}
read -ra extra <<<"${BENCH_ARGS:-}"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# One run: a label, then the command; its JSON report on one line of the log.
run() {
  local label=$1
  shift
  echo "### $label" >>"$log"
  "$@" --json | tr -d '\n' >>"$log"
  echo >>"$log"
}
# The tiling of n (a power of two) beds: twice along x, then along y, in turn.
tile() {
  local nx=1 ny=1
  while [ $((nx * ny)) -lt "$1" ]; do
    if [ $nx -gt $ny ]; then ny=$((ny * 2)); else nx=$((nx * 2)); fi
  done
  echo $nx,$ny
}
counts=()
for ((n = 1; n <= max; n *= 2)); do counts+=("$n"); done
for n in "${counts[@]}"; do
  if [ "$n" = 1 ]; then
    run "weak 1" "$bin" --threads 1 bench s1 --tile 1,1 --steps "$steps"
  else
    run "weak $n" "$mpirun" -np "$n" --bind-to core "$bin" --threads 1 bench s1 --tile "$(tile "$n")" --steps "$steps" "${extra[@]}"
  fi
done
mega=$((steps / 5))
for n in "${counts[@]}"; do
  run "threads $n" "$bin" --threads "$n" bench s1 --tile 10,5 --steps "$mega"
  [ "$n" = 1 ] || run "ranks $n" "$mpirun" -np "$n" --bind-to core "$bin" --threads 1 bench s1 --tile 10,5 --steps "$mega" "${extra[@]}"
done
python3 - "$log" <<'EOF'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
runs = {lines[i][4:]: json.loads(lines[i + 1]) for i in range(0, len(lines), 2)}
print("| run | ranks × threads | grains | wall ms/step | CPU ns/particle-step | outside transport | busiest rank | copies | bytes/particle-step | efficiency |")
print("|---|---|---|---|---|---|---|---|---|---|")
step = lambda r: 1e3 * r["wall_s"] / r["steps"]
for label, r in runs.items():
    kind, n = label.split()
    base = runs["weak 1"] if kind == "weak" else runs["threads 1"]
    eff = step(base) / step(r) / (1 if kind == "weak" else int(n))
    print(f"| {kind} | {r['ranks']} × {r['threads']} | {r['particles']} | {step(r):.2f} "
          f"| {r['cpu_ns_per_particle_step']:.1f} | {r['cpu_ns_per_particle_step_outside_transport']:.1f} "
          f"| {r['busy_imbalance']:.3f} "
          f"| {100 * r['copies_fraction']:.2f} % | {r['bytes_per_particle_step']:.2f} | {100 * eff:.0f} % |")
EOF
