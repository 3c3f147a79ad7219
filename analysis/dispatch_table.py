#!/usr/bin/env python3
"""Writes a dispatch table (runner/ops/dispatch.h) from the result file(s) of a tuning experiment: for each
problem (sizes, layouts, dtype) the verified cases among the compiled variants (not the library
baselines, not a dispatching variant itself), fastest first, each with its time over the fastest
(rel=, up to REL_KEEP: slower ones are never worth a pick) and its speed against the op's library
variant (cuBLAS) in the same file where there is one. The runner picks, for a problem, the candidate
that did best over the measured problems near it, each time scaled by the op's model of what the shape
costs it (blocks over the device's SMs, tiles past the matrix, packed's copy of its operands).
The header says the op, the device (and its SM count) and when and from what it was measured.

    bazel run //analysis:dispatch_table -- results/sgemm_dispatch_tune-*.h5 -o kernels/sgemm/tuned_h100.table

usage: dispatch_table.py RESULT.h5 [more.h5 ...] [-o TABLE] [--kinds nvrtc[,host]] [-q]
       dispatch_table.py RESULT.h5 [more.h5 ...] --add-to TABLE [--anchor tuned] [--new-problems]
                         [-o NEW_TABLE] [...]
(--kinds: which kinds of variant may be picked; host is for tests on machines without a GPU. A line on
standard error as each file has been read, files read side by side, a large one by several CPUs at once,
each a part of its cases; -q: none.)

--add-to: new candidates into an existing table without measuring its rows again. The files are of an
experiment that ran them on the table's problems beside its dispatching variant with `trials: 1`
(tools/held_out.py --keep ... --anchor writes it), which at a problem the table measured runs the table's
fastest row there: the anchor. A new candidate's rel is its time over the anchor's, times the rel of the
row the anchor ran (1 for the fastest); a candidate the table had already (variant and params) takes its
new row; every row of the problem is then scaled so that its fastest, old or new, stands at 1, and rows
past REL_KEEP go. The header gains a line that says what was added.

--anchor cublas (the op's library, in the files beside the new candidates): the library as the anchor, at
the speed against the problem's fastest row that the table's notes recorded ("0.811 x cublas"); nothing of
the table runs again, so no rung's kernel is compiled but the new candidates' (minutes on a tuned table).
A problem whose fastest row's note has no such figure is left as it was.

--new-problems (with --add-to): the files' problems that the table has no row of join it, each with the
rows a table of the files alone would give it (its own fastest at rel 1). Only for files that ran every
candidate of the tuning at those problems (tools/held_out.py TUNE.yaml NEW_SIZES.yaml, with the library):
a problem measured with a few candidates would rank those few first near it. Problems the table has take
the files' candidates as without it.
"""
import argparse
import os
import re
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
    pick = pickable(ok, kinds)
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
    problems = problem_rows(pick, lib)
    if not problems:
        raise SystemExit("dispatch_table: no verified case of a %s variant to pick" % "/".join(kinds))
    for _, rows in problems:
        lines += rows
    return "\n".join(lines) + "\n", len(problems), sum(len(rows) for _, rows in problems)


def pickable(cases, kinds):
    """The cases a table's rows may name: tilelab's own variants of those kinds, not a dispatching one."""
    return cases[cases["kind"].isin(kinds) & (cases["dispatch"] == "") & (cases["variant_origin"] == "tilelab")]


def problem_rows(pick, lib):
    """Per problem of pick (the pickable verified cases), its rows: the candidates fastest first, each with
    its time over the fastest (up to REL_KEEP) and its speed against the library's case there (lib); as
    [((sizes, layouts, dtype), [row text, ...]), ...] in the table's order (dtype, layouts, sizes)."""
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
        problems.append(((dtype, layouts, dims), (sizes, layouts, dtype), rows))
    return [(key, rows) for _, key, rows in sorted(problems, key=lambda p: p[0])]


ROW_REL = re.compile(r"^(\S+) (\S+) (\S+) (\S+) (\S+) rel=([0-9.]+)(.*)$")


LIB_NOTE = re.compile(r"([0-9.]+) x (\S+)\s*$")


def anchor_rel(case, rows):
    """The anchor's time over the problem's fastest row, from the table: for the op's library (cuBLAS),
    which runs what it ran when the table was measured, its speed against the fastest row in that row's
    note ("..., 1.125 x cublas"), None where the note lacks it; else the rel of the row the anchor's case ran
    (a dispatching variant's `dispatch`, "VARIANT PARAMS (TABLE:LINE)", else the case's own variant and
    params), 1 when the table has no such row."""
    if case.get("kind") == "library":
        fastest = min(rows, key=lambda r: r[2])
        m = LIB_NOTE.search(fastest[3])
        if not m or m.group(2) != case["variant"] or float(m.group(1)) <= 0:
            return None
        return float(m.group(1)) * fastest[2]
    ran = (case.get("dispatch", "") or "").split()
    v, p = (ran[0], ran[1]) if len(ran) >= 2 else (case["variant"], case["params"] or "-")
    return next((r[2] for r in rows if r[0] == v and r[1] == p), 1.0)


def add_rows(text, df, anchor, kinds, device, provenance, new_problems=False):
    """The table text with df's new candidates at its problems (see --add-to); and the counts: problems
    with an anchor, rows added, problems whose fastest row is new. With new_problems, df's problems the
    table lacks join it with their own rows (as a table of df alone has them), counted in rows added and
    problems whose fastest row is new. SystemExit when the table was measured on another device or df has
    nothing to add: no anchor at any of the table's problems (nor, with new_problems, a problem it lacks)."""
    head, problems, order = [], {}, []
    for line in text.splitlines():
        m = ROW_REL.match(line)
        if not m or line.startswith("#"):
            if problems:
                raise SystemExit("dispatch_table: --add-to: a header line among the rows: %s" % line[:80])
            head.append(line)
            continue
        key = m.group(1, 2, 3)
        if key not in problems:
            problems[key] = []
            order.append(key)
        problems[key].append([m.group(4), m.group(5), float(m.group(6)), m.group(7)])
    table_device = next((h[len("device "):] for h in head if h.startswith("device ")), "")
    if table_device and device != table_device:
        raise SystemExit("dispatch_table: --add-to: the table was measured on %s, the files on %s: times of two "
                         "devices do not compare" % (table_device, device))
    ok = df[(df["status"] == "ok") & df["median_ms"].notna()]
    lib = ok[ok["kind"] == "library"]
    anchors, added, faster = 0, 0, 0
    for key in order:
        sizes, layouts, dtype = key
        here = ok[(ok["sizes"] == sizes) & (ok["layouts"] == layouts) & (ok["dtype"] == dtype)]
        a = here[here["variant"] == anchor]
        if not len(a):
            continue
        rel = anchor_rel(a.iloc[0], problems[key])
        if rel is None:
            continue
        anchors += 1
        t0 = float(a["median_ms"].iloc[0]) / rel
        new = pickable(here, kinds)
        new = new[new["variant"] != anchor]
        new = new.sort_values("median_ms").drop_duplicates(["variant", "params"])
        base = lib[(lib["sizes"] == sizes) & (lib["layouts"] == layouts) & (lib["dtype"] == dtype)]
        fresh = {(c["variant"], c["params"] or "-") for _, c in new.iterrows()}
        rows = [r + [False] for r in problems[key] if (r[0], r[1]) not in fresh]
        for _, c in new.iterrows():
            note = "  # %.4f ms" % c["median_ms"]
            if len(base):
                b = base.iloc[0]
                note += ", %.3f x %s" % (b["median_ms"] / c["median_ms"], b["variant"])
            rows.append([c["variant"], c["params"] or "-", c["median_ms"] / t0, note, True])
        scale = min(r[2] for r in rows)  # the problem's fastest row, old or new, stands at 1
        rows = sorted(([v, p, rel / scale, note, is_new] for v, p, rel, note, is_new in rows), key=lambda r: r[2])
        problems[key] = [r for r in rows if round(r[2], 3) <= REL_KEEP]
        added += sum(r[4] for r in problems[key])
        faster += problems[key][0][4]
    library = (ok["variant"] == anchor).any() and (ok[ok["variant"] == anchor]["kind"] == "library").all()
    fresh = []
    if new_problems:
        fresh = [(key, rows) for key, rows in problem_rows(pickable(ok, kinds), lib) if key not in problems]
    if not anchors and not fresh:
        raise SystemExit("dispatch_table: --add-to: no case of %s at the table's problems%s%s" % (
            anchor, " whose fastest row's note has its speed" if library else "",
            ", nor a problem the table lacks" if new_problems else ""))
    at = max([i for i, h in enumerate(head) if h.startswith("# sizes")] or [len(head)])
    how = "its speed against the fastest row in the table's notes" if library else \
        "trials 1, the table's fastest row there"
    also = ""
    if fresh:
        also = ", and %d problems the table had not measured, each with the rows of every candidate the files ran " \
               "there (%d rows)" % (len(fresh), sum(len(rows) for _, rows in fresh))
        added += sum(len(rows) for _, rows in fresh)
        faster += len(fresh)
    head.insert(at, "# Also, %s: %d of the table's problems measured against %s (%s), %d rows added, %d problems "
                    "whose fastest row is new%s" % (provenance, anchors, anchor, how, added, faster, also))
    lines = head + ["%s %s %s %s %s rel=%.3f%s" % (key + (r[0], r[1], r[2], r[3])) for key in order
                    for r in problems[key]]
    lines += [row for _, rows in fresh for row in rows]
    return "\n".join(lines) + "\n", anchors, added, faster


def added_table(paths, table_path, anchor, kinds, quiet=False, new_problems=False):
    """--add-to: the table at table_path with the files' candidates; its problems and rows."""
    try:
        with open(table_path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise SystemExit("dispatch_table: %s: %s" % (table_path, e.strerror))
    meta = []
    df = load(paths, meta=meta)
    devices = sorted({env.get("device_name", "") or "host" for _, env in meta})
    if len(devices) != 1:
        raise SystemExit("dispatch_table: --add-to: the files were measured on %s; one device only" % ", ".join(devices))
    provenance = "; ".join("%s %s (experiment %s)" % (root.get("created_utc", "?"), p, root.get("experiment", "?"))
                           for p, (root, _) in zip(paths, meta))
    new, anchors, added, faster = add_rows(text, df, anchor, kinds, devices[0], provenance, new_problems)
    before, after = table_problems(text), table_problems(new)
    if not quiet:
        print("dispatch_table: --add-to %s: %d problems with %s, %d rows added, the fastest new at %d%s" % (
            table_path, anchors, anchor, added, faster,
            "; %d problems the table lacked" % (len(after) - len(before)) if new_problems else ""), file=sys.stderr)
    return new, len(after), sum(1 for line in new.splitlines() if ROW_REL.match(line) and not line.startswith("#"))


def table_problems(text):
    """The problems (sizes, layouts, dtype) a table's text has rows of."""
    return {m.group(1, 2, 3) for m in map(ROW_REL.match, text.splitlines()) if m and not m.group(1).startswith("#")}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+")
    ap.add_argument("-o", "--output", help="the table file (default: standard output)")
    ap.add_argument("--kinds", default="nvrtc", help="kinds of variant that may be picked (default nvrtc)")
    ap.add_argument("-q", "--quiet", action="store_true", help="no progress line per file read")
    ap.add_argument("--add-to", metavar="TABLE", help="add the files' candidates to this table (see above)")
    ap.add_argument("--anchor", default="tuned", help="with --add-to: the dispatching variant run with trials 1, "
                    "or the op's library (cublas)")
    ap.add_argument("--new-problems", action="store_true", help="with --add-to: the files' problems the table "
                    "lacks join it with their own rows (the files ran every candidate there; see above)")
    a = ap.parse_args()
    try:
        if a.add_to:
            text, n, nrows = added_table(a.files, a.add_to, a.anchor, a.kinds.split(","), a.quiet, a.new_problems)
        else:
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
