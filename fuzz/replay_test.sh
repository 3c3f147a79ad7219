#!/bin/bash
# Replays the corpus and the experiments through the fuzz target; fails on a crash (or an ASan report).
set -euo pipefail
# usage: replay_test.sh TARGET MIN_INPUTS PATH...
fuzz=$1
min=$2
shift 2
out=$("$fuzz" "$@")
echo "$out"
n=$(sed -n 's/^[a-z_]*: replayed \([0-9]*\) inputs$/\1/p' <<<"$out")
# The corpus is not empty: a glob that matched nothing must not pass.
[ "${n:-0}" -ge "$min" ] || { echo "replayed only ${n:-0} inputs" >&2; exit 1; }
