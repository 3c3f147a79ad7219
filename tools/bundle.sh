#!/usr/bin/env bash
# Makes the portable bundle: the runner, its non-system shared libraries (lib/, found through the
# runner's rpath $ORIGIN/lib), the kernels, experiments and checks, as one tarball that runs on a node
# with only CUDA 13 (no Bazel, libyaml or HDF5).
#
# usage: bundle.sh OUT.tar.gz RUNNER [FILE...]   (FILEs keep their workspace-relative paths)
set -euo pipefail
out=$1 runner=$2
shift 2
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root=$stage/tilelab
mkdir -p "$root/lib"
cp "$runner" "$root/runner"
chmod 755 "$root/runner"

# glibc, the compiler runtime and the CUDA libraries come from the node; everything else travels.
system='^(linux-vdso|ld-linux|libc|libm|libdl|libpthread|librt|libresolv|libgcc_s|libstdc\+\+|libcuda|libcudart|libcublas|libcublasLt|libnvrtc|libnvrtc-builtins)\.so'
ldd "$runner" | while read -r name arrow path _; do
  [ "$arrow" = "=>" ] || continue
  if [ "$path" = "not" ]; then echo "bundle: $name not found" >&2; exit 1; fi
  if [[ $name =~ $system ]]; then continue; fi
  cp -L "$path" "$root/lib/$name"
done

for f in "$@"; do
  mkdir -p "$root/$(dirname "$f")"
  cp -L "$f" "$root/$f"
done
tar -C "$stage" --owner=0 --group=0 --sort=name -czf "$out" tilelab
