"""Kernel Tuner's own strategies on tilelab's exhaustive data, in its simulation mode: run by
bench/search_bench.py with the Python of a virtual environment that has kernel_tuner (installed there for the
benchmark only; tilelab does not depend on it).

usage: kt_sim.py JOB.json OUT.json
JOB: {"searches": [{"name", "tune_params": {NAME: [values]}, "times": {"v1,v2,...": ms}}], "strategies": [...],
      "fractions": [...], "seeds": N, "first_seed": F (default 0)}: seeds F .. F + N - 1
OUT: {name: {strategy: {fraction: [best found over the optimum, a seed each]}}}"""
import json
import math
import os
import random
import sys
import tempfile
import warnings

import numpy as np
from kernel_tuner import tune_kernel

warnings.filterwarnings("ignore")


def cache_file(search, folder):
    """A Kernel Tuner cache holding every valid point of the search, its time the median tilelab measured."""
    keys = list(search["tune_params"])
    cache = {}
    for key, ms in search["times"].items():
        values = [int(v) for v in key.split(",")]
        entry = dict(zip(keys, values))
        entry.update(time=ms, times=[ms], compile_time=0.0, verification_time=0.0, benchmark_time=ms,
                     strategy_time=0.0, framework_time=0.0, timestamp="")
        cache[key] = entry
    doc = {"device_name": "tilelab", "kernel_name": search["name"], "problem_size": [1, 1, 1],
           "tune_params_keys": keys, "tune_params": search["tune_params"], "objective": "time", "cache": cache}
    path = os.path.join(folder, "cache_%d.json" % abs(hash(search["name"])))
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def run(search, path, strategy, budget, seed):
    valid = set(search["times"])
    keys = list(search["tune_params"])

    def allowed(p):  # the points tilelab's rules let run: Kernel Tuner searches the same space
        return ",".join(str(p[k]) for k in keys) in valid
    random.seed(seed)
    np.random.seed(seed)
    results, _ = tune_kernel(search["name"], "", [1, 1, 1], [], search["tune_params"], restrictions=allowed,
                             cache=path, simulation_mode=True, strategy=strategy,
                             strategy_options={"max_fevals": budget}, quiet=True, verbose=False)
    times = [r["time"] for r in results if isinstance(r.get("time"), (int, float)) and "__error__" not in r]
    return min(times[:budget]) if times else math.inf


def main():
    job = json.load(open(sys.argv[1]))
    out = {}
    first = job.get("first_seed", 0)
    with tempfile.TemporaryDirectory() as folder:
        for search in job["searches"]:
            path = cache_file(search, folder)
            opt = min(search["times"].values())
            n = len(search["times"])
            out[search["name"]] = {}
            for strategy in job["strategies"]:
                got = {}
                for frac in job["fractions"]:
                    budget = max(1, math.ceil(frac * n - 1e-9))
                    got[str(frac)] = [opt / run(search, path, strategy, budget, s)
                                      for s in range(first, first + job["seeds"])]
                out[search["name"]][strategy] = got
                print("kt_sim: %s %s done" % (search["name"], strategy), file=sys.stderr, flush=True)
    json.dump(out, open(sys.argv[2], "w"))


if __name__ == "__main__":
    main()
