#!/usr/bin/env bash
# Compares the soft-sphere step of the working tree with that of a base commit, in one process
# (tools/ab/main.rs): for each scene, LAYOUTS runs, each with its own memory layout (blocks
# of other sizes made first), and the ratio new/base of CPU time per step of each, with their
# mean, smallest and largest. Usage:
#   tools/ab.sh BASE [SCENE ...]          e.g.  tools/ab.sh v0.1.0 s1 s2
# Environment: LAYOUTS (default 8), TURNS (200), STEPS (steps per turn, 10), HUGE=1 to use the
# command line's allocator (crates/grainflow-cli/src/huge_pages.rs) in both.
# Everything it makes is under target/ab/ (the base's worktree and the two-library program).
set -euo pipefail
root=$(git rev-parse --show-toplevel)
base=${1:?usage: tools/ab.sh BASE [SCENE ...]}
shift
scenes=${*:-s1 s2}
work=$root/target/ab
mkdir -p "$work"
if [ -d "$work/base" ]; then git -C "$root" worktree remove --force "$work/base"; fi
git -C "$root" worktree add --detach "$work/base" "$base" >/dev/null
# The base's library under a name of its own, so that both link into one program.
sed -i 's/^name = "grainflow"$/name = "grainflow_base"/' "$work/base/crates/grainflow/Cargo.toml"
mkdir -p "$work/harness/src" "$work/harness/.cargo"
cp "$root/tools/ab/main.rs" "$work/harness/src/main.rs"
cp "$root/crates/grainflow-cli/src/huge_pages.rs" "$work/harness/src/huge_pages.rs"
cp "$root/.cargo/config.toml" "$work/harness/.cargo/config.toml"
cat > "$work/harness/Cargo.toml" <<TOML
[package]
name = "ab"
version = "0.0.0"
edition = "2021"
publish = false

[workspace]

[features]
huge = []

[dependencies]
grainflow = { path = "$root/crates/grainflow" }
grainflow_base = { path = "$work/base/crates/grainflow" }
rayon = "1"
libc = "0.2"

[profile.release]
debug = 1
codegen-units = 1
TOML
features=()
if [ "${HUGE:-0}" = 1 ]; then features=(--features huge); fi
cargo build --release --quiet --manifest-path "$work/harness/Cargo.toml" "${features[@]}"
bin=$work/harness/target/release/ab
grep -m1 "model name" /proc/cpuinfo
pads=(0 1000 2600 7000 400 12000 64 5000 3100 9000 200 15000)
bigs=(0 0 300000 150000 600000 0 1000000 450000 75000 0 900000 225000)
for scene in $scenes; do
  ratios=()
  for ((l = 0; l < ${LAYOUTS:-8}; l++)); do
    line=$("$bin" "$work/base/scenes/bench" "$root/scenes/bench" "$scene" "${TURNS:-200}" \
      "${STEPS:-10}" "${pads[l % 12]}" "${bigs[l % 12]}")
    echo "layout $l: $line"
    ratios+=("$(echo "$line" | sed 's/.* ratio \([0-9.]*\) .*/\1/')")
  done
  printf '%s\n' "${ratios[@]}" | awk -v s="$scene" '{t+=$1; if(NR==1||$1<lo)lo=$1; if($1>hi)hi=$1}
    END {printf "%s: new/base mean %.4f, from %.4f to %.4f over %d layouts\n", s, t/NR, lo, hi, NR}'
done
