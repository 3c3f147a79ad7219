"""Verdicts: per problem (op, sizes, layouts, dtype of one file) the fastest verified variant, and a short
"why" from its hardware counters. Each reason comes from one rule of RULES, with its threshold; the
README of the analysis lists them (`rules_text()` prints the same table)."""
import os

import numpy as np
import pandas as pd

PROBLEM = ["file", "op", "sizes", "layouts", "dtype"]


def _fin(v):
    try:
        return np.isfinite(float(v))
    except (TypeError, ValueError):
        return False


def _regs(row):
    r = row.get("regs")
    return " (%d registers a thread)" % int(r) if _fin(r) and int(r) > 0 else ""


# (name, the threshold as documented, when it holds, what it says). In this order; at most two are said.
RULES = [
    ("dram-bound", "DRAM bytes per second at the median >= 70% of the DRAM peak",
     lambda r: _fin(r.get("dram_pct_peak")) and r["dram_pct_peak"] >= 70,
     lambda r: "DRAM-bound: %.0f%% of peak bandwidth" % r["dram_pct_peak"]),
    ("fp32-bound", "a case of FP32 SIMT math: counted FP32 FLOP per second >= 60% of the FP32 peak",
     lambda r: r.get("math") == "fp32" and _fin(r.get("flop_pct_peak")) and r["flop_pct_peak"] >= 60,
     lambda r: "FP32-bound: %.0f%% of the FP32 peak" % r["flop_pct_peak"]),
    ("load sectors", "global-load sector efficiency < 50%",
     lambda r: _fin(r.get("ld_sector_eff")) and r["ld_sector_eff"] < 0.5,
     lambda r: "%.3g%% load sector efficiency: strided or misaligned loads" % (100 * r["ld_sector_eff"])),
    ("store sectors", "global-store sector efficiency < 50%",
     lambda r: _fin(r.get("st_sector_eff")) and r["st_sector_eff"] < 0.5,
     lambda r: "%.3g%% store sector efficiency: strided or misaligned stores" % (100 * r["st_sector_eff"])),
    ("bank conflicts", "shared-memory bank conflicts per shared load or store >= 0.5",
     lambda r: _fin(r.get("conflicts_per_request")) and r["conflicts_per_request"] >= 0.5,
     lambda r: "%.2g bank conflicts per shared request" % r["conflicts_per_request"]),
    ("occupancy", "achieved occupancy < 30% of the SM's warps",
     lambda r: _fin(r.get("occupancy_pct")) and r["occupancy_pct"] < 30,
     lambda r: "occupancy %.0f%%%s" % (r["occupancy_pct"], _regs(r))),
    ("extra DRAM traffic", "DRAM bytes >= 1.5 x the op's byte model",
     lambda r: _fin(r.get("dram_vs_model")) and r["dram_vs_model"] >= 1.5,
     lambda r: "%.2gx the model's DRAM bytes" % r["dram_vs_model"]),
]

NO_RULE = "no limit of the rules reached"


def has_counters(row):
    c = row.get("counters")
    return isinstance(c, dict) and bool(c)


def why(row, most=2):
    """The reasons the rules give for a case (a row of load's frame, or a dict), joined by "; ": "" without
    counters, NO_RULE when counters hold but no rule does."""
    if not has_counters(row):
        return ""
    said = [say(row) for _, _, holds, say in RULES if holds(row)]
    return "; ".join(said[:most]) if said else NO_RULE


def rules_text():
    return "\n".join("- %s: %s" % (name, limit) for name, limit, _, _ in RULES)


def params_shown(row):
    """A case's params, and for a dispatching variant the rung and params that ran (its dispatch, up to
    the table's line)."""
    d = row.get("dispatch") or ""
    if d:
        return d.split(" (", 1)[0]
    return row.get("params") or "-"


def table(df):
    """One row per problem, in the files' order: the fastest verified variant, its params (or rung), median,
    noise, rate, % of the reference and of the right peak (and which), verified cases, and why."""
    rows = []
    if df.empty:
        return pd.DataFrame()
    keys = list(zip(*(df[k] for k in PROBLEM)))
    groups = {}
    for i, k in enumerate(keys):
        groups.setdefault(k, []).append(i)
    for k, idx in groups.items():
        g = df.iloc[idx]
        ok = g[(g["status"] == "ok") & (g["reps"] > 0)]
        base = dict(zip(PROBLEM, k))
        if ok.empty:
            rows.append(dict(base, fastest="-", params="-", median_ms=np.nan, noise_pct=np.nan, rate=np.nan,
                             rate_name=g["rate_name"].iloc[0], pct_ref=np.nan, pct_peak=np.nan, peak_name="-",
                             verified="0 of %d" % len(g), why="no verified case"))
            continue
        best = ok.loc[ok["median_ms"].idxmin()].to_dict()
        rows.append(dict(base, fastest=best["variant"], params=params_shown(best), median_ms=best["median_ms"],
                         noise_pct=best["noise_pct"], rate=best["rate"], rate_name=best["rate_name"],
                         pct_ref=best["pct_ref"], pct_peak=best["pct_peak"], peak_name=best["peak_name"],
                         verified="%d of %d" % (len(ok), len(g)), why=why(best) or "-"))
    return pd.DataFrame(rows)


def shown(t, files=1):
    """The verdict table with its display headers: units in them, the rate named by the op, the file
    column only when several files are read."""
    if t.empty:
        return t
    out = pd.DataFrame()
    if files > 1:
        out["file"] = [os.path.basename(f) for f in t["file"]]
    for c in ("op", "sizes", "layouts", "dtype", "fastest", "params"):
        out[c] = t[c]
    out["median (ms)"] = t["median_ms"]
    out["noise (% IQR)"] = t["noise_pct"]
    names = set(t["rate_name"])
    if len(names) == 1:
        out["rate (%s)" % names.pop()] = t["rate"]
    else:
        out["rate"], out["rate unit"] = t["rate"], t["rate_name"]
    out["% of reference"] = t["pct_ref"]
    out["% of peak"] = t["pct_peak"]
    out["peak used"] = t["peak_name"]
    out["verified"] = t["verified"]
    out["why (counters)"] = t["why"]
    return out
