"""Hardware counters (schema tilelab/1.3): the figures derived from them per case, and how they changed
between two runs of the same case. The metrics themselves are the runner's (`runner list counters`);
a derived figure is NaN when a case lacks one of the metrics it needs."""
import numpy as np

LD_REQ_BYTES = "sm__sass_data_bytes_mem_global_op_ld.sum"
LD_SECTORS = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
ST_REQ_BYTES = "sm__sass_data_bytes_mem_global_op_st.sum"
ST_SECTORS = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"
DRAM_READ = "dram__bytes_read.sum"
DRAM_WRITE = "dram__bytes_write.sum"
CONFLICTS = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum"
SHARED_LD = "smsp__inst_executed_op_shared_ld.sum"
SHARED_ST = "smsp__inst_executed_op_shared_st.sum"
OCCUPANCY = "sm__warps_active.avg.pct_of_peak_sustained_active"
FFMA = "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"
FADD = "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum"
FMUL = "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum"

# Derived columns, what each means (the README's table is this one).
DERIVED = [
    ("ld_sector_eff", "global-load sector efficiency: bytes the loads asked for / (32-byte sectors fetched x 32)"),
    ("st_sector_eff", "the same for global stores"),
    ("dram_bytes", "bytes read from and written to DRAM by one run"),
    ("dram_vs_model", "DRAM bytes over the op's byte model (1.0: every byte of the model moved once)"),
    ("conflicts_per_request", "shared-memory bank conflicts per shared load or store instruction"),
    ("occupancy_pct", "achieved occupancy: resident warps per active cycle, % of the SM's maximum"),
    ("counted_gflop", "FP32 GFLOP one run executed, from the SASS counters (2 x FFMA + FADD + FMUL)"),
    ("flop_pct_peak", "counted FLOP per second at the timed median, % of the device's FP32 peak"),
    ("dram_gbs", "DRAM bytes per second at the timed median, GB/s"),
    ("dram_pct_peak", "dram_gbs, % of the device's DRAM peak"),
    ("ai_dram", "arithmetic intensity: counted flop per DRAM byte"),
]

# Short names for the counter changes compare prints.
SHORT = {"dram_bytes": "DRAM bytes", "ld_sector_eff": "load sector eff.", "conflicts": "bank conflicts",
         "occupancy_pct": "occupancy", "counted_gflop": "FP32 flop", "ld_sectors": "load sectors"}


def value(counters, name):
    """A metric's value in a case's counters dict (name -> value), NaN when absent."""
    v = counters.get(name) if isinstance(counters, dict) else None
    return float(v) if v is not None else np.nan


def _ratio(a, b):
    return a / b if b and np.isfinite(b) and b > 0 else np.nan


def derive(counters, model_bytes, median_ms, peak_fp32_gflops, peak_dram_gbs):
    """The derived figures of one case (a dict of DERIVED's columns)."""
    c = counters
    sec = median_ms * 1e-3 if median_ms and np.isfinite(median_ms) else np.nan
    dram = value(c, DRAM_READ) + value(c, DRAM_WRITE)
    flop = 2 * value(c, FFMA) + value(c, FADD) + value(c, FMUL)
    requests = value(c, SHARED_LD) + value(c, SHARED_ST)
    d = {
        "ld_sector_eff": _ratio(value(c, LD_REQ_BYTES), 32 * value(c, LD_SECTORS)),
        "st_sector_eff": _ratio(value(c, ST_REQ_BYTES), 32 * value(c, ST_SECTORS)),
        "dram_bytes": dram,
        "dram_vs_model": _ratio(dram, model_bytes),
        "conflicts_per_request": _ratio(value(c, CONFLICTS), requests),
        "occupancy_pct": value(c, OCCUPANCY),
        "counted_gflop": flop * 1e-9,
        "flop_pct_peak": 100 * _ratio(_ratio(flop, sec) * 1e-9, peak_fp32_gflops),
        "dram_gbs": _ratio(dram, sec) * 1e-9,
        "ai_dram": _ratio(flop, dram),
    }
    d["dram_pct_peak"] = 100 * _ratio(d["dram_gbs"], peak_dram_gbs)
    return d


def add_derived(df, peaks):
    """Adds DERIVED's columns; peaks: file -> (FP32 GFLOP/s, DRAM GB/s) from its /env."""
    df = df.copy()
    rows = [derive(c, b, m, *peaks.get(f, (np.nan, np.nan)))
            for c, b, m, f in zip(df["counters"], df["bytes"].astype(float), df["median_ms"], df["file"])]
    for col, _ in DERIVED:
        df[col] = [r[col] for r in rows]
    return df


def with_counters(df):
    """A boolean mask (numpy) of the rows that have counters."""
    return np.array([isinstance(c, dict) and bool(c) for c in df["counters"]], dtype=bool)


def has_counters(df):
    return "counters" in df and bool(with_counters(df).any())


def table(df, op):
    """The derived figures of one op's cases that have counters: only the columns some case has."""
    d = df[(df["op"] == op).to_numpy() & with_counters(df)]
    from .verdict import why

    cols = [c for c, _ in DERIVED if c in d and d[c].notna().any()]
    t = d[["variant", "params", "sizes", "layouts", "median_ms"] + cols].reset_index(drop=True)
    t["why"] = [why(r) for _, r in d.iterrows()]
    return t


def changes(a, b, min_change=0.02):
    """How b's counters differ from a's (two rows of one case): "DRAM bytes -48%" for each figure that moved
    by more than min_change, largest first."""
    out = []
    figs = {"dram_bytes": (a["dram_bytes"], b["dram_bytes"]),
            "ld_sectors": (value(a["counters"], LD_SECTORS), value(b["counters"], LD_SECTORS)),
            "conflicts": (value(a["counters"], CONFLICTS), value(b["counters"], CONFLICTS)),
            "occupancy_pct": (a["occupancy_pct"], b["occupancy_pct"]),
            "counted_gflop": (a["counted_gflop"], b["counted_gflop"])}
    for k, (x, y) in figs.items():
        if not (np.isfinite(x) and np.isfinite(y)) or (x == 0 and y == 0):
            continue
        if x == 0:
            out.append((np.inf, "%s 0 -> %.3g" % (SHORT[k], y)))
            continue
        r = y / x - 1
        if abs(r) > min_change:
            out.append((abs(r), "%s %+.0f%%" % (SHORT[k], 100 * r)))
    return [s for _, s in sorted(out, key=lambda t: -t[0])]


def sector_model(stride, offset):
    """The seeds' model of global-load sector efficiency for a warp reading 32 floats: stride S floats
    apart uses 4 of every 4 * min(S, 8) bytes fetched (a sector per lane once S >= 8: 12.5%); O floats
    past alignment touches one sector more than the 4 it needs unless O % 8 == 0."""
    if stride > 1:
        return 1.0 / min(stride, 8)
    return 4.0 / 5.0 if offset % 8 else 1.0
