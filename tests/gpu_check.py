#!/usr/bin/env python3
"""GPU check for the foundation (Bazel tag gpu; also runs from the portable bundle).

Runs experiments/smem_tile.yaml, experiments/sgemm_odd.yaml and experiments/device_inputs.yaml (data int,
uniform, normal) with the runner and reads the result
files (never the runner's stdout, but for one closing line). Asserts: every case verifies; at 4096,
smem_tile(32) beats gmem_coalesced, which beats naive; 1000 x 1234 x 777 verifies for every variant and
layout; sgemm_odd's cases verify with the registry's modules kept across them (its "modules:" line says
that later cases took modules earlier ones loaded).
Prints the figures it checked.

usage: gpu_check.py [RUNNER] [--out DIR]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import h5py

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpu_files import planned_skip  # noqa: E402


def run(runner, yaml, out):
    path = os.path.join(out, os.path.basename(yaml).replace(".yaml", ".h5"))
    if os.path.exists(path):
        os.remove(path)
    proc = subprocess.run([runner, yaml, "-o", path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(proc.stdout)
    if not os.path.exists(path):
        sys.exit("FAIL: %s wrote no result file (exit %d)" % (yaml, proc.returncode))
    return path, proc.returncode, proc.stdout


def cases(path):
    with h5py.File(path, "r") as f:
        out = []
        for cid, g in f["cases"].items():
            a = {k: (v.decode() if isinstance(v, bytes) else v) for k, v in g.attrs.items()}
            a["samples"] = g["time_ms"][()]
            out.append(a)
        return out


def median(xs):
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(here)
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runner", nargs="?", default=os.path.join(root, "runner"))
    ap.add_argument("--out", default=None, help="folder for the result files (default: a temporary one)")
    args = ap.parse_args()
    out = args.out or tempfile.mkdtemp(prefix="tilelab-gpu-")
    os.makedirs(out, exist_ok=True)
    failures = []

    path, rc, _ = run(args.runner, os.path.join(root, "experiments/smem_tile.yaml"), out)
    cs = cases(path)
    bad = [c for c in cs if c["status"] != "ok"]
    for c in bad:
        failures.append("smem_tile.yaml: %s %s %s: %s %s" % (c["variant"], c["params"], c["sizes"], c["status"], c["reason"]))
    at4096 = {}
    for c in cs:
        if c["sizes"] == "m=4096,n=4096,k=4096" and len(c["samples"]):
            at4096[(c["variant"], c["params"])] = median(c["samples"])
    print("median ms at 4096^3:")
    for k, v in sorted(at4096.items(), key=lambda kv: kv[1]):
        print("  %-16s %-14s %9.3f ms  %8.1f GFLOP/s" % (k[0], k[1], v, 2 * 4096**3 / (v * 1e-3) / 1e9))
    smem = at4096.get(("smem_tile", "BLOCKSIZE=32"))
    coal = at4096.get(("gmem_coalesced", "BLOCKSIZE=32"))
    naive = at4096.get(("naive", "BX=32,BY=32"))
    if None in (smem, coal, naive):
        failures.append("smem_tile.yaml: a 4096 case is missing")
    elif not (smem < coal < naive):
        failures.append("at 4096: expected smem_tile(32) < gmem_coalesced < naive, got %.3f, %.3f, %.3f ms" % (smem, coal, naive))
    if rc != 0:
        failures.append("smem_tile.yaml: runner exit code %d" % rc)

    path, rc, said = run(args.runner, os.path.join(root, "experiments/sgemm_odd.yaml"), out)
    cs = cases(path)
    print("1000 x 1234 x 777 (alpha 0.75, beta -1.25), all layouts:")
    for c in cs:
        print("  %-16s %-14s %-12s %-8s max_rel_err %.3g" % (c["variant"], c["params"], c["layouts"], c["status"], c["max_rel_err"]))
        if c["status"] != "ok" and not planned_skip(c):  # skinny past its SMAX, ...: the plan's own skips
            failures.append("sgemm_odd.yaml: %s %s %s: %s %s" % (c["variant"], c["params"], c["layouts"], c["status"], c["reason"]))
    variants = {c["variant"] for c in cs if c["status"] == "ok"}
    for v in ("naive", "gmem_coalesced", "smem_tile", "cublas"):
        if v not in variants:
            failures.append("sgemm_odd.yaml: no verified case of %s" % v)
    if rc != 0:
        failures.append("sgemm_odd.yaml: runner exit code %d" % rc)
    kept = re.search(r"modules: (\d+) loaded, (\d+) times", said)
    if not kept or int(kept.group(2)) == 0:
        failures.append("sgemm_odd.yaml: no case took a module an earlier case had loaded (%s)" %
                        (kept.group(0) if kept else "no modules: line"))

    # Inputs made on the device equal the host's: the host reference is computed from host-made inputs,
    # the variants run on device-made ones (int data: exact results, any difference fails), then uniform
    # data (device-made too) and normal (made on the host, copied up).
    src = open(os.path.join(root, "experiments/device_inputs.yaml")).read()
    for dist in ("int", "uniform", "normal"):
        yaml = os.path.join(out, "device_inputs_%s.yaml" % dist)
        with open(yaml, "w") as f:
            f.write(src.replace("name: device_inputs", "name: device_inputs_" + dist).replace("data: int", "data: " + dist))
        path, rc, _ = run(args.runner, yaml, out)
        cs = cases(path)
        ok = [c for c in cs if c["status"] == "ok"]
        print("device_inputs, data %s: %d of %d cases verified against the host reference; largest error %.3g of the scale" % (
            dist, len(ok), len(cs), max([c["max_rel_err"] for c in ok] or [float("nan")])))
        for c in cs:
            if c["status"] != "ok":
                failures.append("device_inputs (%s): %s %s %s %s: %s %s" % (dist, c["variant"], c["dtype"], c["sizes"],
                                                                        c["layouts"], c["status"], c.get("reason", "")[:200]))
        if len(cs) != 64 or rc != 0:
            failures.append("device_inputs (%s): %d cases, runner exit code %d" % (dist, len(cs), rc))

    if failures:
        print("GPU CHECK FAILED:\n  " + "\n  ".join(failures))
        return 1
    print("GPU CHECK PASSED")
    return 0


if __name__ == "__main__":
    sys.exit(main())
