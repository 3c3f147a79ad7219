#!/usr/bin/env python3
"""Per-case overhead of the shipped declared ops (experiments/ops/*): each example run once to warm the kernel
cache, then again, and for each op the mean over its cases of the case's time outside its timed runs (the
t_<phase>_s attributes but t_timed_s), with the phases that change with the input guard apart: inputs (the
problem and the guard's copy of its inputs), verify (the verified run and the check of the inputs after it),
and the rest. Given two runners (--before), the same for each, side by side. A benchmark: it prints figures
and checks nothing.

usage: case_overhead.py [RUNNER] [--before RUNNER] [--out DIR]
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

import h5py

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OPS = os.path.join(ROOT, "experiments", "ops")


def overhead(runner, folder, out, label):
    name = os.path.basename(folder)
    h5 = os.path.join(out, "%s_%s.h5" % (name, label))
    yaml = os.path.join(folder, name + ".yaml")
    for _ in range(2):  # the first warms the kernel cache
        if os.path.exists(h5):
            os.remove(h5)
        p = subprocess.run([runner, "run", "-q", yaml, "-o", h5], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
    if p.returncode != 0 or not os.path.exists(h5):
        return None, p.stderr[-300:]
    rows = []
    with h5py.File(h5, "r") as f:
        for c in f["cases"].values():
            if c.attrs.get("status") not in (b"ok", "ok"):
                continue
            t = {k[2:-2]: float(v) for k, v in c.attrs.items() if k.startswith("t_") and k.endswith("_s")}
            rest = sum(v for k, v in t.items() if k not in ("timed", "inputs", "verify"))
            rows.append((t.get("inputs", 0.0), t.get("verify", 0.0), rest))
    n = max(1, len(rows))
    return tuple(sum(r[i] for r in rows) / n for i in range(3)) + (len(rows),), ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runner", nargs="?", default=os.path.join("runner", "runner"))
    ap.add_argument("--before", help="a second runner (an earlier build) to set beside it")
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    out = a.out or tempfile.mkdtemp()
    os.makedirs(out, exist_ok=True)
    runners = [("after", os.path.abspath(a.runner))] + ([("before", os.path.abspath(a.before))] if a.before else [])
    print("%-10s %-7s %6s %12s %12s %12s %12s" % ("op", "runner", "cases", "inputs ms", "verify ms", "rest ms",
                                                   "total ms"))
    for name in sorted(os.listdir(OPS)):
        folder = os.path.join(out, name)
        if not os.path.exists(folder):
            shutil.copytree(os.path.join(OPS, name), folder)
        for label, runner in runners:
            r, why = overhead(runner, folder, out, label)
            if r is None:
                print("%-10s %-7s failed: %s" % (name, label, why))
                continue
            i, v, rest, n = r
            print("%-10s %-7s %6d %12.3f %12.3f %12.3f %12.3f" % (name, label, n, 1e3 * i, 1e3 * v, 1e3 * rest,
                                                                   1e3 * (i + v + rest)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
