"""Derived figures: the rate an op is judged by, % of the reference variant in the same file, % of the
device's peak for the math the case ran (peaks.py), noise, outlying samples, numeric size columns."""
import numpy as np

from . import peaks as _peaks
from .counters import add_derived

# A sample is an outlier when it lies more than OUTLIER_K interquartile ranges beyond the quartiles
# (Tukey's far-out fences; the report's boxes draw whiskers at 1.5). The range used is at least
# 0.1% of the median, so that identical samples do not make every small difference an outlier.
OUTLIER_K = 3.0

# For files older than schema 1.16, which do not say: the library variant each op shipped then was measured
# against (its registry's first library variant), and the ops judged by bandwidth (older than 1.12). A file of
# 1.16 names its cases' baseline, and of 1.12 their rate: no op is listed here for them.
REFERENCE = {"sgemm": "cublas", "reduce": "cub", "copy": "memcpy", "transpose": "cublas_geam"}
BANDWIDTH_OPS = {"reduce", "copy", "transpose"}


def _text(v):
    return v if isinstance(v, str) and v else None


def reference_variant(op, reference=None, baseline=None):
    """The variant op's cases are measured against: the case's `baseline` as the file says (schema 1.16); in an
    older file a registered op's library (REFERENCE), a declared op's reference variant (the case's
    `reference`)."""
    return _text(baseline) or REFERENCE.get(op, reference)


def reference_of(df, op):
    """reference_variant for op's rows of df."""
    rows = df[df["op"] == op]
    if not len(rows):
        return reference_variant(op)
    return reference_variant(op, rows.iloc[0].get("reference"), rows.iloc[0].get("baseline"))


def rate_name(op, written=None):
    """GB/s or GFLOP/s: as the file says (schema 1.12), else by the registered op."""
    if isinstance(written, str) and written in ("GB/s", "GFLOP/s"):
        return written
    return "GB/s" if op in BANDWIDTH_OPS else "GFLOP/s"


def _match_key(df):
    return list(zip(df["file"], df["op"], df["sizes"], df["layouts"], df["dtype"]))


def outliers(samples, k=OUTLIER_K):
    """How many of samples lie more than k interquartile ranges beyond the quartiles (OUTLIER_K)."""
    s = np.asarray(samples, dtype=float)
    if len(s) < 4:
        return 0
    q1, med, q3 = np.percentile(s, [25, 50, 75])
    r = k * max(q3 - q1, 1e-3 * abs(med))
    return int(np.sum((s < q1 - r) | (s > q3 + r)))


def size_columns(df):
    """{axis: [its value per row]} of the sizes text ("m=2048,n=2048,k=1024"), for the axes that name no
    other column; NaN where a row has no such axis."""
    parsed = [dict((p.split("=", 1)[0], float(p.split("=", 1)[1])) for p in str(s).split(",") if "=" in p)
              for s in df["sizes"]]
    axes = list(dict.fromkeys(a for d in parsed for a in d))
    return {a: [d.get(a, np.nan) for d in parsed] for a in axes if a not in df.columns}


def add_energy(df):
    """tilelab/1.15: energy_j (J a run), energy_power_w and their rate a joule, per_joule (GFLOP/J or GB/J by
    the op's rate), NaN where a case measured no energy; case_s, a case's wall time (its phases, s)."""
    for c in ("energy_j", "energy_power_w", "energy_resolution_j"):
        df[c] = [float(v) if isinstance(v, (int, float, np.number)) else np.nan
                 for v in (df[c] if c in df else [np.nan] * len(df))]
    work = np.where(df["rate_name"] == "GB/s", df["bytes"].astype(float), df["flop"].astype(float))
    df["per_joule"] = work / 1e9 / df["energy_j"]
    phases = [c for c in df.columns if c.startswith("t_") and c.endswith("_s")]
    df["case_s"] = df[phases].astype(float).fillna(0).sum(axis=1) if phases else np.nan


def add_metrics(df, envs):
    """Adds rate (GFLOP/s or GB/s, by op), rate_name, pct_ref (% of the reference variant's speed:
    its median time over this case's, same file, op, sizes, layouts and dtype), math (peaks.case_math),
    peak and peak_name (the device's peak for that math, peaks.peak) and pct_peak (% of it; NaN on the
    host or where the table has no such peak), noise_pct (IQR over median, %), outliers (samples past
    OUTLIER_K IQRs), a numeric column per size axis (m, n, k, ...: size_columns), dispatch ("" but for a
    dispatching variant), and the figures derived from the cases' hardware counters (counters.DERIVED).
    envs: each file's /env as load read it, by path (the package's add_metrics reads those it lacks)."""
    df = df.copy()
    if "dispatch" not in df:
        df["dispatch"] = ""
    df["dispatch"] = [d if isinstance(d, str) else "" for d in df["dispatch"]]
    written = df["rate_name"] if "rate_name" in df else [None] * len(df)
    df["rate_name"] = [rate_name(op, w) for op, w in zip(df["op"], written)]
    df["rate"] = np.where(df["rate_name"] == "GB/s", df["gbs"], df["gflops"])
    keys = _match_key(df)
    ref_time = {}
    refs = df["reference"] if "reference" in df else [None] * len(df)
    bases = df["baseline"] if "baseline" in df else [None] * len(df)
    for k, variant, op, med, status, ref, base in zip(keys, df["variant"], df["op"], df["median_ms"], df["status"],
                                                      refs, bases):
        if variant == reference_variant(op, ref, base) and status == "ok":
            ref_time[k] = med
    df["pct_ref"] = [100.0 * ref_time[k] / m if k in ref_time and m > 0 else np.nan
                     for k, m in zip(keys, df["median_ms"])]
    dtypes = df["dtype"] if "dtype" in df else [""] * len(df)
    df["math"] = [_peaks.case_math(rn, v, d, x) for rn, v, d, x in zip(df["rate_name"], df["variant"], dtypes,
                                                                         df["dispatch"])]
    df["peak"] = [_peaks.peak(envs[f], m) for f, m in zip(df["file"], df["math"])]
    df["peak_name"] = [_peaks.NAMES[m] for m in df["math"]]
    df["pct_peak"] = 100.0 * df["rate"] / df["peak"]
    df["noise_pct"] = [100.0 * i / m if m > 0 else np.nan for i, m in zip(df["iqr_ms"], df["median_ms"])]
    df["outliers"] = [outliers(s) for s in df["samples"]]
    for axis, values in size_columns(df).items():
        df[axis] = values
    add_energy(df)
    peaks = {f: (_peaks.peak(envs[f], "fp32"), _peaks.peak(envs[f], "dram")) for f in df["file"].unique()}
    return add_derived(df, peaks)
