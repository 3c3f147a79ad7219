#!/usr/bin/env bash
# Instruction mix of a kernel's SASS, for a look at what its inner loop issues (needs nvcc and
# cuobjdump: run it on a machine with the full CUDA toolkit).
# usage: sass_mix.sh KERNEL.cu OUT.sass [-DNAME=VALUE ...]
set -euo pipefail
src=$1 out=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
nvcc -arch=sm_90 -cubin -Xptxas -v -o "$tmp/k.cubin" "$@" "$src" 2>&1 | grep -E 'registers|spill' || true
cuobjdump -sass "$tmp/k.cubin" > "$out"
echo "instruction mix of $src $*:"
grep -oE '^\s+/\*[0-9a-f]{4}\*/\s+(@!?U?P[0-9T] )?[A-Z0-9_]+' "$out" | awk '{print $NF}' | sort | uniq -c | sort -rn | head -16
