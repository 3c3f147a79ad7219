"""tilelab_analysis: read tilelab result files (HDF5, schema tilelab/1) into pandas, and turn them into
summaries, reports and comparisons. It reads only the files, never the runner's output.

    from tilelab_analysis import load
    df = load("results/smem_tile-20261122T120000Z.h5")   # one row per case
    df.loc[0, "samples"]                                   # the raw time_ms samples of a case
"""
from . import metrics as _metrics
from .load import SchemaError, load, load_meta, resolve_path  # noqa: F401
from .metrics import reference_variant  # noqa: F401


def add_metrics(df, envs=None):
    """metrics.add_metrics on a frame of load's; the /env of a file that envs (path -> /env) lacks is read
    from the file."""
    envs = dict(envs or {})
    for f in df["file"].unique():
        if f not in envs:
            envs[f] = load_meta(f)[1]
    return _metrics.add_metrics(df, envs)
