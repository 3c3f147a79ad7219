"""Derived figures: the rate an op is judged by, % of the reference variant in the same file, % of the
device's peak."""
import numpy as np

from .counters import add_derived

# The library variant each op is measured against (the first library variant of its registry).
REFERENCE = {"sgemm": "cublas", "reduce": "cub", "copy": "memcpy", "transpose": "cublas_geam"}
BANDWIDTH_OPS = {"reduce", "copy", "transpose"}


def reference_variant(op, reference=None):
    """The variant op's cases are measured against: a registered op's library; a declared op's reference
    variant (the case's `reference`)."""
    return REFERENCE.get(op, reference)


def reference_of(df, op):
    """reference_variant for op's rows of df (a declared op's: its cases' `reference`)."""
    rows = df[df["op"] == op]
    ref = rows["reference"].iloc[0] if "reference" in rows and len(rows) else None
    return reference_variant(op, ref)


def rate_name(op, written=None):
    """GB/s or GFLOP/s: as the file says (schema 1.12), else by the registered op."""
    if isinstance(written, str) and written in ("GB/s", "GFLOP/s"):
        return written
    return "GB/s" if op in BANDWIDTH_OPS else "GFLOP/s"


def _match_key(df):
    return list(zip(df["file"], df["op"], df["sizes"], df["layouts"], df["dtype"]))


def add_metrics(df, envs):
    """Adds rate (GFLOP/s or GB/s, by op), rate_name, pct_ref (% of the reference variant's speed:
    its median time over this case's, same file, op, sizes, layouts and dtype) and pct_peak (% of
    the device's FP32 or DRAM peak from /env; NaN on the host), and the figures derived from the
    cases' hardware counters (counters.DERIVED). envs: each file's /env as load read it, by path (the
    package's add_metrics reads those it lacks)."""
    df = df.copy()
    written = df["rate_name"] if "rate_name" in df else [None] * len(df)
    df["rate_name"] = [rate_name(op, w) for op, w in zip(df["op"], written)]
    df["rate"] = np.where(df["rate_name"] == "GB/s", df["gbs"], df["gflops"])
    keys = _match_key(df)
    ref_time = {}
    refs = df["reference"] if "reference" in df else [None] * len(df)
    for k, variant, op, med, status, ref in zip(keys, df["variant"], df["op"], df["median_ms"], df["status"], refs):
        if variant == reference_variant(op, ref) and status == "ok":
            ref_time[k] = med
    df["pct_ref"] = [100.0 * ref_time[k] / m if k in ref_time and m > 0 else np.nan
                     for k, m in zip(keys, df["median_ms"])]
    peaks = {}
    for f in df["file"].unique():
        env = envs[f]
        peaks[f] = (float(env.get("peak_fp32_gflops", np.nan) or np.nan), float(env.get("peak_dram_gbs", np.nan) or np.nan))
    df["pct_peak"] = [100.0 * r / (peaks[f][1] if rn == "GB/s" else peaks[f][0])
                      for r, rn, f in zip(df["rate"], df["rate_name"], df["file"])]
    return add_derived(df, peaks)
