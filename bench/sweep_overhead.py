#!/usr/bin/env python3
"""Sweep overhead (issue 16): runs experiments/sweep30.yaml (30 sgemm cases) twice, with an empty
kernel cache and then a warm one, and prints for each its wall time, the time inside timed regions, their
ratio and where the rest went (the session's t_<phase>_s attributes, schema 1.5); then the same sweep
with `--devices all` (warm cache) against the warm run on one GPU, wall clock of the whole command.
"Cold" is cold on any machine: the driver's compute cache (CUDA_CACHE_PATH, ~/.nv/ComputeCache by
default), which keeps what NVRTC compiled in earlier processes, is a fresh folder too, shared by the
runs that follow (docs/guide/sweeps.md; the measurements in docs/gpu-runs.md).
A benchmark: it prints figures and checks nothing.

usage: sweep_overhead.py [RUNNER] [--experiment YAML] [--out DIR] [--compile-jobs N] [--devices SPEC]
(--compile-jobs passes the runner's option: 0 compiles each kernel when its first case needs it;
--devices: the devices of the last run, default all, `none` skips it.)
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import h5py

PHASES = ("compile", "load", "inputs", "reference", "verify", "warmup", "timed", "loop", "telemetry", "counters", "trials",
          "write")


def caches(cache):
    """The environment of a run whose kernel cache and driver compute cache are both under cache."""
    return dict(os.environ, TILELAB_CACHE_DIR=os.path.join(cache, "tilelab"),
                CUDA_CACHE_PATH=os.path.join(cache, "driver"))


def one(runner, yaml, out, cache, label, extra=()):
    h5 = os.path.join(out, "%s.h5" % label)
    if os.path.exists(h5):
        os.remove(h5)
    env = caches(cache)
    t0 = time.monotonic()
    p = subprocess.run([runner, yaml, "-o", h5, "-q"] + list(extra), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       env=env)
    command_s = time.monotonic() - t0
    if p.returncode != 0:
        print(p.stdout[-4000:])
        raise SystemExit("sweep_overhead: the %s run failed (exit %d)" % (label, p.returncode))
    with h5py.File(h5, "r") as f:
        s = f["sessions/0"].attrs
        wall, timed = float(s["wall_s"]), float(s["timed_s"])
        parts = {k: float(s.get("t_%s_s" % k, 0.0)) for k in PHASES}
        start = [float(s.get(k, -1)) for k in ("t_start_s", "t_start_cuda_s", "t_start_libs_s")]
        cached = [int(g.attrs.get("compile_cached", -1)) for g in f["cases"].values()]
        n = len(f["cases"])
    other = max(0.0, wall - sum(parts.values()))
    # A case whose kernel was compiled ahead in this run counts as from the cache: the closing line says how
    # many NVRTC compiled.
    compiled = re.search(r"NVRTC compiled (\d+) during the run", p.stdout)
    print("%-5s %d cases: wall %.2f s, timed %.2f s, wall / timed %.1f; kernels from the cache %d of %d, "
          "NVRTC compiled %d during the run" % (label, n, wall, timed, wall / timed if timed else float("inf"),
                                                cached.count(1), n - cached.count(-1),
                                                int(compiled.group(1)) if compiled else 0))
    print("      " + ", ".join("%s %.2f" % (k, v) for k, v in parts.items()) + ", other %.2f" % other)
    print("      the whole command: %.2f s: %.2f s before the first case (CUDA context %.2f, GPU set-up %.2f), "
          "%.2f s after the last one" % (command_s, start[0], start[1], start[2], command_s - start[0] - wall))
    return command_s


def on_devices(runner, yaml, out, cache, spec, extra, one_gpu_s):
    h5 = os.path.join(out, "devices.h5")
    if os.path.exists(h5):
        os.remove(h5)
    env = caches(cache)
    t0 = time.monotonic()
    p = subprocess.run([runner, yaml, "-o", h5, "-q", "--devices", spec] + list(extra), stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, env=env)
    wall = time.monotonic() - t0
    if p.returncode != 0:
        print(p.stdout[-4000:])
        raise SystemExit("sweep_overhead: the --devices %s run failed (exit %d)" % (spec, p.returncode))
    with h5py.File(h5, "r") as f:
        per = {}
        for g in f["cases"].values():
            per[int(g.attrs["device_ordinal"])] = per.get(int(g.attrs["device_ordinal"]), 0) + 1
        timed = sum(float(s.attrs["timed_s"]) for s in f["sessions"].values())
        walls = {int(s["env"].attrs.get("device_ordinal", -1)): float(s.attrs["wall_s"]) for s in f["sessions"].values()}
        starts = {int(s["env"].attrs.get("device_ordinal", -1)): float(s.attrs.get("t_start_s", -1))
                  for s in f["sessions"].values()}
    print("--devices %s: %d GPUs (cases per GPU %s): the whole command %.2f s for %.2f s timed; one GPU, warm: "
          "%.2f s; ratio %.2f" % (spec, len(per), dict(sorted(per.items())), wall, timed, one_gpu_s,
                                  wall / one_gpu_s if one_gpu_s else float("nan")))
    print("      each worker's session wall: " + ", ".join("gpu%d %.2f s" % kv for kv in sorted(walls.items())) +
          "; its start-up before the first case: " + ", ".join("gpu%d %.2f s" % kv for kv in sorted(starts.items())))
    print("      " + "\n      ".join(l for l in p.stdout.splitlines() if l.startswith("tilelab: ") and "workers" in l))


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runner", nargs="?", default=os.path.join(root, "runner"))
    ap.add_argument("--experiment", default=os.path.join(root, "experiments", "sweep30.yaml"))
    ap.add_argument("--out", default=None)
    ap.add_argument("--compile-jobs", default=None)
    ap.add_argument("--devices", default="all")
    args = ap.parse_args()
    extra = ["--compile-jobs", args.compile_jobs] if args.compile_jobs is not None else []
    out = args.out or tempfile.mkdtemp(prefix="tilelab-sweep-")
    os.makedirs(out, exist_ok=True)
    cache = tempfile.mkdtemp(prefix="tilelab-cache-")
    try:
        one(args.runner, args.experiment, out, cache, "cold", extra)
        warm = one(args.runner, args.experiment, out, cache, "warm", extra)
        if args.devices != "none":
            on_devices(args.runner, args.experiment, out, cache, args.devices, extra, warm)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
