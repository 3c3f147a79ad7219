"""`compare A.h5 B.h5`: is B faster or slower than A, case by case?

Cases are matched by case_id, and otherwise by (op, variant, params, sizes, layouts, dtype), so that
files of different configs (another seed, another protocol) still compare. For each pair, a two-sided
Mann-Whitney U test on the raw time samples at --alpha (default 0.01): the verdict is FASTER or
SLOWER when the test rejects equal distributions and the median ratio B/A differs from 1 by more than
--min-effect (default 2%), otherwise SAME. Overall: the geometric mean of A/B over the compared cases
(> 1: B is faster). Warns when the files come from different devices, drivers, runner commits or
kernel binaries (cubin SHA-256), and when matched cases compiled different kernel sources (tilelab/1.2
files carry every source file: `runner extract` writes them out): such rows are marked "[sources differ]".

Exit codes: 0 no case SLOWER; 1 some case SLOWER (a regression of B against A); 2 bad input (a file
that is not a consistent tilelab result file, one line says what is wrong: never read as a regression)
or no case in common.
"""
import argparse
import sys

import numpy as np
from scipy.stats import mannwhitneyu

from . import cli, counters
from .load import SchemaError, load, load_meta

MATCH = ["op", "variant", "params", "sizes", "layouts", "dtype"]


def pair_cases(a, b):
    """(row of a, row of b, matched by) for every case present and measured in both."""
    a = a[a["reps"] > 0]
    b = b[b["reps"] > 0]
    pairs, used_a, used_b = [], set(), set()
    by_id = {cid: i for i, cid in zip(b.index, b["case_id"])}
    for i, cid in zip(a.index, a["case_id"]):
        if cid in by_id:
            pairs.append((i, by_id[cid], "case_id"))
            used_a.add(i), used_b.add(by_id[cid])
    key_b = {}
    for j, row in b.iterrows():
        if j not in used_b:
            key_b.setdefault(tuple(row[k] for k in MATCH), j)
    for i, row in a.iterrows():
        if i in used_a:
            continue
        j = key_b.pop(tuple(row[k] for k in MATCH), None)
        if j is not None:
            pairs.append((i, j, "op/variant/params/sizes"))
    return pairs


def verdict(sa, sb, alpha, min_effect):
    ratio = float(np.median(sb) / np.median(sa))
    if len(sa) < 2 or len(sb) < 2:
        return "SAME", ratio, float("nan")
    p = float(mannwhitneyu(sa, sb, alternative="two-sided").pvalue)
    if p < alpha and abs(ratio - 1) > min_effect:
        return ("SLOWER" if ratio > 1 else "FASTER"), ratio, p
    return "SAME", ratio, p


def _source_files(text):
    """{"origin:path": sha256} of a case's `sources` attribute ("" or missing: none recorded)."""
    out = {}
    for line in (text if isinstance(text, str) else "").splitlines():
        name, _, sha = line.rpartition(" ")
        out[name] = sha
    return out


def sources_differ(a, b, i, j):
    """The source files two matched cases compiled differently (changed, added or gone), as a sorted list;
    empty when they are the same or a file does not record them (written before tilelab/1.2)."""
    sa, sb = a.at[i, "sources"] if "sources" in a else None, b.at[j, "sources"] if "sources" in b else None
    if not isinstance(sa, str) or not isinstance(sb, str) or not sa or not sb:
        return []
    fa, fb = _source_files(sa), _source_files(sb)
    return sorted(n.split(":", 1)[-1] for n in set(fa) | set(fb) if fa.get(n) != fb.get(n))


def provenance_warnings(fa, fb, a, b, pairs):
    ra, ea = load_meta(fa)
    rb, eb = load_meta(fb)
    out = []
    for key, what in (("device_name", "devices"), ("driver_version", "drivers"), ("runtime_version", "CUDA runtimes")):
        if ea.get(key) != eb.get(key):
            out.append("different %s: %s vs %s" % (what, ea.get(key, "-"), eb.get(key, "-")))
    if ra.get("git_commit") != rb.get("git_commit"):
        out.append("different runner commits: %s vs %s (kernel sources may differ)" % (ra.get("git_commit"),
                                                                                      rb.get("git_commit")))
    diff = sum(1 for i, j, _ in pairs if a.at[i, "cubin_sha256"] != b.at[j, "cubin_sha256"])
    if diff:
        out.append("%d matched case(s) ran different kernel binaries (cubin SHA-256)" % diff)
    changed = [(i, j, sources_differ(a, b, i, j)) for i, j, _ in pairs]
    changed = [c for c in changed if c[2]]
    if changed:
        files = sorted({f for _, _, fs in changed for f in fs})
        out.append("%d matched case(s) compiled different kernel sources (%s): they measure other kernels; "
                   "`runner extract FILE DIR` writes each file's sources out to diff them"
                   % (len(changed), ", ".join(files)))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(prog="compare", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("a", help="baseline result file")
    ap.add_argument("b", help="result file compared with it")
    ap.add_argument("--alpha", type=float, default=0.01, help="significance level of the Mann-Whitney U test")
    ap.add_argument("--min-effect", type=float, default=0.02,
                    help="smallest |median ratio - 1| called FASTER or SLOWER (default 0.02)")
    args = ap.parse_args(argv)
    try:
        a, b = load(args.a), load(args.b)
    except (OSError, SchemaError) as e:
        print("compare: %s" % e, file=sys.stderr)
        return 2
    pairs = pair_cases(a, b) if not a.empty and not b.empty else []
    if not pairs:
        print("compare: no measured case of %s matches one of %s" % (args.a, args.b), file=sys.stderr)
        return 2
    for w in provenance_warnings(a["file"].iloc[0], b["file"].iloc[0], a, b, pairs):
        print("WARNING: " + w)
    print("%s vs %s: Mann-Whitney U, two-sided, alpha %g; FASTER/SLOWER also need |ratio - 1| > %g" % (
        args.a, args.b, args.alpha, args.min_effect))
    print("%-7s %-16s %-28s %-24s %11s %11s %7s %9s  %s" % ("verdict", "variant", "params", "sizes", "A median ms",
                                                          "B median ms", "B/A", "p", "matched by"))
    counts = {"FASTER": 0, "SLOWER": 0, "SAME": 0}
    logs = []
    for i, j, how in pairs:
        v, ratio, p = verdict(a.at[i, "samples"], b.at[j, "samples"], args.alpha, args.min_effect)
        counts[v] += 1
        logs.append(np.log(1 / ratio))
        moved = counters.changes(a.loc[i], b.loc[j]) if counters.has_counters(a) and counters.has_counters(b) else []
        print("%-7s %-16s %-28s %-24s %11.4f %11.4f %7.3f %9.2g  %s%s%s" % (
            v, a.at[i, "variant"], a.at[i, "params"] or "-", a.at[i, "sizes"], a.at[i, "median_ms"],
            b.at[j, "median_ms"], ratio, p, how, " [sources differ]" if sources_differ(a, b, i, j) else "",
            "  counters: " + ", ".join(moved) if moved else ""))
    gm = float(np.exp(np.mean(logs)))
    print("\n%d cases: %d FASTER, %d SLOWER, %d SAME; geometric-mean speedup of B over A: %.3fx" % (
        len(pairs), counts["FASTER"], counts["SLOWER"], counts["SAME"], gm))
    only_a, only_b = len(a) - len(pairs), len(b) - len(pairs)
    if only_a or only_b:
        print("not compared: %d case(s) of A, %d of B (unmatched or not measured)" % (only_a, only_b))
    return 1 if counts["SLOWER"] else 0


def entry():
    """The installed command (pyproject.toml's scripts)."""
    cli.run(main)


if __name__ == "__main__":
    cli.run(main)
