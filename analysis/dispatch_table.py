#!/usr/bin/env python3
"""Writes a dispatch table (runner/dispatch.h) from the result file(s) of a tuning experiment: for each
problem (sizes, layouts, dtype) the verified cases among the compiled variants (not the library
baselines, not a dispatching variant itself), fastest first, each with its time over the fastest
(rel=, up to REL_KEEP: slower ones are never worth a pick) and its speed against the op's library
variant (cuBLAS) in the same file where there is one. The runner picks, for a problem, the candidate
that did best over the measured problems near it, each time scaled by the op's model of what the shape
costs it (blocks over the device's SMs, tiles past the matrix, packed's copy of its operands).
The header says the op, the device (and its SM count) and when and from what it was measured.

    bazel run //analysis:dispatch_table -- results/sgemm_dispatch_tune-*.h5 -o kernels/sgemm/tuned_h100.table

usage: dispatch_table.py RESULT.h5 [more.h5 ...] [-o TABLE] [--kinds nvrtc[,host]] [-q]
(--kinds: which kinds of variant may be picked; host is for tests on machines without a GPU. A line on
standard error as each file has been read, files read side by side, one a CPU; -q: none.)
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from tilelab_analysis.load import SchemaError, load  # noqa: E402

REL_KEEP = 1.5  # candidates slower than this over a problem's fastest are left out of its rows


def table(paths, kinds, quiet=False):
    meta, start, read = [], time.monotonic(), []

    def progress(path, cases):  # a tuning sweep's shards take minutes each to read
        read.append(path)
        if not quiet:
            print("dispatch_table: read %s (%d cases), %d of %d files, %.0f s" % (
                path, cases, len(read), len(paths), time.monotonic() - start), file=sys.stderr, flush=True)
    df = load(paths, meta=meta, progress=progress)
    if df.empty:
        raise SystemExit("dispatch_table: no cases in %s" % ", ".join(paths))
    ops = sorted(set(df["op"]))
    if len(ops) != 1:
        raise SystemExit("dispatch_table: the files hold cases of %s; a table is of one op" % ", ".join(ops))
    ok = df[(df["status"] == "ok") & df["median_ms"].notna()]
    lib = ok[ok["kind"] == "library"]
    pick = ok[ok["kind"].isin(kinds) & (ok["dispatch"] == "") & (ok["variant_origin"] == "tilelab")]
    devices = sorted({env.get("device_name", "") or "host" for _, env in meta})
    sms = sorted({int(env.get("sms", 0) or 0) for _, env in meta})
    lines = ["# Written by analysis/dispatch_table.py: per problem, the verified compiled cases within %.2f x "
             "the fastest." % REL_KEEP,
             "op %s" % ops[0], "device %s" % " + ".join(devices),
             "measured %s" % "; ".join("%s %s (experiment %s)" % (root.get("created_utc", "?"), p,
                                                                    root.get("experiment", "?"))
                                        for p, (root, _) in zip(paths, meta)),
             "# sizes layouts dtype variant params rel  measured: median ms, against the library"]
    if len(sms) == 1 and sms[0] > 0:
        lines.insert(3, "sms %d" % sms[0])
    problems = []
    for (sizes, layouts, dtype), g in pick.groupby(["sizes", "layouts", "dtype"], sort=False):
        # One row per candidate (a rung run twice with the same params in one file: its faster run).
        g = g.sort_values("median_ms").drop_duplicates(["variant", "params"])
        fastest = g["median_ms"].iloc[0]
        base = lib[(lib["sizes"] == sizes) & (lib["layouts"] == layouts) & (lib["dtype"] == dtype)]
        rows = []
        for _, c in g.iterrows():
            rel = c["median_ms"] / fastest
            if rel > REL_KEEP:
                break
            note = "%.4f ms" % c["median_ms"]
            if len(base):
                b = base.iloc[0]
                note += ", %.3f x %s" % (b["median_ms"] / c["median_ms"], b["variant"])
            rows.append("%s %s %s %s %s rel=%.3f  # %s" % (sizes, layouts, dtype, c["variant"], c["params"] or "-",
                                                          rel, note))
        dims = [int(v.split("=")[1]) for v in sizes.split(",")]
        problems.append((dtype, layouts, dims, rows))
    if not problems:
        raise SystemExit("dispatch_table: no verified case of a %s variant to pick" % "/".join(kinds))
    for p in sorted(problems, key=lambda p: (p[0], p[1], p[2])):
        lines += p[3]
    return "\n".join(lines) + "\n", len(problems), sum(len(p[3]) for p in problems)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+")
    ap.add_argument("-o", "--output", help="the table file (default: standard output)")
    ap.add_argument("--kinds", default="nvrtc", help="kinds of variant that may be picked (default nvrtc)")
    ap.add_argument("-q", "--quiet", action="store_true", help="no progress line per file read")
    a = ap.parse_args()
    try:
        text, n, nrows = table(a.files, a.kinds.split(","), a.quiet)
    except SchemaError as e:
        print("dispatch_table: %s" % e, file=sys.stderr)
        return 2
    if a.output:
        tmp = a.output + ".tmp"
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, a.output)
        print("dispatch_table: %d problems, %d rows -> %s" % (n, nrows, a.output))
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
