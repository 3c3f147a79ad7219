"""Result files into a pandas DataFrame, one row per case, raw samples reachable."""
import os

import h5py
import numpy as np
import pandas as pd

SUPPORTED_MAJOR = 1


class SchemaError(ValueError):
    """A file that is not a tilelab result file this package can read."""


def resolve_path(path):
    """Paths as the user typed them: under `bazel run`, relative to where it was run."""
    base = os.environ.get("BUILD_WORKING_DIRECTORY")
    return path if os.path.isabs(path) or not base else os.path.join(base, path)


def _text(v):
    if isinstance(v, bytes):
        return v.decode()
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, np.generic):
        return v.item()
    return v


def _check_schema(path, f):
    schema = _text(f.attrs.get("schema", ""))
    if not isinstance(schema, str) or not schema.startswith("tilelab/"):
        raise SchemaError("%s: not a tilelab result file (no schema attribute 'tilelab/N')" % path)
    try:
        major = int(schema.split("/", 1)[1].split(".")[0])
    except ValueError:
        raise SchemaError("%s: unreadable schema version %r" % (path, schema)) from None
    if major != SUPPORTED_MAJOR:
        raise SchemaError("%s: schema %s, this analysis reads tilelab/%d; use the tilelab version that wrote it"
                          % (path, schema, SUPPORTED_MAJOR))
    return schema


def load_meta(path):
    """The file's root attributes (provenance, config) and /env (machine), as dicts of str/numbers."""
    path = resolve_path(path)
    with h5py.File(path, "r") as f:
        _check_schema(path, f)
        root = {k: _text(v) for k, v in f.attrs.items()}
        env = {k: _text(v) for k, v in f["env"].attrs.items()} if "env" in f else {}
    return root, env


TELEMETRY = ("sm_clock_mhz", "temp_c", "power_w", "throttled")


def _read_cases(path):
    rows = []
    with h5py.File(path, "r") as f:
        _check_schema(path, f)
        device = _text(f["env"].attrs.get("device_name", "")) if "env" in f else ""
        # tilelab/1.1: each case names its session, whose env says where it ran (a merged sweep may
        # span several machines).
        sessions = {}
        for k, g in (f["sessions"].items() if "sessions" in f else []):
            env = g["env"].attrs if "env" in g else {}
            sessions[int(k)] = (_text(env.get("device_name", "")) or "host", _text(env.get("host", "")))
        # Run order, from /summary; cases without a row (a run cut short) after them.
        order = [_text(c) for c in f["summary"]["case_id"][()]] if "summary" in f else []
        names = [n for n in order if n in f["cases"]] + sorted(set(f["cases"]) - set(order))
        for name in names:
            g = f["cases"][name]
            a = {k: _text(v) for k, v in g.attrs.items()}
            a["file"] = path
            a["device"], a["host"] = sessions.get(a.get("session"), (device or "host", ""))
            a["samples"] = g["time_ms"][()] if "time_ms" in g else np.zeros(0)
            for t in TELEMETRY:
                a[t + "_samples"] = g[t][()] if t in g else None
            rows.append(a)
    return rows


def load(paths):
    """One row per case of one file or several. Columns: the case attributes of the schema
    (results/README.md), plus file, device and host (of the case's session), samples (time_ms as a numpy array), the telemetry samples
    (<name>_samples, None without NVML), reps, median_ms, mean_ms, q1_ms, q3_ms, iqr_ms, min_ms,
    max_ms, gflops, gbs (from the median), and the metrics of metrics.add_metrics."""
    from .metrics import add_metrics

    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    rows = []
    for p in paths:
        rows.extend(_read_cases(resolve_path(os.fspath(p))))
    df = pd.DataFrame(rows)
    if df.empty:
        return df
    stats = [_stats(s) for s in df["samples"]]
    for k in ("reps", "median_ms", "mean_ms", "q1_ms", "q3_ms", "iqr_ms", "min_ms", "max_ms"):
        df[k] = [s[k] for s in stats]
    sec = df["median_ms"] * 1e-3
    df["gflops"] = df["flop"].astype(float) / sec / 1e9
    df["gbs"] = df["bytes"].astype(float) / sec / 1e9
    return add_metrics(df)


def _stats(s):
    if len(s) == 0:
        nan = float("nan")
        return dict(reps=0, median_ms=nan, mean_ms=nan, q1_ms=nan, q3_ms=nan, iqr_ms=nan, min_ms=nan, max_ms=nan)
    q1, med, q3 = np.percentile(s, [25, 50, 75])
    return dict(reps=len(s), median_ms=float(med), mean_ms=float(np.mean(s)), q1_ms=float(q1), q3_ms=float(q3),
                iqr_ms=float(q3 - q1), min_ms=float(np.min(s)), max_ms=float(np.max(s)))
