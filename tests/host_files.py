"""Reading result files in the host-target tests: case attributes, plan order, problems."""
import h5py
import numpy as np


def text(v):
    """An attribute as Python: strings decoded, arrays as lists."""
    if isinstance(v, np.ndarray):
        return v.tolist()
    return v.decode() if isinstance(v, bytes) else v


def cases(path):
    """case id -> its attributes."""
    with h5py.File(path, "r") as f:
        return {name: {k: text(v) for k, v in f["cases"][name].attrs.items()} for name in f["cases"]}


def summary_ids(path):
    """The case ids of /summary, in its order (the plan's, for a run or a merge)."""
    with h5py.File(path, "r") as f:
        return [text(r["case_id"]) for r in f["summary"][()]]


def problem(a):
    """plan_problem_key of runner/plan/plan.c: what cases share when they share inputs and reference."""
    return (a["sizes"], a["layouts"], a["dtype"], a["canonical"].split(";args=")[1], a["target"])
