#!/usr/bin/env bash
# Installs what tilelab's build, tests and analysis need, from Debian's packages. Idempotent: when
# everything is there it only checks (a second or two).
#
# The CUDA toolkit (nvcc, cudart, cuBLAS, NVRTC, nvJitLink at /usr/local/cuda) is not a Debian package here; it
# must already be installed. A GPU is not needed to build or to run the default tests.
set -euo pipefail

packages=(
  bazel-bootstrap bazel-rules-java        # Bazel 4, offline (see .bazelrc, WORKSPACE)
  gcc libc6-dev                           # the C toolchain
  libyaml-dev libhdf5-dev libssl-dev      # runner: config, result files, SHA-256
  python3 python3-h5py python3-numpy python3-pandas python3-matplotlib python3-scipy  # tests, analysis
  python3-pip python3-setuptools python3-wheel  # the analysis package: pip install ./analysis (its test)
  python3-jsonschema                      # the T4 export checked against Kernel Tuner's published schema
  chromium fonts-dejavu-core              # the report rendered in a real browser (analysis/report_test)
  slurm-wlm munge                         # the Slurm test: a real single-node Slurm on localhost
  clang libclang-rt-14-dev                # the config fuzzer (libFuzzer)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get -o DPkg::Lock::Timeout=300 update -qq
  # Daemons (munge, slurmctld, slurmd) must not start on install: the Slurm test starts its own.
  policy=""
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    policy=/usr/sbin/policy-rc.d
    printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null
    $sudo chmod 755 "$policy"
    trap '$sudo rm -f "$policy"' EXIT
  fi
  DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
  [ -z "$policy" ] || $sudo rm -f "$policy"
fi

cuda=/usr/local/cuda
# CUPTI: the runner loads libcupti at run time for hardware counters (and its tests check metric names
# with CUPTI's host library); its headers come with the toolkit.
for f in bin/nvcc include/cuda_runtime_api.h include/cublas_v2.h include/nvrtc.h lib64/libcudart.so \
         lib64/libcublas.so lib64/libnvrtc.so include/nvJitLink.h lib64/libnvJitLink.so \
         include/cupti_range_profiler.h include/cupti_profiler_host.h lib64/libcupti.so; do
  if [ ! -e "$cuda/$f" ]; then
    echo "setup: $cuda/$f is missing: install the CUDA 13 toolkit (nvcc, cudart, cuBLAS, NVRTC, nvJitLink, CUPTI) first" >&2
    exit 1
  fi
done

# CUTLASS's CuTe headers, for kernels that NVRTC compiles with them: PyPI's nvidia-cutlass wheel, pinned
# by version and SHA-256 (WORKSPACE's @cutlass names the same version), unpacked into the checkout's
# .cache/ (ignored by git); the build and the bundle take them from there, never from the network.
cutlass_version=4.2.0.0
cutlass_sha256=f9599ada45c7bcb6bf53f7d3f0a7d154183e53451c01bfa59eecd37dd4a693f6
cutlass_dir="$(cd "$(dirname "$0")/.." && pwd)/.cache/cutlass-$cutlass_version"
if [ ! -e "$cutlass_dir/include/cute/tensor.hpp" ] || [ "$(cat "$cutlass_dir/VERSION" 2>/dev/null)" != "$cutlass_version" ]; then
  echo "setup: fetching the CUTLASS $cutlass_version headers (PyPI nvidia-cutlass)"
  wheels=$(mktemp -d)
  python3 -m pip download -q --no-deps --only-binary=:all: "nvidia-cutlass==$cutlass_version" -d "$wheels" ||
    { echo "setup: pip could not download nvidia-cutlass==$cutlass_version (python3 -m pip, PyPI)" >&2; exit 1; }
  wheel=$(ls "$wheels"/nvidia_cutlass-"$cutlass_version"-*.whl)
  echo "$cutlass_sha256  $wheel" | sha256sum -c --quiet - ||
    { echo "setup: $wheel does not have the pinned SHA-256 $cutlass_sha256" >&2; exit 1; }
  rm -rf "$cutlass_dir" && mkdir -p "$cutlass_dir"
  python3 - "$wheel" "$cutlass_dir" <<'PY'
import os, sys, zipfile
wheel, dest = sys.argv[1], sys.argv[2]
prefix = "cutlass_library/source/include/"
with zipfile.ZipFile(wheel) as z:
    for m in z.infolist():
        if m.filename.startswith(prefix) and not m.is_dir():
            rel = os.path.normpath(m.filename[len(prefix):])
            if rel.startswith("..") or os.path.isabs(rel):
                sys.exit("setup: unsafe path in the wheel: " + m.filename)
            out = os.path.join(dest, "include", rel)
            os.makedirs(os.path.dirname(out), exist_ok=True)
            with z.open(m) as src, open(out, "wb") as dst:
                dst.write(src.read())
PY
  echo "$cutlass_version" > "$cutlass_dir/VERSION"
  rm -rf "$wheels"
fi

# Kernel Tuner's T4 schema (results-schema.json, metadata-schema.json), which the T4 export's test checks
# against: taken from its PyPI wheel, pinned by version and SHA-256, into .cache/ (the schema files only; Kernel
# Tuner itself is no dependency of tilelab). WORKSPACE's @t4_schema names the same version.
kt_version=1.5.0
kt_sha256=c3aa31663f1166e4817ae17260e5c3b05d33f0de384c2c7cc615fb7c5b9d1bd4
kt_dir="$(cd "$(dirname "$0")/.." && pwd)/.cache/kernel_tuner_schema-$kt_version"
if [ ! -e "$kt_dir/T4/1.0.0/results-schema.json" ]; then
  echo "setup: fetching Kernel Tuner $kt_version's T4 schema (PyPI kernel_tuner)"
  wheels=$(mktemp -d)
  python3 -m pip download -q --no-deps --only-binary=:all: "kernel_tuner==$kt_version" -d "$wheels" ||
    { echo "setup: pip could not download kernel_tuner==$kt_version (python3 -m pip, PyPI)" >&2; exit 1; }
  wheel=$(ls "$wheels"/kernel_tuner-"$kt_version"-*.whl)
  echo "$kt_sha256  $wheel" | sha256sum -c --quiet - ||
    { echo "setup: $wheel does not have the pinned SHA-256 $kt_sha256" >&2; exit 1; }
  rm -rf "$kt_dir" && mkdir -p "$kt_dir/T4/1.0.0"
  for f in results-schema.json metadata-schema.json; do
    python3 -c 'import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]))' \
      "$wheel" "kernel_tuner/schema/T4/1.0.0/$f" > "$kt_dir/T4/1.0.0/$f"
  done
  rm -rf "$wheels"
fi

# Debian's /usr/bin/bazel looks for bazel-$(cat .bazelversion), i.e. bazel-4.
command -v bazel >/dev/null || { echo "setup: bazel is not on PATH after installing bazel-bootstrap" >&2; exit 1; }
echo "setup: ok ($(bazel --version 2>/dev/null | head -n 1); CUDA at $cuda)"
