"""Searches (an experiment's `search:`, tilelab/1.15): a search is one problem (op, sizes, layouts, dtype) and
one variant entry; its cases carry search_step (the evaluation's number, from 1), search_proposer,
search_objective and search_best. This module turns a frame (load) into a table a search and into each
search's progress, the best objective after each evaluation and after each second of its cases' wall time."""
import numpy as np
import pandas as pd

KEY = ["file", "op", "sizes", "layouts", "dtype", "variant"]
UNITS = {"time": "ms", "energy": "J a run"}


def spec(text):
    """The root attribute `search` ("strategy=bayes;budget=cases:40;objective=time;better=lower;seed=9") as a
    dict; {} without one."""
    if not isinstance(text, str) or "=" not in text:
        return {}
    return dict(kv.split("=", 1) for kv in text.split(";") if "=" in kv)


def searched(df):
    """The cases a search evaluated (search_step >= 1), in their searches' order."""
    if "search_step" not in df or df.empty:
        return df.iloc[0:0]
    steps = pd.to_numeric(df["search_step"], errors="coerce")
    d = df[steps >= 1].copy()
    d["search_step"] = steps[steps >= 1].astype(int)
    return d.sort_values(KEY + ["search_step"], kind="stable")


def progress(d):
    """One search's cases (searched, one KEY): step, the objective's best so far, and the seconds spent so
    far (the cases' wall time: compile, inputs, verification, timing, ...)."""
    d = d.sort_values("search_step")
    return pd.DataFrame({"step": d["search_step"].to_numpy(),
                         "best": pd.to_numeric(d["search_best"], errors="coerce").to_numpy(),
                         "seconds": np.cumsum(d["case_s"].fillna(0).to_numpy())})


def table(df):
    """One row a search: its problem and variant, strategy and budget, points evaluated, the best point's
    params and objective, the evaluation that found it and the seconds spent until then and in all."""
    d = searched(df)
    rows = []
    for key, g in d.groupby(KEY, sort=False):
        s = spec(g["search_spec"].iloc[0])
        higher = s.get("better") == "higher"
        ok = g[(g["status"] == "ok") & pd.to_numeric(g["search_objective"], errors="coerce").notna()]
        obj = s.get("objective", "time")
        p = progress(g)
        row = {"op": key[1], "sizes": key[2], "layouts": key[3], "dtype": key[4], "variant": key[5],
               "strategy": s.get("strategy", "?"), "budget": s.get("budget", "?"), "evaluated": len(g),
               "failed": int((g["status"] != "ok").sum()), "objective": obj}
        if ok.empty:
            row.update(best_params="-", best=np.nan, found_at=np.nan, found_after_s=np.nan)
        else:
            o = pd.to_numeric(ok["search_objective"])
            b = ok.loc[o.idxmax() if higher else o.idxmin()]
            step = int(b["search_step"])
            row.update(best_params=b["params"], best=float(b["search_objective"]), found_at=step,
                       found_after_s=float(p.loc[p["step"] == step, "seconds"].iloc[0]))
        row["seconds"] = float(p["seconds"].iloc[-1]) if len(p) else 0.0
        rows.append(row)
    return pd.DataFrame(rows)


def shown(t):
    """table's rows with display headers (units in them)."""
    if t.empty:
        return t
    unit = t["objective"].map(lambda o: UNITS.get(o, "counter"))
    return pd.DataFrame({"op": t["op"], "sizes": t["sizes"], "layouts": t["layouts"], "dtype": t["dtype"],
                         "variant": t["variant"], "strategy": t["strategy"], "budget": t["budget"],
                         "evaluated": t["evaluated"], "failed": t["failed"], "best params": t["best_params"],
                         "objective": t["objective"] + " (" + unit + ")", "best": t["best"],
                         "found at evaluation": t["found_at"], "found after (s)": t["found_after_s"],
                         "all evaluations (s)": t["seconds"]})
