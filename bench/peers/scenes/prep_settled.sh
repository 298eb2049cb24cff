#!/usr/bin/env bash
# Make scenes/s1_settled.data, the start state of the S1/S2 benchmarks:
#   1. gen_s1.py writes the lattice start s1.data (deterministic);
#   2. LAMMPS (pair_style granular, scene S1 material) integrates 60000 steps of 1e-6 s
#      (60 ms: free fall onto the floor and compaction) on 2 MPI ranks and writes the bed.
# The settled bed is chaotic, so a rerun gives a statistically equivalent, not identical,
# bed; the one the recorded figures used is the repository's scenes/bench/s1_settled.data.gz
# (gunzip is enough).
# Usage: bash bench/peers/scenes/prep_settled.sh [force]   (default: only if s1_settled.data is missing)
set -euo pipefail
cd "$(dirname "$0")"
python3 gen_s1.py s1.data
if [ -f s1_settled.data ] && [ "${1:-}" != force ]; then exit 0; fi
gz=../../../scenes/bench/s1_settled.data.gz
if [ -f "$gz" ] && [ "${1:-}" != force ]; then gunzip -c "$gz" > s1_settled.data; exit 0; fi
command -v lmp >/dev/null || { apt-get update; DEBIAN_FRONTEND=noninteractive apt-get install -y lammps openmpi-bin time; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p ../lammps/logs_prep
cd ../lammps
/usr/bin/time -v -o logs_prep/s1_prep_np2.time mpirun -np 2 --bind-to core lmp -in in.s1_hertz \
   -var nsteps 60000 -var nthermo 5000 -var data ../scenes/s1.data -var out ../scenes/s1_settled.data -var wout 1 \
   -log none > logs_prep/s1_prep_np2.out 2>&1
grep -E "^Loop time|^FINAL" logs_prep/s1_prep_np2.out
