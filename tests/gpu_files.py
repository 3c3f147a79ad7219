"""What the GPU checks share: running an experiment into a fresh result file, and reading its cases."""
import os
import re
import subprocess
import sys

import numpy as np

# The analysis package: beside tests/ in a checkout and in the portable bundle (in Bazel, a dep).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "analysis"))
from tilelab_analysis.load import read_rows  # noqa: E402

# Cases the plan skips by design, which the checks accept (their reason is the variant's check in
# kernels/sgemm/sgemm.c): skinny's check16, the small side over SMAX or KMAJ where the large operand is not
# contiguous along k (sgemm_odd crosses both with every size and layout); packed's check15, KEEP where the
# kept operand is not tile-aligned, TLDG where it is not contiguous along k.
SKINNY_SKIP = re.compile(r"[mn] is more than SMAX = \d+$|KMAJ = 1 is for a large operand contiguous along k "
                         r"\((row-major A|column-major B)\), this one is contiguous along [mn]$")
KEEP_SKIP = re.compile(r"KEEP = [12] reads [AB] as it lies: [mn] must be a multiple of B[MN] = \d+ and k of \d+$|"
                       r"TLDG = 1 is for the operand KEEP reads as it lies, when it is contiguous along k ")


def planned_skip(c):
    """True when case c (its attributes) is one the plan skips by design (SKINNY_SKIP, KEEP_SKIP)."""
    return c["status"] == "skipped" and (
        (c["variant"] == "skinny" and bool(SKINNY_SKIP.match(c.get("reason", "")))) or
        (c["variant"] == "packed" and bool(KEEP_SKIP.match(c.get("reason", "")))))


def run_experiment(runner, yaml, out, devices=None, resume=False):
    """Runs yaml into OUT/<name>.h5 (removed first: result files are never overwritten; with resume, a file
    already there is continued by the runner's --resume, which runs only the cases it lacks: a check split
    over several calls, or killed), on the GPUs that devices names (the runner's --devices: "all" or "0,2")
    when given, prints the runner's table without its progress lines, and returns the file's path."""
    h5 = os.path.join(out, os.path.basename(yaml).replace(".yaml", ".h5"))
    if os.path.exists(h5) and not resume:
        os.remove(h5)
    cmd = [runner, yaml, "-o", h5, "-q"] + (["--devices", devices] if devices else [])
    cmd += ["--resume"] if resume else []
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print("\n".join(l for l in p.stdout.splitlines() if not re.match(r"(gpu\d+ \| )?\[", l)))
    return h5


def cases(h5):
    """Every case's attributes (strings decoded) and its median time in ms ("median", NaN without samples),
    in run order; the file checked as analysis reads it. A large file is read by several processes at once
    (tilelab_analysis.read_rows): sgemm_odd's 19240 cases took minutes in one."""
    out = read_rows([h5])
    for a in out:
        t = a["samples"]
        a["median"] = float(np.median(t)) if len(t) else float("nan")
    return out
