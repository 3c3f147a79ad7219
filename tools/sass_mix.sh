#!/usr/bin/env bash
# Instruction mix of a kernel's SASS, and its loops (tools/sass_loop.py: their code size, mix, the stall
# cycles their control bits code and the operand reuse of their FFMAs), for a look at what an inner loop
# issues. Needs nvcc; cuobjdump and nvdisasm come from the toolkit where it has them (the GPU machine's
# does), else from PyPI's NVIDIA wheels (pinned below), fetched once into ~/.cache/tilelab/sass-tools.
# nvcc's code can differ from NVRTC's (the runner's) for the same source: for what a case ran, give
# tools/sass_loop.py its entry of the kernel cache.
# usage: sass_mix.sh KERNEL.cu OUT.sass [-DNAME=VALUE ...]
set -euo pipefail
if [ $# -lt 2 ] || [ "$1" = --help ] || [ "$1" = -h ]; then
    sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'
    [ $# -ge 1 ] && { [ "$1" = --help ] || [ "$1" = -h ]; } && exit 0
    exit 2
fi
src=$1 out=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v cuobjdump > /dev/null 2>&1; then
    tools=${TILELAB_SASS_TOOLS:-$HOME/.cache/tilelab/sass-tools}
    if [ ! -x "$tools/nvidia/cu13/bin/nvdisasm" ]; then
        echo "sass_mix: no cuobjdump here; fetching nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm 13.5.37 into $tools" >&2
        mkdir -p "$tools"
        python3 -m pip download --quiet --no-deps --dest "$tools" \
            nvidia-cuda-cuobjdump==13.5.37 nvidia-cuda-nvdisasm==13.5.37
        for w in "$tools"/*.whl; do python3 -m zipfile -e "$w" "$tools"; done
        chmod +x "$tools"/nvidia/cu13/bin/*
    fi
    export PATH="$tools/nvidia/cu13/bin:$PATH"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
nvcc -arch=sm_90 -std=c++17 -cubin -Xptxas -v -o "$tmp/k.cubin" "$@" "$src" 2>&1 | grep -E 'registers|spill' || true
cuobjdump -sass "$tmp/k.cubin" > "$out"
echo "instruction mix of $src $*:"
grep -oE '^\s+/\*[0-9a-f]{4}\*/\s+(@!?U?P[0-9T] )?[A-Z0-9_]+' "$out" | awk '{print $NF}' | sort | uniq -c | sort -rn | head -16
echo "loops:"
python3 "$here/sass_loop.py" "$out"
