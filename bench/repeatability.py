#!/usr/bin/env python3
"""repeatability: the same experiment run twice gives medians within 1% for kernels over 100 us.

Runs the runner twice on one experiment file (default experiments/smem_tile.yaml), matches cases by
case_id, and prints the relative difference of the medians of every case whose median is over
100 us. Reads only the result files. Prints figures; not a timed test.

usage: repeatability.py [RUNNER] [EXPERIMENT] [--out DIR]
"""
import argparse
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np


def medians(path):
    with h5py.File(path, "r") as f:
        out = {}
        for cid, g in f["cases"].items():
            t = g["time_ms"][()]
            if len(t):
                a = g.attrs
                label = "%s %s %s" % (a["variant"], a["params"], a["sizes"])
                out[cid] = (label.replace("b''", ""), float(np.median(t)))
        return out


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runner", nargs="?", default=os.path.join(root, "runner"))
    ap.add_argument("experiment", nargs="?", default=os.path.join(root, "experiments", "smem_tile.yaml"))
    ap.add_argument("--out", default=None)
    ap.add_argument("--min-ms", type=float, default=0.1, help="cases with a shorter median are not judged")
    args = ap.parse_args()
    out = args.out or tempfile.mkdtemp(prefix="tilelab-repeat-")
    os.makedirs(out, exist_ok=True)
    runs = []
    for i in (1, 2):
        path = os.path.join(out, "repeat%d.h5" % i)
        if os.path.exists(path):
            os.remove(path)
        p = subprocess.run([args.runner, args.experiment, "-o", path, "-q"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
        if p.returncode != 0:
            sys.exit("run %d failed (%d): %s" % (i, p.returncode, p.stderr))
        runs.append(medians(path))
    worst = 0.0
    print("repeatability of %s: median ms, run 1 vs run 2 (cases over %.3g ms)" % (args.experiment, args.min_ms))
    for cid, (label, m1) in sorted(runs[0].items(), key=lambda kv: kv[1][0]):
        if cid not in runs[1] or m1 < args.min_ms:
            continue
        m2 = runs[1][cid][1]
        d = abs(m2 - m1) / m1
        worst = max(worst, d)
        print("  %-45s %10.4f %10.4f  %5.2f%%" % (label, m1, m2, 100 * d))
    print("REPEATABILITY %s: worst difference %.2f%% (bar 1%%)" % ("PASSED" if worst <= 0.01 else "FAILED", 100 * worst))
    return 0 if worst <= 0.01 else 1


if __name__ == "__main__":
    sys.exit(main())
