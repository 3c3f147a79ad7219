#!/usr/bin/env python3
"""GPU check for hardware counters (Bazel tag gpu; also runs from the portable bundle). Reads result
files, never the runner's stdout, except for Nsight Compute's own output in check 4.

1. copy `strided` at n = 2^28: measured global-load sector efficiency within 10% of 12.5% at S = 32,
   at least 95% at S = 1; cudaMemcpy (no kernel) says so instead of inventing counters.
2. sgemm at 4096^3: rung 07 `bank_padding` has at most 5% of the shared-memory bank conflicts of rung 06
   `vectorized`; the tilelab rungs' counted FFMAs are m*n*k.
3. copy (vec4, coalesced) at n = 2^28: DRAM bytes read + written within 2% of the op's byte model;
   reductions (two kernels a run) record kernels = 2.
4. For one kernel and launch, every metric the runner collected agrees with `ncu --metrics` within 2%
   (ncu runs here, on the runner without counters). The launch ncu profiles is a timed one, which the
   runner prepares as its counters pass does (outputs reset, L2 flushed by a memset), and ncu leaves
   that state alone (--cache-control none, application replay: every pass reruns the runner, so no
   save and restore touches the L2). With --cache-control all, ncu flushes *and invalidates* the L2
   first, which no timed run gets: DRAM writes then differ by the dirty lines the flush left behind.
   DRAM writes are the metric that shows whether the pass disturbs the L2: the profiler's own buffers
   dirty it (room for 256 kernels a run cost 2 MB of writes, 8% at 2048^3; the runner now asks for
   exactly the run's kernels).
5. Medians with counters on equal medians with counters off within 1% (the pass comes after the timed
   runs): the nearer of two runs without counters, one before and one after it, whose spread is
   printed beside it.

usage: gpu_counters_check.py [RUNNER] [--out DIR] [--ncu NCU]
"""
import argparse
import csv
import io
import os
import shutil
import subprocess
import sys
import tempfile

import h5py
import numpy as np

COPY = """name: counters_copy
op: copy
seed: 11
sizes: [{n: 268435456}]
%s
variants:
  - memcpy
  - coalesced
  - vec4
  - name: strided
    params: {S: [1, 32]}
reference: source
measure: {warmup: 5, min_reps: 20, max_reps: 200, max_noise: 0.003, max_time_s: 2}
"""
SGEMM = """name: counters_sgemm
op: sgemm
seed: 2024
sizes: [{mnk: 4096}]
%s
variants: [vectorized, bank_padding, bank_swizzle, hopper, cublas]
reference: cublas
measure: {warmup: 5, min_reps: 20, max_reps: 200, max_noise: 0.003, max_time_s: 2}
"""
REDUCE = """name: counters_reduce
op: reduce
seed: 5
sizes: [{n: 16777216}]
counters: [memory]
variants: [warp_shuffle, vec4, cub]
measure: {warmup: 3, min_reps: 10, max_reps: 50, max_noise: 0.01, max_time_s: 1}
"""
# The launch check 4 compares: one kernel, every set (memory, smem, occupancy, roofline).
NCU_CASE = """name: counters_ncu
op: sgemm
seed: 2024
sizes: [{mnk: 2048}]
%s
variants: [vectorized]
reference: cublas
measure: {warmup: 0, min_reps: 2, max_reps: 2, max_time_s: 0}
"""


def text(v):
    return v.decode() if isinstance(v, bytes) else v


def cases(path):
    out = []
    with h5py.File(path, "r") as f:
        for g in f["cases"].values():
            a = {k: text(v) for k, v in g.attrs.items()}
            t = g["time_ms"][()]
            a["median_ms"] = float(np.median(t)) if len(t) else float("nan")
            a["counters"] = {text(r["name"]): float(r["value"]) for r in g["counters"][()]} if "counters" in g else {}
            out.append(a)
    return out


def find(cs, variant, params_has=""):
    for c in cs:
        if c["variant"] == variant and params_has in (c.get("params") or ""):
            return c
    return None


def ncu_values(ncu, runner, yaml, out, metrics):
    """Nsight Compute's values of metrics for the first launch of the case's kernel: {name: value}."""
    # Launch 0 is the verified run, 1 and 2 the timed ones (warmup 0): 2 follows a timed run and its
    # reset and flush, as each replay of the counters pass follows the run before it.
    cmd = [ncu, "--clock-control", "none", "--cache-control", "none", "--replay-mode", "application",
           "--csv", "--print-units", "base", "-k", "regex:sgemm_vectorized", "--launch-skip", "2", "-c", "1",
           "--metrics", ",".join(metrics), runner, yaml, "--results-dir", os.path.join(out, "ncu_results"), "-q"]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines = [l for l in p.stdout.splitlines() if l.startswith('"')]
    vals = {}
    for row in csv.DictReader(io.StringIO("\n".join(lines))):
        try:
            vals[row["Metric Name"]] = float(row["Metric Value"].replace(",", ""))
        except (KeyError, ValueError):
            pass
    if not vals:
        print(p.stdout[-3000:], p.stderr[-3000:])
    return vals


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("runner", nargs="?", default=os.path.join("runner", "runner"))
    ap.add_argument("--out", default=None)
    ap.add_argument("--ncu", default=shutil.which("ncu") or "/usr/local/cuda/bin/ncu")
    a = ap.parse_args()
    runner = os.path.abspath(a.runner)
    out = os.path.abspath(a.out or tempfile.mkdtemp())
    os.makedirs(out, exist_ok=True)
    bad = []

    def check(ok, what):
        print(("ok    " if ok else "FAIL  ") + what, flush=True)
        if not ok:
            bad.append(what)
        return ok

    def run(name, yaml):
        path, h5 = os.path.join(out, name + ".yaml"), os.path.join(out, name + ".h5")
        with open(path, "w") as f:
            f.write(yaml)
        if os.path.exists(h5):
            os.remove(h5)  # a result file is never overwritten: a second check into one --out starts afresh
        p = subprocess.run([runner, path, "-o", h5, "-q"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        print("== %s: exit %d\n%s%s" % (name, p.returncode, p.stdout[-4000:], p.stderr[-1500:]), flush=True)
        check(p.returncode == 0 and os.path.exists(h5), "%s: runs, every case verifies (exit %d)" % (name, p.returncode))
        return cases(h5) if os.path.exists(h5) else []

    # The runs with counters between two without: a drift of the GPU's clocks over the minutes of the
    # check (it warms up) moves all three alike, and the nearer run without is the fair comparison.
    copy_off = run("copy_off", COPY % "")
    copy_on = run("copy_on", COPY % "counters: [memory, occupancy]")
    copy_off2 = run("copy_off2", COPY % "")
    sgemm_off = run("sgemm_off", SGEMM % "")
    sgemm_on = run("sgemm_on", SGEMM % "counters: [smem, occupancy, roofline]")
    sgemm_off2 = run("sgemm_off2", SGEMM % "")
    reduce_on = run("reduce_on", REDUCE)

    # 1. Sector efficiency against stride.
    def eff(c):
        k = c["counters"]
        return k["sm__sass_data_bytes_mem_global_op_ld.sum"] / (32 * k["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"])
    s32, s1 = find(copy_on, "strided", "S=32,"), find(copy_on, "strided", "S=1,")
    if check(s32 is not None and s1 is not None and s32["counters"] and s1["counters"], "copy strided: counters collected"):
        check(abs(eff(s32) - 0.125) <= 0.0125, "copy strided S=32: sector efficiency %.2f%% (12.5%% +- 10%%)" % (100 * eff(s32)))
        check(eff(s1) >= 0.95, "copy strided S=1: sector efficiency %.2f%% (>= 95%%)" % (100 * eff(s1)))
    m = find(copy_on, "memcpy")
    check(m is not None and m.get("counters_status") == "no_kernels",
          "cudaMemcpy: counters_status %s (%s)" % (m and m.get("counters_status"), m and m.get("counters_reason")))

    # 2. Bank conflicts: 07 against 06.
    conf = {v: (find(sgemm_on, v) or {}).get("counters", {}).get("l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum")
            for v in ("vectorized", "bank_padding", "bank_swizzle", "hopper", "cublas")}
    print("bank conflicts at 4096^3: %s" % ", ".join("%s %.4g" % (v, c) for v, c in conf.items() if c is not None))
    if check(conf["vectorized"] and conf["bank_padding"] is not None, "sgemm: bank conflicts collected"):
        r = conf["bank_padding"] / conf["vectorized"]
        check(r <= 0.05, "rung 07 bank_padding: %.2f%% of rung 06 vectorized's bank conflicts (<= 5%%)" % (100 * r))
    for v in ("vectorized", "bank_padding", "bank_swizzle", "hopper"):
        c = find(sgemm_on, v)
        ffma = c and c["counters"].get("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum")
        check(ffma == 4096 ** 3, "sgemm %s: counted FFMA %s = m*n*k" % (v, ffma))

    # 3. DRAM bytes against the model; kernels per run.
    for v in ("vec4", "coalesced"):
        c = find(copy_on, v)
        if c and c["counters"]:
            dram = c["counters"]["dram__bytes_read.sum"] + c["counters"]["dram__bytes_write.sum"]
            check(abs(dram / c["bytes"] - 1) <= 0.02, "copy %s at 2^28: DRAM %.4g bytes, model %.4g (%+.2f%%, within 2%%)" % (
                v, dram, c["bytes"], 100 * (dram / c["bytes"] - 1)))
        else:
            check(False, "copy %s: counters collected" % v)
    for v in ("vec4", "cub", "warp_shuffle"):
        c = find(reduce_on, v)
        check(c is not None and c.get("counters_status") == "ok" and int(c.get("counters_kernels", 0)) == 2,
              "reduce %s: counters over its %s kernels" % (v, c and c.get("counters_kernels")))

    # 4. Nsight Compute on the same kernel and launch.
    ncu_on = run("ncu_on", NCU_CASE % "counters: [memory, smem, occupancy, roofline]")
    again = run("ncu_on2", NCU_CASE % "counters: [memory, smem, occupancy, roofline]")
    mine = ncu_on[0]["counters"] if ncu_on else {}
    mine2 = again[0]["counters"] if again else {}
    if os.path.exists(a.ncu) and mine:
        theirs = ncu_values(a.ncu, runner, _write(out, "ncu_off.yaml", NCU_CASE % ""), out, sorted(mine))
        for name in sorted(mine):
            t, v = theirs.get(name), mine[name]
            if t is None:
                check(False, "ncu: %s not reported" % name)
                continue
            dev = abs(v - t) / abs(t) if t else abs(v)
            v2 = mine2.get(name, float("nan"))
            check(dev <= 0.02 or (abs(t) < 1e-9 and abs(v) < 1e-9),
                  "ncu agrees on %-58s runner %.6g, ncu %.6g (%.2f%%; the runner again: %.6g)" % (
                      name, v, t, 100 * dev, v2))
    else:
        check(False, "ncu found (%s) and the runner's counters collected" % a.ncu)

    # 5. Counters do not disturb timing.
    for on, off, off2, what in ((copy_on, copy_off, copy_off2, "copy"), (sgemm_on, sgemm_off, sgemm_off2, "sgemm")):
        for c in on:
            o, o2 = find(off, c["variant"], c["params"] or ""), find(off2, c["variant"], c["params"] or "")
            if not o or not o2 or c["status"] != "ok":
                continue
            # Against the nearer of two runs without counters: a library's median moves by as much between
            # two processes (cuBLAS: 1.5% seen), and the pass, after the timed runs, can only show as a
            # median outside what runs without it give.
            r1, r2 = c["median_ms"] / o["median_ms"] - 1, c["median_ms"] / o2["median_ms"] - 1
            r, noise = min(r1, r2, key=abs), o2["median_ms"] / o["median_ms"] - 1
            check(abs(r) <= 0.01, "%s %s %s: median with counters %.4f ms, without %.4f and %.4f ms (%+.2f%%, "
                  "%+.2f%%; two runs without: %+.2f%%)" % (what, c["variant"], c["params"] or "", c["median_ms"],
                                                          o["median_ms"], o2["median_ms"], 100 * r1, 100 * r2,
                                                          100 * noise))

    print("\nGPU COUNTERS CHECK %s" % ("PASSED" if not bad else "FAILED: %d check(s)" % len(bad)))
    return 0 if not bad else 1


def _write(out, name, body):
    path = os.path.join(out, name)
    with open(path, "w") as f:
        f.write(body)
    return path


if __name__ == "__main__":
    sys.exit(main())
