#!/usr/bin/env python3
"""GPU check for the bandwidth side (Bazel tag gpu; also runs from the portable bundle).

Runs experiments/coalescing.yaml, reduce.yaml, reduce_f16.yaml and transpose.yaml, then checks, from the
result files only:
- every case verifies;
- the best reduce reaches >= 0.95 x CUB at n = 2^28 floats;
- the best vectorised copy reaches >= 0.95 x cudaMemcpy device to device at n = 2^28;
- strided copies slow down as DRAM sector arithmetic predicts. A warp whose lanes are S floats apart
  uses 1/S of every 32-byte sector it touches for S <= 8 (the seed's arithmetic); in a full copy the
  other floats of each sector are copied by later passes, after the sector has left the L2, so the
  L2 reads S times the bytes used, and writes as many. ncu on the H100 (docs/results/README.md) shows
  the L2 sector counts exactly so, and the DRAM reading 64 bytes per missed sector: twice the seed's
  read traffic. Bytes moved per byte copied: (2 S + S) / 2, so stride S runs at 2 / (3 S) of stride
  1 (the same kernel with S = 1), checked within MARGIN for S = 2, 3, 4, 8. Beyond S = 8 every lane
  has sectors of its own; stride 32 must run no faster than the seed's 1/8 (plus MARGIN).
Prints every op's GB/s at 2^28 and as % of cudaMemcpy's bandwidth measured in the same run.

usage: gpu_memory_check.py [RUNNER] [--out DIR] [--from DIR]
"""
import argparse
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpu_files  # noqa: E402
from gpu_files import run_experiment as run  # noqa: E402

BIG = "n=268435456"
MARGIN = 0.20  # the stated tolerance around the sector model's predictions, relative
STRIDES = (2, 3, 4, 8)




def cases(h5):
    """gpu_files.cases, with each case's GB/s from its median."""
    out = gpu_files.cases(h5)
    for a in out:
        a["gbs"] = float(a["bytes"]) / (a["median"] * 1e-3) * 1e-9 if a["median"] == a["median"] else float("nan")
    return out


def pick(cs, variant, sizes, params=None):
    for c in cs:
        if c["variant"] == variant and c["sizes"] == sizes and (params is None or c["params"].startswith(params)):
            return c
    return None


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runner", nargs="?", default=os.path.join(root, "runner"))
    ap.add_argument("--out", default=None)
    ap.add_argument("--from", dest="from_dir", default=None, help="check the result files in DIR; run nothing")
    args = ap.parse_args()
    out = args.out or tempfile.mkdtemp(prefix="tilelab-memory-")
    os.makedirs(out, exist_ok=True)
    fails = []
    res = {}
    for name in ("coalescing", "reduce", "reduce_f16", "transpose"):
        h5 = os.path.join(args.from_dir, name + ".h5") if args.from_dir else None
        res[name] = cases(h5 or run(args.runner, os.path.join(root, "experiments", name + ".yaml"), out))
        for c in res[name]:
            if c["status"] != "ok":
                fails.append("%s: %s %s %s: %s %s" % (name, c["variant"], c["params"], c["sizes"], c["status"],
                                                      c["reason"][:160]))

    cp = res["coalescing"]
    memcpy = pick(cp, "memcpy", BIG)
    if not memcpy:
        fails.append("coalescing: no memcpy case at 2^28")
        memcpy_gbs = float("nan")
    else:
        memcpy_gbs = memcpy["gbs"]
    print("\ncudaMemcpy device to device at 2^28 floats: %.0f GB/s (read + write)" % memcpy_gbs)

    # Vectorised copies against cudaMemcpy.
    vec = [c for c in cp if c["sizes"] == BIG and c["variant"] in ("vec2", "vec4") and c["status"] == "ok"]
    if vec and memcpy:
        best = max(vec, key=lambda c: c["gbs"])
        r = best["gbs"] / memcpy_gbs
        print("best vectorised copy: %s %s %.0f GB/s, %.3f x cudaMemcpy (bar 0.95)" % (best["variant"], best["params"],
                                                                                     best["gbs"], r))
        if r < 0.95:
            fails.append("best vectorised copy at %.3f x cudaMemcpy, bar 0.95" % r)
    else:
        fails.append("coalescing: no vectorised copy at 2^28")

    # Strided copies against the sector model.
    s1 = pick(cp, "strided", BIG, "S=1,")
    if s1:
        print("strided copy at 2^28 (stride 1: %.0f GB/s); measured / predicted ratio to stride 1:" % s1["gbs"])
        for s in STRIDES:
            c = pick(cp, "strided", BIG, "S=%d," % s)
            if not c:
                fails.append("coalescing: no stride %d at 2^28" % s)
                continue
            want = 2.0 / (3 * s)
            got = c["gbs"] / s1["gbs"]
            ok = abs(got / want - 1) <= MARGIN
            print("  S=%-2d %7.0f GB/s  ratio %.3f  predicted %.3f (seed's sectors alone: %.3f)  %s" % (
                s, c["gbs"], got, want, 1.0 / s, "ok" if ok else "OFF"))
            if not ok:
                fails.append("stride %d runs at %.3f of stride 1, predicted %.3f +- %d%%" % (s, got, want, MARGIN * 100))
        c = pick(cp, "strided", BIG, "S=32,")
        if c:
            got = c["gbs"] / s1["gbs"]
            ok = got <= (1 + MARGIN) / 8
            print("  S=32 %7.0f GB/s  ratio %.3f = 1/%.0f  (the seed's sectors: at most 1/8)  %s" % (
                c["gbs"], got, 1 / got, "ok" if ok else "OFF"))
            if not ok:
                fails.append("stride 32 runs at %.3f of stride 1, faster than the seed's 1/8" % got)
        else:
            fails.append("coalescing: no stride 32 at 2^28")
    else:
        fails.append("coalescing: no stride 1 at 2^28")
    for v in ("coalesced", "vec2", "vec4", "misvectorized"):
        c = pick(cp, v, BIG)
        if c:
            print("  %-14s %7.0f GB/s  %5.1f%% of cudaMemcpy" % (v, c["gbs"], 100 * c["gbs"] / memcpy_gbs))
    offs = [c for c in cp if c["sizes"] == BIG and c["variant"] == "offset" and c["status"] == "ok"]
    if offs:
        g = [c["gbs"] for c in offs]
        print("  offset 0..31   %7.0f .. %.0f GB/s" % (min(g), max(g)))

    # Reductions against CUB.
    for name, bar in (("reduce", 0.95), ("reduce_f16", None)):
        rs = res[name]
        cub = pick(rs, "cub", BIG)
        mine = [c for c in rs if c["sizes"] == BIG and c["variant"] != "cub" and c["status"] == "ok"]
        if not cub or not mine:
            fails.append("%s: missing cases at 2^28" % name)
            continue
        best = min(mine, key=lambda c: c["median"])
        r = cub["median"] / best["median"]
        print("%s at 2^28: cub %.4f ms %.0f GB/s (%.1f%% of cudaMemcpy); best %s %.4f ms %.0f GB/s: %.3f x CUB%s" % (
            name, cub["median"], cub["gbs"], 100 * cub["gbs"] / memcpy_gbs, best["variant"], best["median"],
            best["gbs"], r, " (bar %.2f)" % bar if bar else ""))
        if bar and r < bar:
            fails.append("%s: best at %.3f x CUB, bar %.2f" % (name, r, bar))

    tr = res["transpose"]
    for c in sorted((c for c in tr if c["sizes"] == "m=16384,n=16384"), key=lambda c: c["median"]):
        print("transpose 16384^2 %-14s %7.0f GB/s  %5.1f%% of cudaMemcpy" % (c["variant"], c["gbs"],
                                                                             100 * c["gbs"] / memcpy_gbs))
    if fails:
        print("GPU MEMORY CHECK FAILED:\n  " + "\n  ".join(fails[:40]))
        return 1
    print("GPU MEMORY CHECK PASSED")
    return 0


if __name__ == "__main__":
    sys.exit(main())
