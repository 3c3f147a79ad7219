#!/usr/bin/env bash
# Installs what tilelab's build, tests and analysis need, from Debian's packages. Idempotent: when
# everything is there it only checks (a second or two).
#
# The CUDA toolkit (nvcc, cudart, cuBLAS, NVRTC at /usr/local/cuda) is not a Debian package here; it
# must already be installed. A GPU is not needed to build or to run the default tests.
set -euo pipefail

packages=(
  bazel-bootstrap bazel-rules-java        # Bazel 4, offline (see .bazelrc, WORKSPACE)
  gcc libc6-dev                           # the C toolchain
  libyaml-dev libhdf5-dev libssl-dev      # runner: config, result files, SHA-256
  python3 python3-h5py python3-numpy python3-pandas python3-matplotlib python3-scipy  # tests, analysis
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
         lib64/libcublas.so lib64/libnvrtc.so include/cupti_range_profiler.h include/cupti_profiler_host.h \
         lib64/libcupti.so; do
  if [ ! -e "$cuda/$f" ]; then
    echo "setup: $cuda/$f is missing: install the CUDA 13 toolkit (nvcc, cudart, cuBLAS, NVRTC, CUPTI) first" >&2
    exit 1
  fi
done

# Debian's /usr/bin/bazel looks for bazel-$(cat .bazelversion), i.e. bazel-4.
command -v bazel >/dev/null || { echo "setup: bazel is not on PATH after installing bazel-bootstrap" >&2; exit 1; }
echo "setup: ok ($(bazel --version 2>/dev/null | head -n 1); CUDA at $cuda)"
