"""What the GPU checks share: running an experiment into a fresh result file, and reading its cases."""
import os
import subprocess

import h5py
import numpy as np


def run_experiment(runner, yaml, out):
    """Runs yaml into OUT/<name>.h5 (removed first: result files are never overwritten), prints the
    runner's table without its progress lines, and returns the file's path."""
    h5 = os.path.join(out, os.path.basename(yaml).replace(".yaml", ".h5"))
    if os.path.exists(h5):
        os.remove(h5)
    p = subprocess.run([runner, yaml, "-o", h5, "-q"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print("\n".join(l for l in p.stdout.splitlines() if not l.startswith("[")))
    return h5


def cases(h5):
    """Every case's attributes (strings decoded) and its median time in ms ("median", NaN without samples)."""
    out = []
    with h5py.File(h5, "r") as f:
        for g in f["cases"].values():
            a = {k: (v.decode() if isinstance(v, bytes) else v) for k, v in g.attrs.items()}
            t = g["time_ms"][()]
            a["median"] = float(np.median(t)) if len(t) else float("nan")
            out.append(a)
    return out
