#!/usr/bin/env bash
# Makes the portable bundle: the runner (and benchmark binaries), their non-system shared libraries
# (lib/, found through the binaries' rpath $ORIGIN/lib), the kernels, experiments and checks, as one
# tarball that runs on a node with only CUDA 13 (no Bazel, libyaml or HDF5).
#
# usage: bundle.sh OUT.tar.gz BINARY... [--cutlass VERSION_FILE] -- FILE...
#   BINARYs go to the bundle's top folder; FILEs keep their workspace-relative paths; the CUTLASS
#   headers (VERSION_FILE's folder: VERSION and include/) go to cutlass/, where the runner looks.
set -euo pipefail
out=$1
shift
bins=()
cutlass=
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  if [ "$1" = "--cutlass" ]; then cutlass=$(dirname "$2"); shift 2; continue; fi
  bins+=("$1"); shift
done
[ $# -gt 0 ] && shift
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root=$stage/tilelab
mkdir -p "$root/lib"

# glibc, the compiler runtime and the CUDA libraries come from the node; everything else travels.
system='^(linux-vdso|ld-linux|libc|libm|libdl|libpthread|librt|libresolv|libgcc_s|libstdc\+\+|libcuda|libcudart|libcublas|libcublasLt|libnvrtc|libnvrtc-builtins|libnvJitLink)\.so'
for bin in "${bins[@]}"; do
  cp "$bin" "$root/$(basename "$bin")"
  chmod 755 "$root/$(basename "$bin")"
  ldd "$bin" | while read -r name arrow path _; do
    [ "$arrow" = "=>" ] || continue
    if [ "$path" = "not" ]; then echo "bundle: $name (needed by $bin) not found" >&2; exit 1; fi
    if [[ $name =~ $system ]]; then continue; fi
    cp -L "$path" "$root/lib/$name"
  done
done

if [ -n "$cutlass" ]; then
  [ -f "$cutlass/include/cute/tensor.hpp" ] || { echo "bundle: no CUTLASS headers in $cutlass" >&2; exit 1; }
  mkdir -p "$root/cutlass"
  cp -L "$cutlass/VERSION" "$root/cutlass/VERSION"
  cp -rL "$cutlass/include" "$root/cutlass/include"
fi

for f in "$@"; do
  mkdir -p "$root/$(dirname "$f")"
  cp -L "$f" "$root/$f"
done
tar -C "$stage" --owner=0 --group=0 --sort=name -czf "$out" tilelab
