#!/usr/bin/env python3
"""How long the runner takes to refuse experiment files past its limits (a benchmark: it prints figures and checks
nothing): `runner validate` on a file nested 100,000 deep in flow mappings (400 KB), one nested 40,000 deep, one
of 17 MB (past the 16 MiB limit) and, for scale, the shipped experiments/smem_tile.yaml.

usage: config_limits.py [RUNNER] [--out DIR]
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runner", nargs="?", default=os.path.join("runner", "runner"))
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    out = a.out or tempfile.mkdtemp()
    head = "name: deep\nop: sgemm\nseed: 1\nsizes: {mnk: 64}\nvariants: [naive]\n"
    files = []
    for depth in (100000, 40000):
        path = os.path.join(out, "deep%d.yaml" % depth)
        with open(path, "w") as f:
            f.write(head + "description: " + "{a: " * depth + "1" + "}" * depth + "\n")
        files.append(("nested %d deep" % depth, path))
    path = os.path.join(out, "big.yaml")
    with open(path, "w") as f:
        f.write(head + "description: >\n" + ("  " + "x" * 78 + "\n") * (17 * 1024 * 1024 // 81))
    files.append(("17 MB", path))
    files.append(("experiments/smem_tile.yaml", os.path.join(ROOT, "experiments", "smem_tile.yaml")))
    print("%-28s %9s %6s  %s" % ("file", "bytes", "s", "what the runner said"))
    for what, path in files:
        t0 = time.monotonic()
        p = subprocess.run([a.runner, "validate", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        dt = time.monotonic() - t0
        said = (p.stderr.strip().splitlines() or p.stdout.strip().splitlines() or [""])[-1]
        print("%-28s %9d %6.2f  exit %d: %s" % (what, os.path.getsize(path), dt, p.returncode,
                                                  said.replace(out + "/", "")[:110]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
