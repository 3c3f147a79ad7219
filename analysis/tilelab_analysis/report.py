"""`report A.h5 [B.h5 ...]`: one self-contained HTML file (figures embedded) and a markdown twin (figures
as PNG files beside it): provenance, ladder, throughput against size, roofline, sample distributions,
the clock and temperature trace, and the cases that failed or were skipped, with their reasons.
Written next to the first input (<name>.report.html, <name>.report.md, <name>.report_files/) unless
-o gives another base path."""
import argparse
import base64
import html
import os
import sys

import pandas as pd

from . import cli, counters, plots
from .load import SchemaError, load, load_meta, resolve_path
from .summary import render_markdown, table

SECTIONS = ["Experiment and provenance", "Ladder", "Throughput against size", "Roofline", "Hardware counters",
            "Sample distributions", "Clock and temperature", "Failed and skipped cases", "Summary tables"]

PROVENANCE = [("experiment", "root"), ("description", "root"), ("created_utc", "root"), ("host", "root"),
              ("device_name", "env"), ("compute_capability", "env"), ("driver_version", "env"),
              ("runtime_version", "env"), ("cublas_version", "env"), ("nvrtc_version", "env"), ("cpu", "env"),
              ("tilelab_version", "root"), ("git_commit", "root"), ("git_dirty", "root"), ("argv", "root"),
              ("protocol", "root"), ("tolerance", "root"), ("verify", "root"), ("data", "root"),
              ("wall_s", "root"), ("timed_s", "root"), ("config_path", "root"), ("config_sha256", "root")]


class Doc:
    """Builds the HTML and the markdown side by side."""

    def __init__(self, files_dir, files_rel):
        self.html, self.md, self.files_dir, self.files_rel, self.n = [], [], files_dir, files_rel, 0

    def h(self, level, text):
        self.html.append("<h%d>%s</h%d>" % (level, html.escape(text), level))
        self.md.append("%s %s\n" % ("#" * level, text))

    def p(self, text):
        self.html.append("<p>%s</p>" % html.escape(text))
        self.md.append(text + "\n")

    def pre(self, text):
        self.html.append("<pre>%s</pre>" % html.escape(text))
        self.md.append("```\n%s\n```\n" % text)

    def table(self, t):
        self.html.append(t.to_html(index=False, na_rep="-", float_format=lambda v: "%.4g" % v, border=0,
                                   classes="t"))
        self.md.append(render_markdown(t) + "\n")

    def figure(self, png, caption):
        if png is None:
            self.p("Nothing to draw: %s." % caption)
            return
        self.n += 1
        name = "fig%02d.png" % self.n
        os.makedirs(self.files_dir, exist_ok=True)
        with open(os.path.join(self.files_dir, name), "wb") as f:
            f.write(png)
        self.html.append('<figure><img alt="%s" src="data:image/png;base64,%s"><figcaption>%s</figcaption></figure>' % (
            html.escape(caption), base64.b64encode(png).decode(), html.escape(caption)))
        self.md.append("![%s](%s/%s)\n" % (caption, self.files_rel, name))


CSS = ("body{font-family:sans-serif;max-width:1100px;margin:2em auto;color:#222}table.t{border-collapse:collapse;"
       "font-size:12px}table.t td,table.t th{padding:2px 8px;border-bottom:1px solid #ddd;text-align:right}"
       "pre{background:#f6f6f6;padding:8px;overflow-x:auto;font-size:12px}img{max-width:100%}")


def build(paths, base):
    df = load(paths)
    files_dir = base + ".report_files"
    doc = Doc(files_dir, os.path.basename(files_dir))
    metas = [load_meta(p) for p in paths]
    doc.h(1, "tilelab report: " + ", ".join(str(m[0].get("experiment", "?")) for m in metas))
    doc.h(2, SECTIONS[0])
    for path, (root, env) in zip(paths, metas):
        doc.h(3, os.path.basename(path))
        rows = [(k, root.get(k) if src == "root" else env.get(k)) for k, src in PROVENANCE]
        doc.table(pd.DataFrame([(k, str(v)) for k, v in rows if v not in (None, "")], columns=["field", "value"]))
        doc.p("Experiment file as run:")
        doc.pre(str(root.get("config_yaml", "")))
    env0 = metas[0][1]
    ops = list(dict.fromkeys(df["op"])) if not df.empty else []
    doc.h(2, SECTIONS[1])
    for op in ops:
        png, what = plots.ladder(df, op)
        doc.figure(png, "%s: %s, per variant and size (best params)" % (op, what or "no measured case"))
    doc.h(2, SECTIONS[2])
    for op in ops:
        doc.figure(plots.perf_vs_size(df, op), "%s: throughput against problem size" % op)
    doc.h(2, SECTIONS[3])
    for op in ops:
        doc.figure(plots.roofline(df, op, env0), "%s: roofline from the op's flop and byte model" % op)
    doc.h(2, SECTIONS[4])
    if not counters.has_counters(df):
        doc.p("No counters in these files (an experiment collects them with `counters:`; see `runner list counters`).")
    for op in ops if counters.has_counters(df) else []:
        t = counters.table(df, op)
        if t.empty:
            continue
        doc.h(3, op)
        doc.table(t)
        png = plots.measured_roofline(df, op, env0)
        if png:
            doc.figure(png, "%s: roofline from the counters (counted flop, measured DRAM bytes)" % op)
    png = plots.sector_efficiency(df) if counters.has_counters(df) else None
    if png:
        doc.figure(png, "copy: measured global-load sector efficiency beside the seeds' model")
    status = df["counters_status"] if "counters_status" in df else []
    why = {s for s, r in zip(status, df.get("counters_reason", [""] * len(df))) if s not in ("", "ok", None)}
    for s in sorted(why):
        doc.p("%d case(s) without counters: %s" % (int(sum(status == s)), s))
    doc.h(2, SECTIONS[5])
    doc.figure(plots.distributions(df), "the samples of each case over its median")
    doc.h(2, SECTIONS[6])
    trace = plots.clock_trace(df)
    doc.figure(trace, "SM clock and temperature, throttled samples in red" if trace else
               "no GPU telemetry in these files (host target, or NVML unavailable)")
    if trace is not None:
        n = int(sum(int(x) for x in df["throttled"]))
        doc.p("%d sample(s) throttled in all." % n)
    doc.h(2, SECTIONS[7])
    bad = df[df["status"] != "ok"] if not df.empty else df
    if bad.empty:
        doc.p("None: every case ran and verified.")
    else:
        doc.table(bad[["status", "op", "variant", "params", "sizes", "layouts", "reason"]].reset_index(drop=True))
    doc.h(2, SECTIONS[8])
    for op in ops:
        doc.h(3, op)
        doc.table(table(df, op))
    page = "<!doctype html><html><head><meta charset='utf-8'><title>tilelab report</title><style>%s</style></head>" \
           "<body>%s</body></html>" % (CSS, "\n".join(doc.html))
    with open(base + ".report.html", "w") as f:
        f.write(page)
    with open(base + ".report.md", "w") as f:
        f.write("\n".join(doc.md))
    return base + ".report.html", base + ".report.md", doc.n


def main(argv=None):
    ap = argparse.ArgumentParser(prog="report", description=__doc__)
    ap.add_argument("files", nargs="+", help="tilelab result files (.h5)")
    ap.add_argument("-o", "--output", help="base path of the outputs (default: the first file without .h5)")
    args = ap.parse_args(argv)
    paths = [resolve_path(p) for p in args.files]
    base = resolve_path(args.output) if args.output else os.path.splitext(paths[0])[0]
    try:
        h, m, n = build(paths, base)
    except (OSError, SchemaError) as e:
        print("report: %s" % e, file=sys.stderr)
        return 2
    print("report: %s and %s (%d figures)" % (h, m, n))
    return 0


if __name__ == "__main__":
    cli.run(main)
