#!/usr/bin/python3
"""The search strategies against exhaustive data, offline: each strategy's best found over the optimum the
exhaustive sweep measured, at budgets of 2, 5, 10 and 20 % of each search's points, median and worst over
the seeds; tilelab's strategies replayed by the runner (`runner search-replay`), Kernel Tuner's in its own
simulation mode on the same points (with --kt-python: the Python of an environment that has kernel_tuner;
--install-kt makes one under the temporary folder from PyPI). A benchmark: it prints figures and checks the
bars of the search issue, it times nothing.

    python3 bench/search_bench.py [--runner bazel-bin/runner/runner] [--data bench/search/data]
                                  [--seeds 25] [--rate-seeds 100] [--install-kt | --kt-python PY]
                                  [--md docs/results/search-bench.md]

The worst of 25 seeds is an extreme: a second table gives, at 5 %, the share of --rate-seeds further seeds
(none of the first 25) whose search came within 3 % of the optimum, and their worst.

The data (bench/search/data/*.h5.xz) are result files of exhaustive sweeps measured on the GPU machine
(bench/search/measure_spaces.sh; docs/gpu-runs.md says when and where), compressed."""
import argparse
import csv
import json
import lzma
import math
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "analysis"))

from tilelab_analysis.load import load  # noqa: E402

FRACTIONS = (0.02, 0.05, 0.1, 0.2)
OURS = ("random", "genetic", "local", "bayes")
KT = ("random_sample", "genetic_algorithm", "dual_annealing", "simulated_annealing", "greedy_ils", "bayes_opt")
RATE_FIRST = 1000  # the shares' first seed: far from the files' seeds and from Kernel Tuner's 0 .. seeds - 1
OPTIMUM = 0.995  # "the optimum": within half a per cent of it (the measurements' own repeatability)


def unpack(data, tmp):
    files = []
    for name in sorted(os.listdir(data)):
        src = os.path.join(data, name)
        if name.endswith(".h5.xz"):
            dst = os.path.join(tmp, name[:-3])
            with lzma.open(src) as f, open(dst, "wb") as g:
                shutil.copyfileobj(f, g)
            files.append(dst)
        elif name.endswith(".h5"):
            files.append(src)
    return files


def replay(runner, h5, strategy, budget, seeds, tmp, first=None):
    """{(search, seed): the trace's rows} of `runner search-replay`; seeds from the file's own unless first."""
    trace = os.path.join(tmp, "trace.csv")
    subprocess.run([runner, "search-replay", h5, "--strategy", strategy, "--budget", budget, "--seeds", str(seeds),
                    "--trace", trace] + (["--seed", str(first)] if first is not None else []),
                   check=True, stdout=subprocess.DEVNULL)
    runs = {}
    for r in csv.DictReader(open(trace)):
        runs.setdefault((r["search"], r["seed"]), []).append(r)
    return runs


def quality(rows, budget=None):
    """The best found over the optimum in a search's rows (the first `budget` evaluations); 0 if none ran."""
    got = [float(r["objective"]) for r in rows
           if (budget is None or 0 < int(r["step"]) <= budget) and r["objective"] != "nan"]
    return float(rows[0]["optimum"]) / min(got) if got else 0


def ours(runner, h5, seeds, tmp):
    """{search: {strategy: {fraction: [quality a seed]}}} by replay; a search's label as the runner prints it.
    The strategies never see the budget, so one trace at 20 % holds the searches of every smaller budget."""
    out = {}
    for st in OURS:
        for (search, _), rows in replay(runner, h5, st, "20%", seeds, tmp).items():
            points = round(max(int(r["step"]) for r in rows) / 0.2)
            for frac in FRACTIONS:
                q = quality(rows, math.ceil(frac * points - 1e-9))
                out.setdefault(search, {}).setdefault(st, {}).setdefault(frac, []).append(q)
    return out


def ours_at_5(runner, h5, seeds, first, tmp):
    """{search: {strategy: [quality a seed]}} at the runner's own 5 % budget, seeds first .. first + seeds - 1."""
    out = {}
    for st in OURS:
        for (search, _), rows in replay(runner, h5, st, "5%", seeds, tmp, first).items():
            out.setdefault(search, {}).setdefault(st, []).append(quality(rows))
    return out


def kt_job(h5):
    """The searches of an exhaustive file as kt_sim.py takes them: per problem, the searched params' values and
    the median of each valid point, by the runner's label of the search."""
    df = load(h5)
    searches = []
    for key, g in df.groupby(["sizes", "layouts", "dtype", "variant"], sort=False):
        params = [dict(kv.split("=") for kv in p.split(",")) for p in g["params"] if p]
        if not params:
            continue
        names = [n for n in params[0] if len({p[n] for p in params}) > 1]
        if not names:
            continue
        values = {n: sorted({int(p[n]) for p in params}) for n in names}
        ok = g[g["status"] == "ok"]
        times = {",".join(dict(kv.split("=") for kv in p.split(","))[n] for n in names): float(m)
                 for p, m in zip(ok["params"], ok["median_ms"])}
        searches.append({"name": "%s %s %s %s" % key, "tune_params": values, "times": times})
    return searches


def spaces(h5s):
    """Per search (kt_job's names): its valid points, how many are within 3 % of the optimum, and the share of
    the variance of the log times that one effect a param explains (R^2 of a least-squares fit on one indicator
    a param value): near 1, a param's best value is best whatever the others are."""
    import numpy as np
    out = {}
    for h5 in h5s:
        for s in kt_job(h5):
            keys = list(s["times"])
            y = np.log(np.array([s["times"][k] for k in keys]))
            cols = [np.ones(len(keys))]
            for d, name in enumerate(s["tune_params"]):
                vals = sorted({k.split(",")[d] for k in keys})
                cols += [np.array([k.split(",")[d] == v for k in keys], float) for v in vals[1:]]
            X = np.column_stack(cols)
            fit = X @ np.linalg.lstsq(X, y, rcond=None)[0]
            r2 = 1 - ((y - fit) ** 2).sum() / ((y - y.mean()) ** 2).sum()
            out[s["name"]] = (len(keys), int((np.exp(y.min() - y) >= 0.97).sum()), r2)
    return out


def kt(python, h5s, seeds, tmp, fractions=FRACTIONS, first=0):
    job = {"searches": [s for h5 in h5s for s in kt_job(h5)], "strategies": list(KT), "fractions": list(fractions),
           "seeds": seeds, "first_seed": first}
    jf, of = os.path.join(tmp, "kt_job.json"), os.path.join(tmp, "kt_out.json")
    json.dump(job, open(jf, "w"))
    # Kernel Tuner iterates over sets of strings in places: a fixed hash seed makes those runs repeat.
    subprocess.run([python, os.path.join(HERE, "search", "kt_sim.py"), jf, of], check=True,
                   env=dict(os.environ, PYTHONHASHSEED="0"))
    return {name: {st: {float(f): q for f, q in d.items()} for st, d in by.items()} for name, by in json.load(open(of)).items()}


def median(q):
    q = sorted(q)
    n = len(q)
    return q[n // 2] if n % 2 else 0.5 * (q[n // 2 - 1] + q[n // 2])


def install_kt(tmp):
    venv = os.path.join(tmp, "ktvenv")
    subprocess.run([sys.executable if not shutil.which("python3.11") else "python3.11", "-m", "venv", venv], check=True)
    py = os.path.join(venv, "bin", "python")
    subprocess.run([py, "-m", "pip", "install", "-q", "kernel_tuner==1.5.0"], check=True)
    return py


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runner", default=os.path.join("bazel-bin", "runner", "runner"))
    ap.add_argument("--data", default=os.path.join(HERE, "search", "data"))
    ap.add_argument("--seeds", type=int, default=25)
    ap.add_argument("--rate-seeds", type=int, default=100, help="further seeds for the 5 %% shares (0: none)")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--kt-python", help="a Python with kernel_tuner 1.5.0")
    g.add_argument("--install-kt", action="store_true", help="install kernel_tuner 1.5.0 from PyPI into a temporary venv")
    ap.add_argument("--md", help="also write the table as markdown here")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp()
    try:
        h5s = unpack(args.data, tmp)
        res = {}
        for h5 in h5s:
            for search, by in ours(args.runner, h5, args.seeds, tmp).items():
                res[search] = {("tilelab", st): q for st, q in by.items()}
        python = install_kt(tmp) if args.install_kt else args.kt_python
        if python:
            for search, by in kt(python, h5s, args.seeds, tmp).items():
                mine = [s for s in res if same_search(s, search)]
                res.setdefault(mine[0] if mine else search, {}).update({("kernel_tuner", st): q for st, q in by.items()})
        rates = {}
        if args.rate_seeds > 0:
            for h5 in h5s:
                for search, by in ours_at_5(args.runner, h5, args.rate_seeds, RATE_FIRST, tmp).items():
                    rates[search] = {("tilelab", st): q for st, q in by.items()}
            if python:
                for search, by in kt(python, h5s, args.rate_seeds, tmp, (0.05,), RATE_FIRST).items():
                    mine = [s for s in rates if same_search(s, search)]
                    rates.setdefault(mine[0] if mine else search, {}).update(
                        {("kernel_tuner", st): q[0.05] for st, q in by.items()})
        report(res, spaces(h5s), args.seeds, args.md, bool(python), rates, args.rate_seeds)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def same_search(a, b):
    return a.split() == b.split() or a.replace(" ", "") == b.replace(" ", "")


def share(q):
    return sum(x >= 0.97 for x in q) / len(q)


def rate_table(rates, seeds):
    """The 5 % shares (module doc) as markdown lines, and a verdict a search: tilelab's best against Kernel
    Tuner's best, in the share and in the worst seed."""
    with_kt = any(t == "kernel_tuner" for by in rates.values() for t, _ in by)
    theirs_head = " | Kernel Tuner's best share | Kernel Tuner's best worst" if with_kt else ""
    lines = ["| search | " + " | ".join(OURS) + theirs_head + " |", "|---|" + "---:|" * (len(OURS) + 2 * with_kt)]
    verdicts = []
    for search, by in rates.items():
        cells = ["%d %% (%.3f)" % (round(100 * share(by[("tilelab", st)])), min(by[("tilelab", st)])) for st in OURS]
        theirs = {st: q for (t, st), q in by.items() if t == "kernel_tuner"}
        if theirs:
            bs = max(theirs, key=lambda st: share(theirs[st]))
            bw = max(theirs, key=lambda st: min(theirs[st]))
            cells += ["%d %% (%s)" % (round(100 * share(theirs[bs])), bs), "%.3f (%s)" % (min(theirs[bw]), bw)]
            ours_share = max(share(by[("tilelab", st)]) for st in OURS)
            ours_worst = max(min(by[("tilelab", st)]) for st in OURS)
            verdicts.append("%s at 5 %% over %d further seeds: tilelab's best within 3 %% in %d %% of them, Kernel "
                            "Tuner's best in %d %% (%s); worst %.3f against %.3f (%s)"
                            % (search, seeds, round(100 * ours_share), round(100 * share(theirs[bs])),
                               "at least as good" if ours_share >= share(theirs[bs]) else "BELOW", ours_worst,
                               min(theirs[bw]), "at least as good" if ours_worst >= min(theirs[bw]) else "BELOW"))
        elif with_kt:
            cells += ["", ""]
        lines.append("| %s | " % search + " | ".join(cells) + " |")
    return lines, verdicts


def report(res, space, seeds, md, with_kt, rates=None, rate_seeds=0):
    shape = ["| search | valid points | within 3 % of the optimum | evaluations at 5 % | one effect a param: R^2 |",
             "|---|---:|---:|---:|---:|"]
    for search in res:
        name = [n for n in space if same_search(n, search)]
        if name:
            n, good, r2 = space[name[0]]
            shape.append("| %s | %d | %d | %d | %.2f |" % (search, n, good, math.ceil(0.05 * n - 1e-9), r2))
    lines = ["| search | tool | strategy | " + " | ".join("%g %%" % (100 * f) for f in FRACTIONS) + " |",
             "|---|---|---|" + "---:|" * len(FRACTIONS)]
    verdicts = []
    for search, by in res.items():
        for (tool, st), q in by.items():
            lines.append("| %s | %s | %s | " % (search, tool, st) +
                         " | ".join("%.3f / %.3f" % (median(q[f]), min(q[f])) for f in FRACTIONS) + " |")
        best = {f: max((median(q[f]), min(q[f])) for (t, _), q in by.items() if t == "tilelab") for f in FRACTIONS}
        if with_kt:
            for f in FRACTIONS:
                theirs = [(median(q[f]), min(q[f])) for (t, _), q in by.items() if t == "kernel_tuner"]
                if not theirs:
                    continue
                med_ok = max(median(q[f]) for (t, _), q in by.items() if t == "tilelab") >= max(m for m, _ in theirs)
                worst_ok = max(min(q[f]) for (t, _), q in by.items() if t == "tilelab") >= max(w for _, w in theirs)
                verdicts.append("%s at %g %%: tilelab's best %s Kernel Tuner's best in the median, %s in the worst seed"
                                % (search, 100 * f, "at least as good as" if med_ok else "BELOW",
                                   "at least as good" if worst_ok else "BELOW"))
        m5, w5 = best[0.05]
        verdicts.append("%s at 5 %%: tilelab's best strategy median %.3f (%s), worst %.3f (%s)"
                        % (search, m5, "the optimum" if m5 >= OPTIMUM else "NOT the optimum", w5,
                           ">= 0.97" if w5 >= 0.97 else "BELOW 0.97"))
        rnd = median(by[("tilelab", "random")][0.05])
        for st in OURS[1:]:
            m = median(by[("tilelab", st)][0.05])
            verdicts.append("%s at 5 %%: %s median %.3f %s random's %.3f" % (search, st, m,
                                                                             "beats" if m > rnd else "DOES NOT beat", rnd))
    head = ("Best found over the exhaustive optimum (1: the optimum), median / worst over %d seeds, at budgets of "
            "2, 5, 10 and 20 %% of each search's points. Every figure repeats from run to run but Kernel Tuner's "
            "bayes_opt's, which move by a few hundredths: it draws its Latin hypercube start from fresh entropy "
            "(scipy's LatinHypercube without a seed), which the seed it is given does not reach." % seeds)
    spaces_head = ("The spaces: a search's few good points are what its worst seeds miss, and a space whose log "
                   "times are close to a sum of one effect a param (R^2 near 1) is one a model learns from few "
                   "evaluations.")
    rate_lines = []
    if rates:
        table, more = rate_table(rates, rate_seeds)
        verdicts += more
        rate_lines = ["", "At 5 %%, over %d further seeds (%d on, none of the above): the share of seeds whose search "
                      "came within 3 %% of the optimum, and in brackets the worst seed. A worst of %d seeds at 0.97 or "
                      "more asks for nearly every seed to get there." % (rate_seeds, RATE_FIRST, seeds), ""] + table
    text = "\n".join([spaces_head, ""] + shape + ["", head, ""] + lines + rate_lines +
                     ["", "Bars (\"the optimum\": within %g %%):" % (100 * (1 - OPTIMUM)), ""] +
                     ["- " + v for v in verdicts])
    print(text)
    if md:
        with open(md, "w") as f:
            f.write("# Search strategies on exhaustive data\n\nGenerated by `bench/search_bench.py`; the data and the "
                    "machine are in docs/gpu-runs.md.\n\n" + text + "\n")


if __name__ == "__main__":
    main()
