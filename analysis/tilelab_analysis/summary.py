"""`summary`: a table per op of the cases in result files: variant, params, sizes, median and IQR,
GFLOP/s or GB/s, % of the op's reference variant in the same file, % of the device's peak, status;
and, for cases with hardware counters (tilelab/1.3), a second table of what they say (counters.DERIVED:
sector efficiency, DRAM bytes against the model, bank conflicts per request, occupancy, achieved
FLOP/s and DRAM GB/s as % of the device's peaks)."""
import argparse
import sys

import numpy as np

from . import cli, counters
from .load import SchemaError, load
from .metrics import reference_of

COLUMNS = ["variant", "params", "sizes", "layouts", "dtype", "median_ms", "iqr_ms", "rate", "pct_ref", "pct_peak",
           "reps", "status"]


def table(df, op):
    """The summary rows of one op, in the files' order, with the rate column named by the op."""
    t = df[df["op"] == op][COLUMNS].copy()
    rate = t.pop("rate")
    t.insert(7, df[df["op"] == op]["rate_name"].iloc[0], rate)
    return t.reset_index(drop=True)


def _fmt(v):
    if isinstance(v, float):
        return "-" if np.isnan(v) else ("%.4g" % v if abs(v) < 1000 else "%.0f" % v)
    return str(v) if v != "" else "-"


def render_text(t):
    cells = [[str(c) for c in t.columns]] + [[_fmt(v) for v in row] for row in t.itertuples(index=False)]
    widths = [max(len(r[i]) for r in cells) for i in range(len(cells[0]))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in cells)


def render_markdown(t):
    head = "| " + " | ".join(str(c) for c in t.columns) + " |"
    sep = "|" + "|".join("---:" if t[c].dtype.kind in "fi" else "---" for c in t.columns) + "|"
    body = ["| " + " | ".join(_fmt(v) for v in row) + " |" for row in t.itertuples(index=False)]
    return "\n".join([head, sep] + body)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="summary", description=__doc__)
    ap.add_argument("files", nargs="+", help="tilelab result files (.h5)")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--csv", action="store_true", help="CSV, one table with an op column")
    g.add_argument("--markdown", action="store_true", help="markdown tables, for pasting")
    args = ap.parse_args(argv)
    try:
        df = load(args.files)
    except (OSError, SchemaError) as e:
        print("summary: %s" % e, file=sys.stderr)
        return 2
    if df.empty:
        print("summary: no cases in %s" % ", ".join(args.files), file=sys.stderr)
        return 2
    if args.csv:
        extra = [c for c, _ in counters.DERIVED if counters.has_counters(df) and df[c].notna().any()]
        out = df[["op"] + COLUMNS + ["rate_name", "case_id", "file"] + extra]
        out.to_csv(sys.stdout, index=False)
        return 0
    for op in df["op"].unique():
        t = table(df, op)
        title = "%s (%% ref: %% of %s in the same file; %% peak: of the device's %s peak)" % (
            op, reference_of(df, op) or "-", "DRAM" if t.columns[7] == "GB/s" else "FP32")
        print(("### " if args.markdown else "") + title)
        print(render_markdown(t) if args.markdown else render_text(t))
        print()
        c = counters.table(df, op) if counters.has_counters(df) else None
        if c is not None and not c.empty:
            print(("### " if args.markdown else "") + "%s: hardware counters (see `runner list counters`)" % op)
            print(render_markdown(c) if args.markdown else render_text(c))
            print()
    return 0


if __name__ == "__main__":
    cli.run(main)
