#!/usr/bin/env python3
"""Markdown tables of the SGEMM ladder from result files (reads only HDF5, never runner output).

usage: sgemm_ladder_md.py LADDER.h5 [--tune TUNE.h5] [--layouts LAYOUTS.h5] [-o OUT.md]

For each rung: GFLOP/s and the ratio to cuBLAS (same file, same size) at 4096 (and the best rung at
2048 and 8192), registers, shared memory and spills of the compiled kernel, and the status. With
--tune: the best shapes found; with --layouts: NN/NT/TN/TT. The machine and date come from the file.
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # the bundle has no installed package
from tilelab_analysis import counters  # noqa: E402
from tilelab_analysis.load import SchemaError, open_result  # noqa: E402

LADDER = ["naive", "gmem_coalesced", "smem_tile", "blocktile_1d", "blocktile_2d", "vectorized", "bank_padding",
          "bank_swizzle", "double_buffer", "warptile", "hopper", "cublas"]


def rung_order(v):
    """Where a variant's rows go in the layouts table: the ladder's order, then what is past it (tf32x3, a
    declared kernel) by name, cuBLAS last."""
    if v == "cublas":
        return (len(LADDER), "")
    return (LADDER.index(v), "") if v in LADDER else (len(LADDER) - 1, v)


def text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def read(path):
    """The file checked like every reader's (load.open_result): a bad file is a SchemaError."""
    with open_result(path) as f:
        env = {k: text(v) for k, v in f["env"].attrs.items()}
        root = {k: text(v) for k, v in f.attrs.items()}
        rows = []
        for g in f["cases"].values():
            a = {k: (text(v) if isinstance(v, (bytes, str)) else v) for k, v in g.attrs.items()}
            t = g["time_ms"][()]
            a["median_ms"] = float(np.median(t)) if len(t) else float("nan")
            a["gflops"] = a["flop"] / (a["median_ms"] * 1e-3) / 1e9 if len(t) else float("nan")
            a["counters"] = {text(r["name"]): float(r["value"]) for r in g["counters"][()]} if "counters" in g else {}
            rows.append(a)
        return root, env, rows


def cublas_at(rows, sizes, layouts):
    for r in rows:
        if r["variant"] == "cublas" and r["sizes"] == sizes and r["layouts"] == layouts and r["status"] == "ok":
            return r
    return None


def ratio(r, rows):
    b = cublas_at(rows, r["sizes"], r["layouts"])
    return b["median_ms"] / r["median_ms"] if b and r["status"] == "ok" else float("nan")


def header(root, env):
    return ("Machine: %s (compute capability %s, %s SMs, driver %s, CUDA runtime %s, cuBLAS %s); "
            "run %s on %s, tilelab %s, commit %s%s.\n" % (
                env.get("device_name"), env.get("compute_capability"), env.get("sms"), env.get("driver_version"),
                env.get("runtime_version"), env.get("cublas_version"), root.get("created_utc"), root.get("host"),
                root.get("tilelab_version"), root.get("git_commit", "")[:12],
                " (dirty)" if root.get("git_dirty") == "1" else ""))


def ladder_table(rows, size):
    out = ["| rung | variant | params | median ms | GFLOP/s | x cuBLAS | regs | smem B | spill B | status |",
           "|---|---|---|---:|---:|---:|---:|---:|---:|---|"]
    for i, v in enumerate(LADDER):
        for r in rows:
            if r["variant"] != v or r["sizes"] != size:
                continue
            spill = r["local_bytes"] if r["local_bytes"] >= 0 else "-"
            out.append("| %s | %s | %s | %.3f | %.0f | %.3f | %s | %s | %s | %s |" % (
                "%02d" % (i + 1) if v != "cublas" else "-", v, r["params"] or "-", r["median_ms"], r["gflops"],
                ratio(r, rows), r["regs"] if r["regs"] >= 0 else "-", r["smem_bytes"] if r["smem_bytes"] >= 0 else "-",
                spill, r["status"]))
    return "\n".join(out)


def counters_table(rows, size):
    """What the hardware counters say about each rung at size (rows without counters left out)."""
    v = counters.value
    out = ["| rung | variant | bank conflicts / shared request | shared requests (M) | DRAM MB | occupancy % | "
           "warps eligible / cycle | issue active % | counted GFLOP |",
           "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    n = 0
    for i, name in enumerate(LADDER):
        for r in rows:
            c = r["counters"]
            if r["variant"] != name or r["sizes"] != size or not c:
                continue
            req = v(c, counters.SHARED_LD) + v(c, counters.SHARED_ST)
            out.append("| %s | %s | %.3f | %.1f | %.0f | %.1f | %.2f | %.1f | %.1f |" % (
                "%02d" % (i + 1) if name != "cublas" else "-", name, v(c, counters.CONFLICTS) / req if req else 0,
                req / 1e6, (v(c, counters.DRAM_READ) + v(c, counters.DRAM_WRITE)) / 1e6, v(c, counters.OCCUPANCY),
                v(c, "smsp__warps_eligible.avg.per_cycle_active"), v(c, "smsp__issue_active.avg.pct_of_peak_sustained_active"),
                (2 * v(c, counters.FFMA) + v(c, counters.FADD) + v(c, counters.FMUL)) / 1e9))
            n += 1
    return "\n".join(out) if n else None


def best_ratios(rows):
    sizes = sorted({r["sizes"] for r in rows}, key=lambda s: [int(x.split("=")[1]) for x in s.split(",")])
    out = ["| size | best rung | x cuBLAS | cuBLAS GFLOP/s |", "|---|---|---:|---:|"]
    for s in sizes:
        cand = [r for r in rows if r["sizes"] == s and r["variant"] != "cublas" and r["status"] == "ok"]
        b = cublas_at(rows, s, cand[0]["layouts"]) if cand else None
        if not cand or not b:
            continue
        best = max(cand, key=lambda r: ratio(r, rows))
        out.append("| %s | %s | %.3f | %.0f |" % (s, best["variant"], ratio(best, rows), b["gflops"]))
    return "\n".join(out)


def counters_section(rows, size):
    t = counters_table(rows, size)
    if not t:
        return ""
    return ("\n## What the counters say at m = n = k = 4096\n\n"
            "One run of each case under CUPTI's range profiler, after its timed runs (`counters:` in\n"
            "sgemm_ladder.yaml; `runner list counters` says what each metric is). Requests are shared load and\n"
            "store warp instructions; DRAM MB, read + written; counted GFLOP, 2 x FFMA + FADD + FMUL from SASS.\n\n" + t)


def main():
    try:
        return write(parse())
    except SchemaError as e:
        print("sgemm_ladder_md: %s" % e, file=sys.stderr)
        return 2


def parse():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("ladder")
    ap.add_argument("--tune")
    ap.add_argument("--layouts")
    ap.add_argument("-o", "--output")
    return ap.parse_args()


def write(args):
    root, env, rows = read(args.ladder)
    extra = [read(p) if p else None for p in (args.tune, args.layouts)]  # every file checked before writing
    doc = ["# SGEMM ladder on %s\n" % env.get("device_name", "the host"),
           "Generated by `analysis/sgemm_ladder_md.py` from the result files; every figure is a median of the",
           "raw samples in them. %s" % header(root, env),
           "## Every rung at m = n = k = 4096\n", ladder_table(rows, "m=4096,n=4096,k=4096"),
           counters_section(rows, "m=4096,n=4096,k=4096"),
           "\n## Best rung against cuBLAS, every size of sgemm_ladder.yaml\n", best_ratios(rows)]
    fails = [r for r in rows if r["status"] not in ("ok",)]
    doc.append("\nCases not ok: %d of %d%s" % (len(fails), len(rows), "".join(
        "\n- %s %s %s: %s %s" % (r["variant"], r["params"], r["sizes"], r["status"], r["reason"]) for r in fails)))
    if args.tune:
        troot, tenv, trows = extra[0]
        ok = [r for r in trows if r["status"] == "ok" and r["variant"] != "cublas"]
        doc.append("\n## Block-shape sweep (sgemm_tune.yaml), 4096^3\n")
        doc.append(header(troot, tenv))
        doc.append("%d shapes run, %d skipped as invalid, %d not ok.\n" % (
            len([r for r in trows if r["variant"] != "cublas" and r["status"] != "skipped"]),
            len([r for r in trows if r["status"] == "skipped"]),
            len([r for r in trows if r["status"] not in ("ok", "skipped")])))
        doc.append("| variant | params | median ms | GFLOP/s | x cuBLAS | regs | smem B |")
        doc.append("|---|---|---:|---:|---:|---:|---:|")
        for v in ("hopper", "warptile"):
            for r in sorted([r for r in ok if r["variant"] == v], key=lambda r: r["median_ms"])[:5]:
                doc.append("| %s | %s | %.3f | %.0f | %.3f | %d | %d |" % (v, r["params"], r["median_ms"], r["gflops"],
                                                                       ratio(r, trows), r["regs"], r["smem_bytes"]))
    if args.layouts:
        lroot, lenv, lrows = extra[1]
        doc.append("\n## Layouts at 4096^3 (a, b: row or col; C row-major)\n")
        doc.append("| variant | layouts | median ms | GFLOP/s | x cuBLAS (same layouts) | status |")
        doc.append("|---|---|---:|---:|---:|---|")
        for r in sorted(lrows, key=lambda r: (r["layouts"], rung_order(r["variant"]))):
            doc.append("| %s | %s | %.3f | %.0f | %.3f | %s |" % (r["variant"], r["layouts"], r["median_ms"], r["gflops"],
                                                               ratio(r, lrows), r["status"]))
    text_out = "\n".join(doc) + "\n"
    if args.output:
        with open(args.output, "w") as f:
            f.write(text_out)
    else:
        sys.stdout.write(text_out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
