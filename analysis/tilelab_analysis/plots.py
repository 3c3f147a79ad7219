"""The report's figures, each a function of the cases DataFrame returning PNG bytes (or None when the
files hold nothing to draw)."""
import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from .metrics import reference_of  # noqa: E402


def _png(fig):
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
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


def ladder(df, op):
    """% of the reference variant (same file, size) per variant, one bar group per size."""
    d = _best_per_variant_size(df[df["op"] == op])
    if d.empty:
        return None, ""
    col, what = "pct_ref", "%% of %s" % reference_of(df, op)
    if d[col].isna().all():
        best = d.groupby(["file", "sizes", "layouts", "dtype"])["median_ms"].transform("min")
        d = d.assign(pct_ref=100 * best / d["median_ms"])
        what = "% of the fastest variant at that size (no reference variant in the files)"
    variants = [v for v in dict.fromkeys(df[df["op"] == op]["variant"]) if v in set(d["variant"])]  # run order
    sizes = sorted(d["sizes"].unique(), key=_size_key)
    fig, ax = plt.subplots(figsize=(max(6, 0.55 * len(variants) * max(1, len(sizes)) ** 0.5), 4.2))
    w = 0.8 / len(sizes)
    for k, s in enumerate(sizes):
        ds = d[d["sizes"] == s].groupby("variant")["pct_ref"].max()
        ax.bar(np.arange(len(variants)) + k * w, [ds.get(v, np.nan) for v in variants], w, label=s)
    ax.set_xticks(np.arange(len(variants)) + 0.4 - w / 2)
    ax.set_xticklabels(variants, rotation=40, ha="right")
    ax.set_ylabel(what)
    ax.axhline(100, color="k", lw=0.8, ls="--")
    ax.set_title("%s: each variant against the reference, per size" % op)
    if len(sizes) <= 12:
        ax.legend(fontsize=7, ncol=2)
    return _png(fig), what


def perf_vs_size(df, op):
    d = _best_per_variant_size(df[df["op"] == op])
    if d.empty or d["sizes"].nunique() < 2:
        return None
    fig, ax = plt.subplots(figsize=(7, 4.2))
    ax.set_prop_cycle(color=plt.cm.tab20.colors)
    for v, g in d.groupby("variant", sort=False):
        g = g.assign(work=[_work(r) for _, r in g.iterrows()]).sort_values("work")
        ax.plot(g["work"], g["rate"], marker="o", ms=3, label=v)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("problem size (product of the sizes)")
    ax.set_ylabel(d["rate_name"].iloc[0])
    ax.set_title("%s: throughput against size (best params per variant)" % op)
    ax.legend(fontsize=7, ncol=2)
    return _png(fig)


def roofline(df, op, env):
    """GFLOP/s against arithmetic intensity (flop per byte of the op's model), under the device's peaks
    from /env and the best rates measured in the files."""
    d = _ok(df[df["op"] == op])
    d = d[d["flop"] > 0]
    if d.empty:
        return None
    ai = d["flop"] / d["bytes"]
    # Measured ceilings: the best GFLOP/s of any case, and the best GB/s of a bandwidth op (copy,
    # reduce, transpose) when one of the files holds one (an SGEMM's GB/s is no memory ceiling).
    ok = _ok(df)
    measured_fl = float(np.nanmax(ok["gflops"]))
    bw = ok[ok["rate_name"] == "GB/s"]["gbs"]
    measured_bw = float(np.nanmax(bw)) if len(bw) else None
    x = np.logspace(np.log10(ai.min() / 4), np.log10(ai.max() * 4), 100)
    fig, ax = plt.subplots(figsize=(7, 4.2))
    ax.set_prop_cycle(color=plt.cm.tab20.colors)
    peak_fl, peak_bw = env.get("peak_fp32_gflops"), env.get("peak_dram_gbs")
    if peak_fl and peak_bw:
        ax.plot(x, np.minimum(float(peak_fl), float(peak_bw) * x), "k-", lw=1.2,
                label="device peaks: %.0f GFLOP/s, %.0f GB/s" % (float(peak_fl), float(peak_bw)))
    if measured_bw:
        ax.plot(x, np.minimum(measured_fl, measured_bw * x), "k--", lw=1,
                label="measured in these files: %.0f GFLOP/s, %.0f GB/s" % (measured_fl, measured_bw))
    else:
        ax.axhline(measured_fl, color="k", ls="--", lw=1, label="best measured in these files: %.0f GFLOP/s" % measured_fl)
    for v, g in d.groupby("variant", sort=False):
        ax.scatter(g["flop"] / g["bytes"], g["gflops"], s=14, label=v)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity, flop / byte (the op's model)")
    ax.set_ylabel("GFLOP/s")
    ax.set_title("%s: roofline" % op)
    ax.legend(fontsize=7)
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
    for (v, params, sizes), ai, fl in zip(zip(d["variant"], d["params"], d["sizes"]), d["ai_dram"], achieved):
        ax.scatter([ai], [fl], s=18)
        ax.annotate(v, (ai, fl), fontsize=6, xytext=(3, 3), textcoords="offset points")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity, counted flop / DRAM byte")
    ax.set_ylabel("achieved GFLOP/s (counted flop / median time)")
    ax.set_title("%s: roofline from the hardware counters" % op)
    ax.legend(fontsize=7)
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
        ax.legend(fontsize=7)
    return _png(fig)


def distributions(df, max_cases=30):
    """Each case's samples over its median, for the cases with the most samples (at most max_cases)."""
    d = _ok(df)
    d = d[d["reps"] >= 3]
    if d.empty:
        return None
    d = d.sort_values("reps", ascending=False).head(max_cases)
    fig, ax = plt.subplots(figsize=(max(6, 0.3 * len(d)), 4.2))
    ax.boxplot([s / np.median(s) for s in d["samples"]], showfliers=True, flierprops={"ms": 2})
    ax.set_xticks(np.arange(1, len(d) + 1))
    ax.set_xticklabels(["%s %s" % (v, s) for v, s in zip(d["variant"], d["sizes"])], rotation=60, ha="right",
                       fontsize=6)
    ax.set_ylabel("sample / median")
    ax.set_title("time samples per case (box: quartiles; whiskers 1.5 IQR)")
    return _png(fig)


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
    ax.legend(h1 + h2, l1 + l2, fontsize=7, loc="lower left")
    ax.set_title("clock and temperature across the run")
    return _png(fig)
