"""The report's figures, each a function of the cases DataFrame returning PNG bytes (or None when the
files hold nothing to draw)."""
import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from .metrics import OUTLIER_K, reference_of  # noqa: E402
from .peaks import NAMES  # noqa: E402

# Distinct colours (no light/dark pairs of one hue); a variant keeps its colour in every figure and in
# every report: its place is a hash of its name, and the library baselines are black.
PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
           "#bcbd22", "#7f7f7f", "#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#3182bd",
           "#e6550d", "#31a354", "#756bb1", "#636363", "#a55194", "#6baed6"]
BASELINES = {"cublas", "cub", "memcpy", "cublas_geam"}
MARKERS = {"fp32": "o", "tf32": "s", "tf32x3": "D", "bf16": "^", "fp16": "v", "fp64": "P", "dram": "o"}


def _hash_slot(variant):
    h = 0
    for ch in str(variant):
        h = (h * 131 + ord(ch)) % 1000003
    return h % len(PALETTE)


_ASSIGNED = {}


def assign_colours(variants):
    """Fixes the colours of a report's variants: each at PALETTE's slot of a hash of its name, and where two
    names hash to one slot, the later name (by name) at the next free slot, so that no two variants of a report
    share a colour. A variant keeps its colour in every report where no other name takes its slot first."""
    _ASSIGNED.clear()
    taken = set()
    for v in sorted({str(v) for v in variants if not _is_baseline(v)}):
        slot = _hash_slot(v)
        for k in range(len(PALETTE)):
            if (slot + k) % len(PALETTE) not in taken:
                slot = (slot + k) % len(PALETTE)
                break
        taken.add(slot)
        _ASSIGNED[v] = PALETTE[slot]


def _is_baseline(variant):
    return variant in BASELINES or str(variant).startswith(("cublas.", "cub."))


def colour(variant):
    """The variant's colour: black for a library baseline, else as assign_colours fixed it (a hash of its name
    when it was not among them)."""
    if _is_baseline(variant):
        return "#000000"
    return _ASSIGNED.get(str(variant), PALETTE[_hash_slot(variant)])


def _legend(ax, **kw):
    """The legend beside the axes, never over the data."""
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0, **kw)


def _png(fig):
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    return buf.getvalue()


def _size_key(sizes):
    return tuple(int(p.split("=")[1]) for p in sizes.split(",") if "=" in p)


def _work(row):
    return float(np.prod([max(d, 1) for d in _size_key(row["sizes"])]))


def _ok(df):
    return df[(df["status"] == "ok") & (df["reps"] > 0)]


def _best_per_variant_size(df):
    """Per (op, variant, sizes, layouts, dtype): the fastest params, so a sweep draws one line."""
    ok = _ok(df)
    if ok.empty:
        return ok
    idx = ok.groupby(["file", "op", "variant", "sizes", "layouts", "dtype"])["median_ms"].idxmin()
    return ok.loc[idx]


def _panels(d):
    """The (layouts, dtype) pairs of d, each a panel: layouts and dtypes are never mixed on one line."""
    return list(dict.fromkeys(zip(d["layouts"], d["dtype"])))


def ladder(df, op):
    """% of the reference variant (same file, size) per size, a bar per variant in its colour, a panel per
    layout and dtype; each bar the variant's best params at that problem. (None, "") when there is
    nothing to compare: no case, or one variant and no reference."""
    d = _best_per_variant_size(df[df["op"] == op])
    if d.empty:
        return None, ""
    col, what = "pct_ref", "%% of %s" % reference_of(df, op)
    if d[col].isna().all():
        if d["variant"].nunique() < 2:
            return None, ""
        best = d.groupby(["file", "sizes", "layouts", "dtype"])["median_ms"].transform("min")
        d = d.assign(pct_ref=100 * best / d["median_ms"])
        what = "% of the fastest variant at that problem (no reference variant in the files)"
    variants = [v for v in dict.fromkeys(df[df["op"] == op]["variant"]) if v in set(d["variant"])]  # run order
    panels = _panels(d)
    sizes = sorted(d["sizes"].unique(), key=_size_key)
    width = min(18, max(7, 0.18 * len(variants) * len(sizes) + 2))
    fig, axes = plt.subplots(len(panels), 1, figsize=(width, 2.8 * len(panels) + 0.6), squeeze=False)
    w = 0.8 / len(variants)
    for ax, (lay, dt) in zip(axes[:, 0], panels):
        p = d[(d["layouts"] == lay) & (d["dtype"] == dt)]
        for k, v in enumerate(variants):
            pv = p[p["variant"] == v].groupby("sizes")["pct_ref"].max()
            ax.bar(np.arange(len(sizes)) + k * w, [pv.get(s, np.nan) for s in sizes], w, color=colour(v),
                   label=v if len(pv) else None)  # the legend names the variants this panel holds
        ax.set_xticks(np.arange(len(sizes)) + 0.4 - w / 2)
        ax.set_xticklabels(sizes, rotation=40, ha="right", fontsize=7)
        ax.set_ylabel(what if len(what) < 30 else "%", fontsize=8)
        ax.axhline(100, color="k", lw=0.8, ls="--")
        ax.set_title("%s %s %s" % (op, lay, dt), fontsize=9)
        _legend(ax)
    fig.suptitle("%s: each variant against %s, best params per problem" % (op, what.split(" (")[0][5:] or what),
                 fontsize=10)
    fig.tight_layout()
    return _png(fig), what


def perf_vs_size(df, op):
    """Rate against problem size, a line per variant in its colour, a panel per layout and dtype."""
    d = _best_per_variant_size(df[df["op"] == op])
    if d.empty or d["sizes"].nunique() < 2:
        return None
    panels = _panels(d)
    ncol = min(2, len(panels))
    nrow = (len(panels) + ncol - 1) // ncol
    fig, axes = plt.subplots(nrow, ncol, figsize=(6.2 * ncol + 1.5, 3.6 * nrow), squeeze=False)
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)
    for ax, (lay, dt) in zip(axes.flat, panels):
        p = d[(d["layouts"] == lay) & (d["dtype"] == dt)]
        for v, g in p.groupby("variant", sort=False):
            g = g.assign(work=[_work(r) for _, r in g.iterrows()]).sort_values("work")
            ax.plot(g["work"], g["rate"], marker=MARKERS.get(g["math"].iloc[0], "o"), ms=3, color=colour(v), label=v)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("problem size (product of the sizes)", fontsize=8)
        ax.set_ylabel(d["rate_name"].iloc[0])
        ax.set_title("%s %s %s (best params per variant)" % (op, lay, dt), fontsize=9)
        _legend(ax)
    fig.tight_layout()
    return _png(fig)


def roofline(df, op, env):
    """GFLOP/s against arithmetic intensity (flop per byte of the op's model): a roof per math the cases
    ran (peaks.peak: FP32 SIMT, TF32, TF32 / 3, BF16, ...) under the DRAM slope, a point per case in its
    variant's colour with its math's marker."""
    from .peaks import peak

    d = _ok(df[df["op"] == op])
    d = d[d["flop"] > 0]
    if d.empty:
        return None
    ai = d["flop"] / d["bytes"]
    x = np.logspace(np.log10(ai.min() / 4), np.log10(ai.max() * 4), 100)
    fig, ax = plt.subplots(figsize=(8, 4.6))
    bw = peak(env, "dram")
    maths = [m for m in dict.fromkeys(d["math"]) if m != "dram"]
    for m in maths:
        fl = peak(env, m)
        if np.isfinite(fl) and np.isfinite(bw):
            ax.plot(x, np.minimum(fl, bw * x), color="0.35", lw=1.1, ls="-" if m == "fp32" else "--")
            ax.annotate("%s %.0f GFLOP/s" % (NAMES[m], fl), (x[-1], fl), fontsize=7, ha="right", va="bottom")
    for v, g in d.groupby("variant", sort=False):
        for m, h in g.groupby("math", sort=False):
            ax.scatter(h["flop"] / h["bytes"], h["gflops"], s=16, color=colour(v), marker=MARKERS.get(m, "o"),
                       label="%s (%s)" % (v, NAMES[m]) if len(maths) > 1 else v)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity, flop / byte (the op's model)")
    ax.set_ylabel("GFLOP/s")
    ax.set_title("%s: roofline, each case under the peak of the math it ran%s" % (
        op, "" if np.isfinite(bw) else " (no DRAM peak in /env)"), fontsize=10)
    _legend(ax)
    return _png(fig)


def measured_roofline(df, op, env):
    """From the counters: achieved GFLOP/s (counted FP32 flop at the timed median) against measured
    arithmetic intensity (counted flop per DRAM byte), each case a labelled point, under the device's
    FP32 and DRAM ceilings from /env. None when no case of op has both counts."""
    d = _ok(df[df["op"] == op])
    if "ai_dram" not in d:
        return None
    d = d[np.isfinite(d["ai_dram"]) & (d["ai_dram"] > 0) & (d["counted_gflop"] > 0)]
    if d.empty:
        return None
    achieved = d["counted_gflop"] / (d["median_ms"] * 1e-3)
    fig, ax = plt.subplots(figsize=(7, 4.2))
    ax.set_prop_cycle(color=plt.cm.tab20.colors)
    lo, hi = float(d["ai_dram"].min()) / 4, float(d["ai_dram"].max()) * 4
    peak_fl, peak_bw = env.get("peak_fp32_gflops"), env.get("peak_dram_gbs")
    if peak_fl and peak_bw:
        ridge = float(peak_fl) / float(peak_bw)
        x = np.logspace(np.log10(min(lo, ridge / 4)), np.log10(max(hi, ridge * 4)), 200)
        ax.plot(x, np.minimum(float(peak_fl), float(peak_bw) * x), "k-", lw=1.2,
                label="FP32 %.0f GFLOP/s, DRAM %.0f GB/s (/env)" % (float(peak_fl), float(peak_bw)))
    seen = set()
    for (v, params, sizes), ai, fl in zip(zip(d["variant"], d["params"], d["sizes"]), d["ai_dram"], achieved):
        ax.scatter([ai], [fl], s=18, color=colour(v), label=None if v in seen else v)
        seen.add(v)
        ax.annotate(params if params else sizes, (ai, fl), fontsize=6, xytext=(3, 3), textcoords="offset points")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity, counted flop / DRAM byte")
    ax.set_ylabel("achieved GFLOP/s (counted flop / median time)")
    ax.set_title("%s: roofline from the hardware counters" % op)
    _legend(ax)
    return _png(fig)


def _param(params, name):
    for p in (params or "").split(","):
        if p.startswith(name + "="):
            return int(p.split("=", 1)[1])
    return None


def sector_efficiency(df):
    """copy: measured global-load sector efficiency against stride S and offset O, beside the seeds'
    model (counters.sector_model). None without copy cases that counted sectors."""
    from .counters import sector_model

    d = _ok(df[df["op"] == "copy"])
    if "ld_sector_eff" not in d:
        return None
    d = d[np.isfinite(d["ld_sector_eff"])]
    panels = []
    for variant, axis in (("strided", "S"), ("offset", "O")):
        g = d[d["variant"] == variant]
        xs = [_param(p, axis) for p in g["params"]]
        if any(x is not None for x in xs):
            panels.append((variant, axis, g.assign(x=xs).dropna(subset=["x"]).sort_values("x")))
    if not panels:
        return None
    fig, axes = plt.subplots(1, len(panels), figsize=(5 * len(panels), 3.6), squeeze=False)
    for ax, (variant, axis, g) in zip(axes[0], panels):
        for sizes, h in g.groupby("sizes", sort=False):
            ax.plot(h["x"], 100 * h["ld_sector_eff"], "o-", ms=3, label="measured, " + sizes)
        xs = np.arange(int(g["x"].min()), int(g["x"].max()) + 1)
        model = [sector_model(x, 0) if axis == "S" else sector_model(1, x) for x in xs]
        ax.plot(xs, 100 * np.array(model), "k--", lw=1, label="model: 1/min(S, 8)" if axis == "S" else
                "model: 4/5 unless O % 8 == 0")
        ax.set_xlabel("%s (%s)" % (axis, "stride, floats" if axis == "S" else "offset, floats"))
        ax.set_ylabel("global-load sector efficiency, %")
        ax.set_ylim(0, 105)
        ax.set_title("copy %s" % variant)
        ax.legend(fontsize=7, loc="lower right" if axis == "O" else "upper right")
    return _png(fig)


def _label(r):
    lab = "%s %s" % (r["variant"], r["params"] or "")
    return "%s | %s %s %s" % (lab.strip(), r["sizes"], r["layouts"], r["dtype"])


def distributions(df, max_cases=40):
    """Each case's samples over its median, for at most max_cases: the cases with outliers first, then the
    fastest of each problem, then the noisiest. The y range stops at the fences (OUTLIER_K IQRs); a sample
    past them is a red triangle at the edge, counted in the title. (png, cases shown, outliers shown)."""
    d = _ok(df)
    d = d[d["reps"] >= 3]
    if d.empty:
        return None, 0, 0
    fastest = d.groupby(["file", "op", "sizes", "layouts", "dtype"])["median_ms"].transform("min") == d["median_ms"]
    d = d.assign(_o=d["outliers"] > 0, _f=fastest).sort_values(["_o", "_f", "noise_pct"], ascending=False)
    d = d.head(max_cases)
    norm = [np.asarray(s) / np.median(s) for s in d["samples"]]
    lo, hi = [], []
    for s in norm:
        q1, q3 = np.percentile(s, [25, 75])
        r = OUTLIER_K * max(q3 - q1, 1e-3)
        lo.append(q1 - r)
        hi.append(q3 + r)
    top, bottom = max(max(hi), 1.01), min(min(lo), 0.99)
    fig, ax = plt.subplots(figsize=(min(18, max(7, 0.32 * len(d) + 2)), 4.6))
    ax.boxplot([np.clip(s, bottom, top) for s in norm], showfliers=False, whis=1.5)
    shown = 0
    for i, (s, a, b) in enumerate(zip(norm, lo, hi)):
        far = s[(s < a) | (s > b)]
        shown += len(far)
        inside = s[(s >= a) & (s <= b)]
        ax.scatter(np.full(len(inside), i + 1), inside, s=3, color="0.4", zorder=2)
        if len(far):
            ax.scatter(np.full(len(far), i + 1), np.clip(far, bottom, top), marker="^", color="red", s=22, zorder=3)
            ax.annotate("%d past, max %.3gx" % (len(far), far.max()), (i + 1, top), fontsize=6, color="red",
                        rotation=90, va="top", ha="right")
    ax.set_ylim(bottom - 0.02 * (top - bottom), top + 0.02 * (top - bottom))
    ax.set_xticks(np.arange(1, len(d) + 1))
    ax.set_xticklabels([_label(r) for _, r in d.iterrows()], rotation=70, ha="right", fontsize=6)
    ax.set_ylabel("sample / median")
    ax.set_title("samples per case (box: quartiles, whiskers 1.5 IQR); %d outlier(s) past %g IQRs in red" % (
        shown, OUTLIER_K), fontsize=9)
    return _png(fig), len(d), shown


def clock_trace(df):
    """SM clock and temperature of every sample in run order; throttled samples marked."""
    have = [r for _, r in df.iterrows() if r["sm_clock_mhz_samples"] is not None and len(r["sm_clock_mhz_samples"])]
    if not have:
        return None
    clk = np.concatenate([r["sm_clock_mhz_samples"] for r in have])
    tmp = np.concatenate([r["temp_c_samples"] for r in have])
    thr = np.concatenate([r["throttled_samples"] for r in have]).astype(bool)
    i = np.arange(len(clk))
    fig, ax = plt.subplots(figsize=(8, 3.6))
    ax.plot(i, clk, lw=0.8, color="tab:blue", label="SM clock, MHz")
    if thr.any():
        ax.scatter(i[thr], clk[thr], color="red", s=8, zorder=3, label="throttled (%d samples)" % thr.sum())
    ax.set_xlabel("sample, in run order")
    ax.set_ylabel("MHz")
    ax2 = ax.twinx()
    ax2.plot(i, tmp, lw=0.8, color="tab:orange", label="temperature, C")
    ax2.set_ylabel("C")
    h1, l1 = ax.get_legend_handles_labels()
    h2, l2 = ax2.get_legend_handles_labels()
    ax.legend(h1 + h2, l1 + l2, fontsize=7, loc="upper left", bbox_to_anchor=(1.08, 1.0), borderaxespad=0)
    ax.set_title("clock and temperature across the run")
    return _png(fig)


# A strategy keeps its colour in every figure; random sampling, the baseline every strategy is held to, grey.
STRATEGY_COLOURS = {"random": "#7f7f7f", "genetic": "#2ca02c", "local": "#ff7f0e", "bayes": "#1f77b4"}


def search_progress(df, max_searches=8):
    """Per search problem (op, sizes, layouts, dtype, variant, objective; at most max_searches), the best objective found
    after each evaluation (left) and after each second of the cases' wall time (right); a line per file, its
    strategy's colour, so that searches of one problem by several strategies (random among them) share axes.
    None without a search."""
    from . import search
    d = search.searched(df)
    if d.empty:
        return None
    d = d.assign(objective=[search.spec(x).get("objective", "time") for x in d["search_spec"]])
    probs = list(dict.fromkeys(zip(d["op"], d["sizes"], d["layouts"], d["dtype"], d["variant"],
                                   d["objective"])))[:max_searches]
    fig, axes = plt.subplots(len(probs), 2, figsize=(10, 2.8 * len(probs)), squeeze=False)
    for row, prob in zip(axes, probs):
        g = d[(d["op"] == prob[0]) & (d["sizes"] == prob[1]) & (d["layouts"] == prob[2]) & (d["dtype"] == prob[3]) &
              (d["variant"] == prob[4]) & (d["objective"] == prob[5])]
        seen = set()
        for path, h in g.groupby("file", sort=False):
            s = search.spec(h["search_spec"].iloc[0])
            p = search.progress(h)
            name = s.get("strategy", "?")
            label = name if name not in seen else None
            seen.add(name)
            for ax, x in zip(row, ("step", "seconds")):
                ax.step(p[x], p["best"], where="post", color=STRATEGY_COLOURS.get(name, "#000000"), label=label)
        obj = prob[5]
        ylabel = "best %s (%s)" % (obj, search.UNITS.get(obj, "counter"))
        row[0].set_xlabel("evaluations")
        row[1].set_xlabel("seconds of the cases (compile, verify, time)")
        for ax in row:
            ax.set_ylabel(ylabel, fontsize=8)
            ax.grid(alpha=0.3)
        row[0].set_title("%s %s %s %s, %s: %s" % prob, fontsize=8, loc="left")
        _legend(row[1])
    fig.tight_layout()
    return _png(fig)
