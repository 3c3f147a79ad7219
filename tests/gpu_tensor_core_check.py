#!/usr/bin/env python3
"""GPU check for the tensor-core rungs and the CuTe rungs (Bazel tag gpu; also runs from the portable
bundle).

Runs experiments/tensor_core_odd.yaml, tensor_core.yaml, seed003_cute.yaml and (with --tune)
tensor_core_tune.yaml, then checks, from the result files only:
- every case verifies (TF32 and BF16 rungs and cuBLAS at every size and layout, odd sizes and leading
  dimensions, alpha and beta; the CuTe rungs), each with its dtype's tolerance;
- cases compiled from CuTe record the CUTLASS headers' version (the bundle's or the runfiles' VERSION);
- seed 003's table (seed003_cute.yaml): each CuTe rung faster than the one before it at 4096^3;
- the bars of issue 15, each printed with its figure: best TF32 rung >= 0.80 x cuBLAS TF32 and best
  BF16 rung >= 0.75 x cuBLAS BF16 at 4096^3 and 8192^3; best CuTe SIMT rung >= 0.85 x cuBLAS FP32 at
  4096^3. A bar not met fails the check, with the figure.
Prints the rung / cuBLAS table per dtype and size, and the best tuned shapes with --tune.

usage: gpu_tensor_core_check.py [RUNNER] [--out DIR] [--tune]
"""
import argparse
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpu_files import cases, run_experiment as run  # noqa: E402






def tma_aligned(c):
    """Whether both of an sgemm case's operands have rows of a multiple of 16 bytes (TMA can map them)."""
    d = dict(kv.split("=") for kv in c["sizes"].split(","))
    lay = dict(kv.split("=") for kv in c["layouts"].split(","))
    es = 2 if c["dtype"] == "bf16" else 4
    a_row = int(d["k"] if lay["a"] == "row" else d["m"]) * es
    b_row = int(d["n"] if lay["b"] == "row" else d["k"]) * es
    return a_row % 16 == 0 and b_row % 16 == 0


def best_ratio(cs, size, dtype, rung_filter):
    """(best rung case, cuBLAS case, cuBLAS median / best median) at one size and dtype, or None."""
    at = [c for c in cs if c["sizes"] == size and c["dtype"] == dtype and c["status"] == "ok"]
    cb = [c for c in at if c["variant"] == "cublas"]
    rungs = [c for c in at if c["variant"] != "cublas" and rung_filter(c["variant"])]
    if not cb or not rungs:
        return None
    best = min(rungs, key=lambda c: c["median"])
    return best, cb[0], cb[0]["median"] / best["median"]


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runner", nargs="?", default=os.path.join(root, "runner"))
    ap.add_argument("--out", default=None)
    ap.add_argument("--tune", action="store_true")
    args = ap.parse_args()
    out = args.out or tempfile.mkdtemp(prefix="tilelab-tc-")
    os.makedirs(out, exist_ok=True)
    exp = lambda n: os.path.join(root, "experiments", n)
    fails, files = [], {}
    for name in ["tensor_core_odd", "tensor_core", "seed003_cute"] + (["tensor_core_tune"] if args.tune else []):
        files[name] = run(args.runner, exp(name + ".yaml"), out)
        for c in cases(files[name]):
            if c["status"] != "ok" and not (name == "tensor_core_tune" and c["status"] == "skipped"):
                fails.append("%s: %s %s %s %s %s: %s %s" % (name, c["variant"], c["dtype"], c["params"], c["sizes"],
                                                            c["layouts"], c["status"], c["reason"][:200]))
    # The CUTLASS version the runner found, as the bundle (or Bazel's runfiles) carries it.
    here = os.path.dirname(os.path.realpath(args.runner))
    version = None
    for d in (os.environ.get("TILELAB_CUTLASS"), os.path.join(here, "cutlass"), os.path.realpath(args.runner) + ".runfiles/cutlass"):
        if d and os.path.exists(os.path.join(d, "VERSION")):
            version = open(os.path.join(d, "VERSION")).read().strip()
            break
    cute = [c for c in cases(files["seed003_cute"]) if c["variant"].startswith("cute_")]
    if not cute:
        fails.append("seed003_cute: no CuTe case")
    for c in cute:
        if c.get("cutlass_version") != version:
            fails.append("%s %s: cutlass_version %r, the runner's headers are %r" % (c["variant"], c["sizes"],
                                                                                   c.get("cutlass_version"), version))
    # wgmma and wgmma_tma are written with CuTe too; mma_sync and hopper are plain CUDA.
    for c in cases(files["tensor_core"]):
        uses = c["variant"] in ("wgmma", "wgmma_tma") or c["variant"].startswith("cute_")
        # The loader gives a case without the attribute "" (tilelab_analysis.load).
        if c["variant"] != "cublas" and (c.get("cutlass_version") or None) != (version if uses else None):
            fails.append("%s: cutlass_version %r" % (c["variant"], c.get("cutlass_version")))
    # wgmma_tma asks for tensor maps: made for 16-byte aligned rows, refused (its other path) for k = 777.
    for name in ("tensor_core", "tensor_core_odd"):
        for c in cases(files[name]):
            maps = c.get("tensor_maps") or ""
            if c["variant"] != "wgmma_tma":
                if maps:
                    fails.append("%s: %s records tensor_maps %r" % (name, c["variant"], maps))
                continue
            want_refused = not tma_aligned(c)
            if not maps or ("not encoded" in maps) != want_refused:
                fails.append("%s: wgmma_tma %s %s %s: tensor_maps %r" % (name, c["dtype"], c["sizes"], c["layouts"], maps))

    tc = cases(files["tensor_core"])
    print("tensor_core.yaml: rung / cuBLAS with the same dtype (median ms; ratio = cuBLAS time / rung time):")
    for dtype in ("f32", "tf32", "bf16"):
        for size in sorted({c["sizes"] for c in tc}, key=lambda s: [int(x.split("=")[1]) for x in s.split(",")]):
            r = best_ratio(tc, size, dtype, lambda v: True)
            if r:
                best, cb, ratio = r
                flops = float(cb["flop"]) / (cb["median"] * 1e-3) / 1e12
                print("  %-5s %-22s %-10s %8.3f ms  cublas %8.3f ms (%6.1f TFLOP/s)  %.3f x" % (
                    dtype, size, best["variant"], best["median"], cb["median"], flops, ratio))
    bars = [("tf32", "m=4096,n=4096,k=4096", 0.80), ("tf32", "m=8192,n=8192,k=8192", 0.80),
            ("bf16", "m=4096,n=4096,k=4096", 0.75), ("bf16", "m=8192,n=8192,k=8192", 0.75)]
    print("bars:")
    for dtype, size, bar in bars:
        r = best_ratio(tc, size, dtype, lambda v: True)
        if not r:
            fails.append("%s %s: missing cases" % (dtype, size))
            continue
        best, cb, ratio = r
        print("  %-5s %-22s best %-10s %.3f x cuBLAS %s, bar %.2f: %s" % (dtype, size, best["variant"], ratio, dtype,
                                                                      bar, "met" if ratio >= bar else "NOT MET"))
        if ratio < bar:
            fails.append("%s %s: best rung %s at %.3f x cuBLAS, bar %.2f" % (dtype, size, best["variant"], ratio, bar))
    sc = cases(files["seed003_cute"])
    # Seed 003's table: each row faster than the one before it at 4096^3 (each rung's fastest params).
    prev = None
    for v in ("cute_naive", "cute_tiledcopy", "cute_cp_async", "cute_swizzle", "cute_threads_bk", "cute_pipeline"):
        at = [c for c in sc if c["variant"] == v and c["sizes"] == "m=4096,n=4096,k=4096" and c["status"] == "ok"]
        if not at:
            fails.append("seed003_cute: no %s case at 4096^3" % v)
            continue
        ms = min(c["median"] for c in at)
        print("  seed 003 %-16s %8.3f ms%s" % (v, ms, "" if prev is None else "  %.2fx over the row before" % (prev[1] / ms)))
        if prev and ms >= prev[1]:
            fails.append("seed 003: %s (%.3f ms) is not faster than %s (%.3f ms)" % (v, ms, prev[0], prev[1]))
        prev = (v, ms)
    r = best_ratio(sc, "m=4096,n=4096,k=4096", "f32", lambda v: v.startswith("cute_"))
    if r:
        best, cb, ratio = r
        print("  f32   m=4096,n=4096,k=4096 best CuTe %s %.3f x cuBLAS FP32, bar 0.85: %s" % (
            best["variant"], ratio, "met" if ratio >= 0.85 else "NOT MET"))
        if ratio < 0.85:
            fails.append("best CuTe rung %s at %.3f x cuBLAS FP32, bar 0.85" % (best["variant"], ratio))
    else:
        fails.append("seed003_cute: no CuTe and cuBLAS case at 4096^3")
    if args.tune:
        tu = [c for c in cases(files["tensor_core_tune"]) if c["status"] == "ok"]
        for dtype in ("tf32", "bf16"):
            rungs = sorted((c for c in tu if c["dtype"] == dtype and c["variant"] != "cublas"), key=lambda c: c["median"])
            cb = [c for c in tu if c["dtype"] == dtype and c["variant"] == "cublas"]
            print("tensor_core_tune.yaml, %s, fastest shapes (cuBLAS %.3f ms):" % (dtype, cb[0]["median"] if cb else float("nan")))
            for c in rungs[:5]:
                print("  %-60s %8.3f ms  %.3f x  regs %d, smem %d, spills %d" % (
                    c["params"], c["median"], (cb[0]["median"] / c["median"]) if cb else float("nan"), c["regs"],
                    c["smem_bytes"], c["local_bytes"]))
    if fails:
        print("GPU TENSOR CORE CHECK FAILED:\n  " + "\n  ".join(fails[:40]))
        return 1
    print("GPU TENSOR CORE CHECK PASSED")
    return 0


if __name__ == "__main__":
    sys.exit(main())
