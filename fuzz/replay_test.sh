#!/bin/bash
# Replays the corpus and the experiments through the fuzz target; fails on a crash (or an ASan report).
set -euo pipefail
fuzz=$1
shift
out=$("$fuzz" "$@")
echo "$out"
n=$(sed -n 's/^config_fuzz: replayed \([0-9]*\) inputs$/\1/p' <<<"$out")
# The corpus is not empty: a glob that matched nothing must not pass.
[ "${n:-0}" -ge 300 ] || { echo "replayed only ${n:-0} inputs" >&2; exit 1; }
