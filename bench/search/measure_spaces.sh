#!/usr/bin/env bash
# Measures the exhaustive spaces that bench/search_bench.py replays searches against, on a GPU machine
# (from the bundle, or a checkout with the runner built). Each space goes to OUTDIR/<yaml's name>.h5,
# resumed when the file is there, so the script may be stopped (or run past DEADLINE_S seconds, after
# which it sends the runner SIGTERM) and started again.
#
# usage: bench/search/measure_spaces.sh RUNNER OUTDIR [DEADLINE_S]
set -uo pipefail
runner=$1 out=$2 deadline=${3:-0}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
mkdir -p "$out"
start=$(date +%s)
for yaml in "$root/experiments/search/tiled6_full.yaml" "$here/hopper.yaml" "$here/tf32x3.yaml" "$here/wgmma_tma.yaml"; do
  name=$(basename "$yaml" .yaml)
  h5=$out/$name.h5
  resume=()
  [ -e "$h5" ] && resume=(--resume)
  limit=()
  if [ "$deadline" -gt 0 ]; then
    left=$((deadline - ($(date +%s) - start)))
    [ "$left" -gt 10 ] || { echo "measure_spaces: out of time before $name"; break; }
    limit=(timeout -s TERM "$left")
  fi
  t0=$(date +%s)
  "${limit[@]}" "$runner" run "$yaml" -o "$h5" -q "${resume[@]}" > "$out/$name.log" 2>&1
  echo "measure_spaces: $name: exit $? in $(($(date +%s) - t0)) s; $(grep -c . "$out/$name.log") log lines"
  tail -n 4 "$out/$name.log"
done
