"""`report A.h5 [B.h5 ...]`: one self-contained HTML file (figures embedded, tables sortable by a click
on a header, no network) and a markdown twin (figures as PNG files beside it). It opens with the
verdicts (the fastest verified variant of each problem, % of the reference and of the peak of the math it
ran, why from its counters), then the ladder, throughput against size, the roofline, the counters, the
sample distributions with their outliers, the clock and temperature trace, the cases that failed or were
skipped with their reasons, every case, and the provenance. Written next to the first input
(<name>.report.html, <name>.report.md, <name>.report_files/) unless -o gives another base path.

Exit codes: 0 written; 2 a file could not be read or the output not written (the message names it)."""
import argparse
import base64
import html
import os
import re
import sys

import pandas as pd

from . import cli, counters, plots, search, verdict
from .load import SchemaError, load, resolve_path
from .metrics import OUTLIER_K
from .summary import fmt, outlier_note, render_markdown, table

SECTIONS = ["Verdicts", "Ladder", "Throughput against size", "Roofline", "Hardware counters",
            "Sample distributions", "Clock and temperature", "Failed and skipped cases", "Every case",
            "Experiment and provenance", "Searches"]


def tidy_numbers(text):
    """Floats printed with 17 digits (0.29999999999999999, 1.0000000000000001e-05) as the shortest text
    that reads back as the same double, which is how the YAML wrote them (0.3, 1e-05)."""
    def short(m):
        try:
            return repr(float(m.group(0)))
        except ValueError:
            return m.group(0)
    return re.sub(r"\d+\.\d{12,}(?:e[-+]?\d+)?", short, str(text))

PROVENANCE = [("experiment", "root"), ("description", "root"), ("created_utc", "root"), ("host", "root"),
              ("device_name", "env"), ("compute_capability", "env"), ("driver_version", "env"),
              ("runtime_version", "env"), ("cublas_version", "env"), ("nvrtc_version", "env"), ("cpu", "env"),
              ("tilelab_version", "root"), ("git_commit", "root"), ("git_dirty", "root"), ("argv", "root"),
              ("protocol", "root"), ("tolerance", "root"), ("verify", "root"), ("data", "root"),
              ("wall_s", "root"), ("timed_s", "root"), ("config_path", "root"), ("config_sha256", "root")]


def _cell_class(v):
    """Text reads from the left; long text (a dispatching variant's rung and params, a reason) wraps within its
    column instead of widening the table past the page."""
    if not isinstance(v, str) or v == "" or v == "-":
        return ""
    return ' class="w"' if len(v) > 28 else ' class="s"'


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

    def table(self, t, cls="t"):
        head = "".join("<th>%s</th>" % html.escape(str(c)) for c in t.columns)
        body = "".join("<tr>%s</tr>" % "".join("<td%s>%s</td>" % (_cell_class(v), html.escape(fmt(v))) for v in row)
                       for row in t.itertuples(index=False))
        self.html.append('<div class="scroll"><table class="%s sortable"><thead><tr>%s</tr></thead><tbody>%s'
                         '</tbody></table></div>' % (cls, head, body))
        self.md.append(render_markdown(t) + "\n")

    def figure(self, png, caption):
        if png is None:  # nothing to draw: no figure and no note
            return
        self.n += 1
        name = "fig%02d.png" % self.n
        os.makedirs(self.files_dir, exist_ok=True)
        with open(os.path.join(self.files_dir, name), "wb") as f:
            f.write(png)
        self.html.append('<figure><img alt="%s" src="data:image/png;base64,%s"><figcaption>%s</figcaption></figure>' % (
            html.escape(caption), base64.b64encode(png).decode(), html.escape(caption)))
        self.md.append("![%s](%s/%s)\n" % (caption, self.files_rel, name))


CSS = ("body{font-family:sans-serif;max-width:1200px;margin:2em auto;padding:0 1em;color:#222}"
       "table.t{border-collapse:collapse;font-size:12px}table.t td,table.t th{padding:2px 8px;"
       "border-bottom:1px solid #ddd;text-align:right;white-space:nowrap}table.v td:last-child{white-space:normal;"
       "min-width:18em;text-align:left}div.scroll{overflow-x:auto}table.sortable th{cursor:pointer;background:#f3f3f3}"
       "table.sortable th:after{content:' \\2195';color:#aaa}table.v td:last-child{text-align:left}"
       "pre{background:#f6f6f6;padding:8px;overflow-x:auto;font-size:12px}img{max-width:100%}"
       "figure{margin:1em 0}figcaption{font-size:12px;color:#555}table.t td.s{text-align:left}"
       "table.t td.w{text-align:left;white-space:normal;min-width:22em;max-width:36em;overflow-wrap:anywhere}")

# Sorts a table by the column whose header is clicked (numbers as numbers, "-" last); and records on
# <body> how many images decoded, for the browser check (analysis/report_browser_test.py).
SCRIPT = """
document.querySelectorAll('table.sortable').forEach(function (t) {
  t.querySelectorAll('th').forEach(function (th, col) {
    th.addEventListener('click', function () {
      var body = t.tBodies[0], rows = Array.prototype.slice.call(body.rows);
      var up = th.dataset.dir !== 'up';
      th.dataset.dir = up ? 'up' : 'down';
      function key(r) { var s = r.cells[col].textContent, v = parseFloat(s.replace(/,/g, ''));
        return s === '-' ? null : (isNaN(v) || !/^[-+0-9.]/.test(s) ? s : v); }
      rows.sort(function (a, b) { var x = key(a), y = key(b);
        if (x === null) return 1; if (y === null) return -1;
        if (typeof x !== typeof y) { x = String(x); y = String(y); }
        return (x < y ? -1 : x > y ? 1 : 0) * (up ? 1 : -1); });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
});
window.addEventListener('load', function () {
  var imgs = document.images, ok = 0;
  for (var i = 0; i < imgs.length; i++) if (imgs[i].complete && imgs[i].naturalWidth > 0) ok++;
  document.body.setAttribute('data-images', ok + '/' + imgs.length);
});
"""


def build(paths, base):
    meta = []
    df = load(paths, meta=meta)
    files_dir = base + ".report_files"
    doc = Doc(files_dir, os.path.basename(files_dir))
    doc.h(1, "tilelab report: " + ", ".join(str(m[0].get("experiment", "?")) for m in meta))
    env0 = meta[0][1]
    plots.assign_colours(df["variant"].unique() if not df.empty else [])
    ops = list(dict.fromkeys(df["op"])) if not df.empty else []
    ok = df[df["status"] == "ok"] if not df.empty else df
    doc.p("%d case(s) in %s: %d verified, %d failed or skipped; on %s." % (
        len(df), ", ".join(os.path.basename(p) for p in paths), len(ok), len(df) - len(ok),
        ", ".join(sorted(set(df["device"]))) if not df.empty else "-"))
    doc.h(2, SECTIONS[0])
    if not df.empty:
        doc.table(verdict.shown(verdict.table(df), len(paths)), "t v")
        doc.p("% of peak: the case's rate over the device's peak for the math it ran (the 'peak used' column; "
              "tensor-core peaks from the table in analysis/tilelab_analysis/peaks.py, tf32x3 under a third of "
              "TF32). Noise: the IQR over the median. Why: the first rules that hold on the case's counters "
              "(analysis/README.md), '-' where no counters were collected.")
        note = outlier_note(df)
        if note:
            doc.p(note + ".")
    st = search.table(df) if not df.empty else None
    if st is not None and not st.empty:
        doc.h(2, SECTIONS[10])
        doc.table(search.shown(st), "t v")
        doc.p("A search is one problem and one variant entry; its budget is its own. Found after: the seconds its "
              "cases took (compiling, verifying, timing) until the best was measured.")
        doc.figure(plots.search_progress(df), "the best objective so far against evaluations and against the seconds "
                   "of the cases; a line a file, coloured by strategy (random sampling grey)")
    shown = [(op, plots.ladder(df, op)) for op in ops]
    if any(png for _, (png, _) in shown):
        doc.h(2, SECTIONS[1])
    for op, (png, what) in shown:
        doc.figure(png, "%s: %s, per problem; a panel per layout and dtype, each bar the variant's best params"
                   % (op, what))
    figs = [(op, plots.perf_vs_size(df, op)) for op in ops]
    if any(p for _, p in figs):
        doc.h(2, SECTIONS[2])
    for op, png in figs:
        doc.figure(png, "%s: throughput against problem size, best params per variant" % op)
    figs = [(op, plots.roofline(df, op, env0)) for op in ops]
    if any(p for _, p in figs):
        doc.h(2, SECTIONS[3])
    for op, png in figs:
        doc.figure(png, "%s: roofline from the op's flop and byte model; a roof per math the cases ran" % op)
    if counters.has_counters(df):
        doc.h(2, SECTIONS[4])
        for op in ops:
            t = counters.table(df, op)
            if t.empty:
                continue
            doc.h(3, op)
            doc.table(t, "t v")  # its last column is the why, as in the verdicts
            used = [c for c in t.columns if c in dict(counters.DERIVED)]
            doc.p("; ".join("%s: %s" % (c, dict(counters.DERIVED)[c]) for c in used) + ".")
            doc.figure(plots.measured_roofline(df, op, env0),
                       "%s: roofline from the counters (counted flop, measured DRAM bytes)" % op)
        doc.figure(plots.sector_efficiency(df), "copy: measured global-load sector efficiency beside the model")
        status = df["counters_status"] if "counters_status" in df else []
        for s in sorted({x for x in status if x not in ("", "ok", None)}):
            doc.p("%d case(s) without counters: %s" % (int(sum(status == s)), s))
    png, n, far = plots.distributions(df)
    if png:
        doc.h(2, SECTIONS[5])
        doc.figure(png, "the samples of %d case(s) over their medians (those with outliers first, then each "
                   "problem's fastest); %d sample(s) past %g IQRs" % (n, far, OUTLIER_K))
    trace = plots.clock_trace(df)
    if trace is not None:
        doc.h(2, SECTIONS[6])
        n = int(sum(int(x) for x in df["throttled"]))
        doc.figure(trace, "SM clock and temperature of every sample in run order" +
                   (", throttled samples in red" if n else "; no sample was throttled"))
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
    doc.h(2, SECTIONS[9])
    for path, (root, env) in zip(paths, meta):
        doc.h(3, os.path.basename(path))
        rows = [(k, root.get(k) if src == "root" else env.get(k)) for k, src in PROVENANCE]
        doc.table(pd.DataFrame([(k, tidy_numbers(v)) for k, v in rows if v not in (None, "")],
                               columns=["field", "value"]))
        doc.p("Experiment file as run:")
        doc.pre(str(root.get("config_yaml", "")))
    page = "<!doctype html><html><head><meta charset='utf-8'><title>tilelab report</title><style>%s</style></head>" \
           "<body>%s<script>%s</script></body></html>" % (CSS, "\n".join(doc.html), SCRIPT)
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


def entry():
    """The installed command (pyproject.toml's scripts)."""
    cli.run(main)


if __name__ == "__main__":
    cli.run(main)
