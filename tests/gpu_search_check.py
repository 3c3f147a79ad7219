#!/usr/bin/env python3
"""GPU check for `search:` (Bazel tag gpu; also runs from the portable bundle):

1. The search of experiments/search/tiled6.yaml (Bayesian optimisation, a tenth of a six-param space, two
   problems) and the exhaustive sweep of the same space (tiled6_full.yaml: the same cases, the same ids) on
   one GPU in one session: each search evaluated its budget, every case it evaluated verified, and each of
   its cases is a case of the sweep; printed per problem: the search's best over the sweep's best, the
   evaluation that found it, and the wall time of the search's cases against the sweep's.
2. The search file replayed (`runner search-replay`, the file's own `search:`) proposes the points the live
   search measured, in its order: the proposals depend on the seed and the outcomes only.
3. `runner rerun` of the search file measures the points the search evaluated and no others: the same ids.
4. Energy (experiments/search/tiled6_energy.yaml, `objective: energy`): every case it evaluated and cuBLAS
   have an energy a run from NVML's counter, its power within the device's range, the energy a run times the
   runs equal to the power times the span, and a resolution (a run's share of a batch at each end) under a
   fifth of a run's energy (a kernel of 50 ms runs only some twenty times in the second);
   printed: J a run, W and GFLOP/J of the search's best and of cuBLAS.
5. The search again through `--devices 0` (a worker process on the first GPU): exit 0 (done when its searches
   are), the same searches, each its budget, every evaluated case verified; printed: its best against the
   first run's.

usage: gpu_search_check.py [RUNNER] [--out DIR]
"""
import argparse
import csv
import math
import os
import shutil
import subprocess
import sys
import tempfile

from gpu_files import cases, run_experiment

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SEARCH = os.path.join(ROOT, "experiments", "search")

failures = []


def check(ok, what):
    print("%s %s" % ("ok  " if ok else "FAIL", what))
    if not ok:
        failures.append(what)


def problem(c):
    return "%s %s %s" % (c["sizes"], c["layouts"], c["dtype"])


def searches(rows):
    """{problem: [the cases the search evaluated, by step]} of a file's rows (one searched variant here)."""
    out = {}
    for c in rows:
        if int(c.get("search_step", 0) or 0) > 0:
            out.setdefault(problem(c), []).append(c)
    return {k: sorted(v, key=lambda c: int(c["search_step"])) for k, v in out.items()}


def case_s(c):
    return sum(float(v) for k, v in c.items() if k.startswith("t_") and k.endswith("_s") and v == v)


def budget_of(space):
    """A tenth of a search's points, rounded up: its points are the cases of the sweep that were not skipped."""
    return math.ceil(0.1 * sum(1 for c in space if c["status"] != "skipped") - 1e-9)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runner", nargs="?", default="./runner")
    ap.add_argument("--out", help="keep the result files here (default: a temporary folder, removed)")
    args = ap.parse_args()
    runner = os.path.abspath(args.runner)
    out = args.out or tempfile.mkdtemp(prefix="gpu_search_check.")
    os.makedirs(out, exist_ok=True)

    # 1. The search and the sweep of the same space, one after the other on this GPU.
    s_h5 = run_experiment(runner, os.path.join(SEARCH, "tiled6.yaml"), out)
    f_h5 = run_experiment(runner, os.path.join(SEARCH, "tiled6_full.yaml"), out)
    s_rows, f_rows = cases(s_h5), cases(f_h5)
    full = {c["case_id"]: c for c in f_rows}
    found = searches(s_rows)
    check(len(found) == 2, "the search file holds two searches (one a problem): %d" % len(found))
    for prob, evals in found.items():
        space = [c for c in f_rows if problem(c) == prob and c["variant"] == "tiled6"]
        want = budget_of(space)
        check(len(evals) == want, "%s: %d evaluations, the budget (a tenth of %d points) is %d"
              % (prob, len(evals), sum(1 for c in space if c["status"] != "skipped"), want))
        check(all(c["status"] == "ok" for c in evals), "%s: every evaluated case verified" % prob)
        check(all(c["case_id"] in full for c in evals), "%s: every evaluated case is a case of the sweep" % prob)
        ok = [c for c in evals if c["status"] == "ok"]
        best = min(ok, key=lambda c: float(c["search_objective"]))
        swept = [c for c in space if c["status"] == "ok"]
        opt = min(swept, key=lambda c: c["median"])
        print("  %s: search best %s %.4f ms (evaluation %s of %d, %.1f s of cases); sweep best %s %.4f ms "
              "(%d cases, %.1f s); best found over the sweep's best %.4f"
              % (prob, best["params"], best["median"], best["search_step"], len(evals), sum(map(case_s, evals)),
                 opt["params"], opt["median"], len(swept), sum(map(case_s, space)), opt["median"] / best["median"]))
    p = subprocess.run([runner, "search-replay", f_h5, "--strategy", "bayes", "--budget", "10%",
                        "--seed", "20261203"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print("  the same strategy replayed on the sweep's file:\n" + p.stdout)

    # 2. Replay of the search's own file: the same proposals in the same order.
    trace = os.path.join(out, "replay.csv")
    p = subprocess.run([runner, "search-replay", s_h5, "--trace", trace], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    check(p.returncode == 0, "search-replay of the search file: exit %d" % p.returncode)
    if p.returncode == 0:
        got = {}
        for r in csv.DictReader(open(trace)):
            got.setdefault(r["search"], []).append(r["case_id"])
        live = sorted([c["case_id"] for c in ev] for ev in found.values())
        check(sorted(got.values()) == live, "the replay proposes the live search's points in its order")

    # 3. rerun measures the evaluated points and no others.
    again = os.path.join(out, "tiled6_search_again.h5")
    if os.path.exists(again):
        os.remove(again)
    p = subprocess.run([runner, "rerun", s_h5, "-o", again, "-q"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    check(p.returncode == 0, "rerun of the search file: exit %d" % p.returncode)
    if p.returncode == 0:
        ran = lambda rows: sorted(c["case_id"] for c in rows if c["status"] != "skipped")  # noqa: E731
        a_rows = cases(again)
        check(ran(a_rows) == ran(s_rows), "rerun ran the same %d cases" % len(ran(s_rows)))
        check(all(c["status"] == "ok" for c in a_rows if c["status"] != "skipped"), "every rerun case verified")

    # 4. Energy as the objective.
    e_h5 = run_experiment(runner, os.path.join(SEARCH, "tiled6_energy.yaml"), out)
    e_rows = cases(e_h5)
    measured = [c for c in e_rows if int(c.get("search_step", 0) or 0) > 0 or c["variant"] == "cublas"]
    check(len(measured) > 2, "the energy search evaluated cases: %d with cuBLAS" % len(measured))
    for c in measured:
        name = "%s %s" % (c["variant"], c["params"] or "-")
        if c["status"] != "ok":
            check(False, "%s: %s" % (name, c["status"]))
            continue
        j, w = float(c.get("energy_j", "nan")), float(c.get("energy_power_w", "nan"))
        runs, span, res = int(c.get("energy_runs", 0)), float(c.get("energy_span_s", "nan")), \
            float(c.get("energy_resolution_j", "nan"))
        good = (c.get("energy_status") == "ok" and j > 0 and 30 < w < 1500 and runs > 0 and
                abs(j * runs - w * span) <= 0.01 * w * span and 0 < res < j / 5)
        check(good, "%s: %.4g J a run, %.0f W, %d runs in %.2f s, resolution %.3g J (%s)"
              % (name, j, w, runs, span, res, c.get("energy_status")))
    ok = [c for c in measured if c["status"] == "ok" and c["variant"] != "cublas"]
    lib = [c for c in measured if c["status"] == "ok" and c["variant"] == "cublas"]
    flop = lambda c: 2.0 * math.prod(int(kv.split("=")[1]) for kv in c["sizes"].split(","))  # noqa: E731
    for c in ([min(ok, key=lambda c: float(c["energy_j"]))] if ok else []) + lib:
        print("  %s %s: %.3f J a run at %.0f W, %.1f GFLOP/J, %.4f ms" % (
            c["variant"], c["params"] or "-", float(c["energy_j"]), float(c["energy_power_w"]),
            flop(c) / 1e9 / float(c["energy_j"]), c["median"]))

    # 5. The search through --devices 0.
    d_h5 = os.path.join(out, "tiled6_devices.h5")
    if os.path.exists(d_h5):
        os.remove(d_h5)
    p = subprocess.run([runner, "run", os.path.join(SEARCH, "tiled6.yaml"), "-o", d_h5, "-q", "--devices", "0"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print("\n".join(l for l in p.stdout.splitlines() if l.startswith(("results:", "runner:", "tilelab:"))))
    check(p.returncode == 0 and "missing" not in p.stdout and "not finished" not in p.stdout,
          "--devices 0: exit %d, done when its searches are" % p.returncode)
    d_rows = cases(d_h5)
    d_found = searches(d_rows)
    check(sorted(d_found) == sorted(found), "--devices 0: the same searches")
    for prob, evals in d_found.items():
        check(len(evals) == len(found.get(prob, [])) and all(c["status"] == "ok" for c in evals),
              "--devices 0: %s: %d evaluations, every one verified" % (prob, len(evals)))
        b = min(evals, key=lambda c: float(c["search_objective"]))
        b0 = min(found.get(prob, evals), key=lambda c: float(c["search_objective"]))
        print("  --devices 0: %s: best %s %.4f ms (evaluation %s); the first run's %s %.4f ms"
              % (prob, b["params"], b["median"], b["search_step"], b0["params"], b0["median"]))

    if not args.out:
        shutil.rmtree(out, ignore_errors=True)
    if failures:
        print("GPU SEARCH CHECK FAILED: %d" % len(failures))
        return 1
    print("GPU SEARCH CHECK PASSED")
    return 0


if __name__ == "__main__":
    sys.exit(main())
