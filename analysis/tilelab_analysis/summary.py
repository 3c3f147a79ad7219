"""`summary`: first the verdicts, one row per problem (the fastest verified variant, its params or the
rung it dispatched to, median and noise, rate, % of the op's reference variant in the same file, % of the
device's peak for the math it ran, and why, from its hardware counters); then a table per op of every
case (median and IQR, rate, % of the reference, % of the peak and which peak, samples past the outlier
fences, status, and energy where it was measured); for a file a search made, a row a search (its best
point, its objective, the evaluations and the seconds it took to find it); and, for cases with hardware counters (tilelab/1.3), a table of what they say
(counters.DERIVED). Numbers carry three or four significant digits; units are in the headers.

Exit codes: 0 written; 2 a file could not be read (the message names it). A reader that closes the pipe
early (`summary X.h5 | head`) changes neither."""
import argparse
import sys

import numpy as np
import pandas as pd

from . import cli, counters, search, verdict
from .load import SchemaError, load
from .metrics import OUTLIER_K, reference_of

COLUMNS = ["variant", "params", "sizes", "layouts", "dtype", "median_ms", "iqr_ms", "rate", "pct_ref", "pct_peak",
           "reps", "status"]
CSV_EXTRA = ["math", "peak_name", "peak", "noise_pct", "outliers", "dispatch", "rate_name", "energy_j", "energy_power_w",
             "per_joule", "case_s", "case_id", "file"]
SEARCH_CSV = ["search_step", "search_objective", "search_best", "search_proposer"]


def table(df, op):
    """The summary rows of one op, in the files' order, display headers with units (the rate's by the op);
    params show the rung a dispatching variant ran."""
    d = df[df["op"] == op]
    t = pd.DataFrame({"variant": d["variant"], "params": [verdict.params_shown(r) for _, r in d.iterrows()]})
    for c in ("sizes", "layouts", "dtype"):
        t[c] = d[c]
    t["median (ms)"], t["IQR (ms)"] = d["median_ms"], d["iqr_ms"]
    t["%s" % d["rate_name"].iloc[0]] = d["rate"]
    t["% of reference"], t["% of peak"], t["peak used"] = d["pct_ref"], d["pct_peak"], d["peak_name"]
    if d["energy_j"].notna().any():  # tilelab/1.15: energy runs
        t["energy (J a run)"], t["power (W)"] = d["energy_j"], d["energy_power_w"]
        t["%s a J" % d["rate_name"].iloc[0].split("/")[0]] = d["per_joule"]
    t["outliers"], t["reps"], t["status"] = d["outliers"], d["reps"], d["status"]
    return t.reset_index(drop=True)


def fmt(v):
    """Three or four significant digits, never an exponent for the figures a table holds; "-" for none."""
    if isinstance(v, (float, np.floating)):
        if np.isnan(v):
            return "-"
        if v == 0:
            return "0"
        if abs(v) >= 1000:
            return "%d" % round(float("%.4g" % v))
        if abs(v) < 1e-3:
            return "%.3g" % v
        return "%.4g" % v
    return str(v) if v != "" else "-"


def render_text(t):
    cells = [[str(c) for c in t.columns]] + [[fmt(v) for v in row] for row in t.itertuples(index=False)]
    widths = [max(len(r[i]) for r in cells) for i in range(len(cells[0]))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in cells)


def render_markdown(t):
    head = "| " + " | ".join(str(c) for c in t.columns) + " |"
    sep = "|" + "|".join("---:" if t[c].dtype.kind in "fi" else "---" for c in t.columns) + "|"
    body = ["| " + " | ".join(fmt(v).replace("|", "\\|") for v in row) + " |" for row in t.itertuples(index=False)]
    return "\n".join([head, sep] + body)


def outlier_note(df):
    n = int(df["outliers"].sum())
    cases = int((df["outliers"] > 0).sum())
    return ("%d sample(s) in %d case(s) lie past %g IQRs beyond the quartiles (outliers; the medians stand)"
            % (n, cases, OUTLIER_K)) if n else ""


def main(argv=None):
    ap = argparse.ArgumentParser(prog="summary", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+", help="tilelab result files (.h5)")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--csv", action="store_true", help="CSV, one row a case, machine-readable column names")
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
        extra += [c for c in SEARCH_CSV if c in df]
        out = df[["op"] + COLUMNS + CSV_EXTRA + extra]
        out.to_csv(sys.stdout, index=False)
        return 0
    render = render_markdown if args.markdown else render_text
    head = "### " if args.markdown else ""
    print(head + "Verdicts: the fastest verified variant of each problem")
    print(render(verdict.shown(verdict.table(df), df["file"].nunique())))
    note = outlier_note(df)
    if note:
        print(note)
    print()
    st = search.table(df)
    if not st.empty:
        print(head + "Searches: per problem and variant, the best point and what it took to find it")
        print(render(search.shown(st)))
        print()
    for op in df["op"].unique():
        t = table(df, op)
        print(head + "%s: every case (%% of reference: of %s in the same file; %% of peak: of the peak named "
              "in its row)" % (op, reference_of(df, op) or "-"))
        print(render(t))
        print()
        c = counters.table(df, op) if counters.has_counters(df) else None
        if c is not None and not c.empty:
            print(head + "%s: hardware counters (see `runner list counters`; the columns: analysis/README.md)" % op)
            print(render(c))
            print()
    return 0


def entry():
    """The installed command (pyproject.toml's scripts)."""
    cli.run(main)


if __name__ == "__main__":
    cli.run(main)
