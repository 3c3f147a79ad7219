#!/usr/bin/env python3
"""GPU check for the SGEMM ladder (Bazel tag gpu; also runs from the portable bundle).

Runs experiments/sgemm_odd.yaml, sgemm_ladder.yaml, sgemm_layouts.yaml, sgemm_shapes.yaml,
sgemm_random.yaml, sgemm_tldg.yaml, sgemm_packed.yaml and (with --tune) sgemm_tune.yaml, then checks, from
the result files only:
- every case of them verifies (every rung, every size, all layouts, sizes that are no tile multiples,
  alpha and beta, hopper's TLDG on and off, EDGE on every path, packed's every path), and prints what TLDG, packing and
  packed's KEEP did against cuBLAS; the skips allowed are skinny's on a problem whose small side is
  over its SMAX and its KMAJ where the large operand is not contiguous along k (sgemm_odd crosses its
  SMAX values with sizes of every kind, KMAJ with every layout), and packed's KEEP where the kept operand
  is not tile-aligned or its TLDG where that operand is not contiguous along k; each skinny variant of
  sgemm_odd and each KEEP variant of sgemm_packed must verify on at least one problem;
- the best rung reaches >= 0.90 x cuBLAS at 4096^3 and >= 0.85 at 2048^3 and 8192^3;
- every rung's registers, shared memory and spills are in the file;
- sgemm_shapes.yaml, printed shape by shape (what `tuned` ran, its speed against cuBLAS in the same
  run): `tuned` >= 0.85 x cuBLAS on every shape, geometric mean >= 0.95, >= 0.95 at 4096^3 and 8192^3;
- sgemm_random.yaml (shapes drawn at random, in no tuning): every case verifies; `tuned` against cuBLAS
  printed, not a bar (how the table extrapolates);
- tf32x3 (FP32 on the tensor cores, as a rung or as what `tuned` ran), in every experiment: its
  max_rel_err (the distance from cuBLAS's FP32 result over the error scale) <= 2e-6, a fifth of f32's
  tolerance (the H100: at most 8.3e-7 over 3320 tuning cases; 3.4 - 5.4e-6 at 4096^3 - 8192^3 when its
  tensor cores summed all of k), printed beside the SIMT rungs' largest.
Writes docs-ready markdown with analysis/sgemm_ladder_md.py when --md is given. --devices all (or 0,2)
runs each experiment on several GPUs of the machine at once (the runner's --devices): a problem's cases,
cuBLAS's among them, run on one GPU, so each ratio is still one GPU's. --resume (with --out) goes on from
the result files in DIR (the runner's --resume: only the cases a file lacks run), so that a check killed or
cut off, e.g. by a time limit on the GPU machine, is finished by the same command again.
`tuned` runs the table the runner carries for the GPU the check runs on (the one whose `device` line is
the GPU's name, nvidia-smi's, e.g. kernels/sgemm/tuned_h200.table on an H200): the experiments that have
`tuned` run from copies in DIR/yaml/ that name it (`table: tilelab:sgemm/...`); --table names another
(tilelab:sgemm/NAME.table), or `default` for the registry's (the H100's) everywhere.

usage: gpu_sgemm_check.py [RUNNER] [--out DIR [--resume]] [--tune] [--md FILE] [--devices all|0,2,...]
                          [--table auto|default|tilelab:sgemm/NAME.table]
"""
import argparse
import glob
import math
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpu_files import cases, planned_skip, run_experiment as run  # noqa: E402


def shapes(cs):
    """The per-shape table of `tuned` against cuBLAS, and the bars it misses."""
    fails, ratios = [], []
    print("tuned against cuBLAS, sgemm_shapes.yaml (what ran: the fastest of the candidates its table ranks first):")
    for c in sorted((c for c in cs if c["variant"] == "tuned"), key=lambda c: (c["flop"], c["sizes"], c["layouts"])):
        cb = [b for b in cs if b["variant"] == "cublas" and b["sizes"] == c["sizes"] and b["layouts"] == c["layouts"]]
        if c["status"] != "ok" or not cb or cb[0]["status"] != "ok":
            fails.append("sgemm_shapes: %s %s: tuned %s" % (c["sizes"], c["layouts"], c["status"]))
            continue
        r = cb[0]["median"] / c["median"]
        ratios.append(r)
        bar = 0.95 if c["sizes"] in ("m=4096,n=4096,k=4096", "m=8192,n=8192,k=8192") else 0.85
        print("  %-24s %-12s %6.3f  %8.3f ms  %s%s" % (c["sizes"], c["layouts"], r, c["median"],
                                                    c.get("dispatch", "?").split(" (")[0][:60],
                                                    "" if r >= bar else "  < %.2f" % bar))
        if r < bar:
            fails.append("sgemm_shapes: %s %s: tuned %.3f x cuBLAS, bar %.2f" % (c["sizes"], c["layouts"], r, bar))
    if ratios:
        g = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        print("  %d shapes: geometric mean %.3f x cuBLAS (bar 0.95), lowest %.3f, %d below 0.85" % (
            len(ratios), g, min(ratios), sum(r < 0.85 for r in ratios)))
        if g < 0.95:
            fails.append("sgemm_shapes: geometric mean %.3f x cuBLAS, bar 0.95" % g)
    return fails


def random_shapes(cs):
    """`tuned` against cuBLAS on sgemm_random.yaml's shapes (printed, not a bar: how the table extrapolates)."""
    ratios = []
    for c in cs:
        cb = [b for b in cs if b["variant"] == "cublas" and b["sizes"] == c["sizes"] and b["layouts"] == c["layouts"]]
        if c["variant"] == "tuned" and c["status"] == "ok" and cb and cb[0]["status"] == "ok":
            ratios.append((cb[0]["median"] / c["median"], c["sizes"], c["layouts"]))
    if ratios:
        g = math.exp(sum(math.log(r) for r, _, _ in ratios) / len(ratios))
        print("tuned against cuBLAS, sgemm_random.yaml: %d problems, geometric mean %.3f, %d below 0.85; lowest %s" % (
            len(ratios), g, sum(r < 0.85 for r, _, _ in ratios),
            ", ".join("%s %s %.3f" % (sz, lay, r) for r, sz, lay in sorted(ratios)[:3])))


def tldg(cs):
    """hopper with TLDG 0 and 1 against cuBLAS, per shape, layout and tile shape (printed, not a bar)."""
    print("hopper TLDG off -> on against cuBLAS, sgemm_tldg.yaml:")
    cb = {(c["sizes"], c["layouts"]): c["median"] for c in cs if c["variant"] == "cublas"}
    got = {}
    for c in cs:
        if c["variant"] == "hopper" and c["status"] == "ok" and (c["sizes"], c["layouts"]) in cb:
            p = c["params"].replace(",TLDG=1", "")
            got.setdefault((c["sizes"], c["layouts"], p), {})["TLDG=1" in c["params"]] = cb[(c["sizes"], c["layouts"])] / c["median"]
    for (size, layouts, p), r in sorted(got.items()):
        if len(r) == 2:
            print("  %-22s %-12s %-46s %.3f -> %.3f" % (size, layouts, p[:46], r[False], r[True]))


def packed(cs):
    """hopper against packed (the same tiles on packed operands) against cuBLAS, on the shapes of
    sgemm_packed.yaml large enough to time (printed, not a bar)."""
    print("hopper (ODD 0 / 1) -> packed (SPLITK 1), 128 x 128 tiles, against cuBLAS, sgemm_packed.yaml:")
    cb = {(c["sizes"], c["layouts"]): c["median"] for c in cs if c["variant"] == "cublas"}
    tiles = "BM=128,BN=128,BK=16,WM=64,WN=32,WNITER=2,TM=8,TN=4,STAGES=3"
    got = {}
    for c in cs:
        key = (c["sizes"], c["layouts"])
        if c["status"] != "ok" or key not in cb or cb[key] < 0.1 or not c["params"].startswith(tiles):
            continue
        if c["variant"] == "hopper":
            col = 1 if "ODD=1" in c["params"] else 0
        elif c["variant"] == "packed" and "SPLITK=1" in c["params"]:
            col = 2
        else:
            continue
        got.setdefault(key, {})[col] = cb[key] / c["median"]
    for (size, layouts), r in sorted(got.items()):
        print("  %-22s %-12s %s" % (size, layouts, " / ".join("%.3f" % r[i] if i in r else "-" for i in range(3))))


def keep(cs):
    """packed with both operands packed against packed with KEEP (one read as it lies; the best of its
    params) against hopper, each against cuBLAS, on the shapes of sgemm_packed.yaml large enough to time
    (printed, not a bar)."""
    print("packed (both packed) / packed KEEP (best) / hopper (best), against cuBLAS, sgemm_packed.yaml:")
    cb = {(c["sizes"], c["layouts"]): c["median"] for c in cs if c["variant"] == "cublas" and c["status"] == "ok"}
    best = {}
    for c in cs:
        key = (c["sizes"], c["layouts"])
        if c["status"] != "ok" or key not in cb or cb[key] < 0.1 or c["variant"] not in ("packed", "hopper"):
            continue
        col = 2 if c["variant"] == "hopper" else 1 if "KEEP=" in c["params"] else 0
        if col not in best.setdefault(key, {}) or c["median"] < best[key][col][0]:
            best[key][col] = (c["median"], c["params"])
    for (size, layouts), b in sorted(best.items()):
        print("  %-22s %-12s %s  %s" % (size, layouts, " / ".join("%.3f" % (cb[(size, layouts)] / b[i][0]) if i in b
                                                                 else "-" for i in range(3)),
                                       ",".join(b[1][1].split(",")[:3]) + " " + b[1][1].split("SWIZZLE=0,")[-1]
                                       if 1 in b else ""))


X3_ERR_BAR = 2e-6


def tensor_core_accuracy(files):
    """tf32x3's max_rel_err over every verified case that ran it (the rung, or `tuned`'s pick), against the
    bar; the SIMT rungs' largest beside it. The failures."""
    x3, simt = [], []
    for name, h5 in files.items():
        for c in cases(h5):
            if c["status"] != "ok" or c["variant"] == "cublas" or not c.get("max_rel_err", -1) >= 0:
                continue
            ran = c.get("dispatch", "") or c["variant"]
            (x3 if ran.split()[0] == "tf32x3" else simt).append((c["max_rel_err"], name, c))
    if not x3:
        return ["tf32x3: no verified case ran it"]
    x3.sort(key=lambda e: e[0])
    print("tf32x3 (FP32 on the tensor cores): %d verified cases, max_rel_err at most %.2e (median %.2e), bar %.0e; "
          "the SIMT rungs' at most %.2e" % (len(x3), x3[-1][0], x3[len(x3) // 2][0], X3_ERR_BAR,
                                            max(e[0] for e in simt) if simt else float("nan")))
    return ["%s: %s %s %s %s: tf32x3's max_rel_err %.2e, bar %.0e" % (name, c["variant"], c["params"], c["sizes"],
                                                                    c["layouts"], err, X3_ERR_BAR)
            for err, name, c in x3 if err > X3_ERR_BAR]


def gpu_name(devices):
    """The name of the first GPU the check runs on (nvidia-smi's), or "" where it cannot tell."""
    first = "0" if devices in (None, "all") else devices.split(",")[0]
    try:
        p = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader", "-i", first],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return p.stdout.strip() if p.returncode == 0 else ""


def carried_table(root, name):
    """tilelab:sgemm/X.table for the table under kernels/sgemm/ whose header's device line is name, or None."""
    for path in sorted(glob.glob(os.path.join(root, "kernels", "sgemm", "*.table"))):
        with open(path) as f:
            for line in f:
                if line.startswith("device "):
                    if line[len("device "):].strip() == name:
                        return "tilelab:sgemm/" + os.path.basename(path)
                    break
                if not (line.startswith("#") or line.split(" ", 1)[0] in ("op", "sms", "measured")):
                    break
    return None


TUNED_ITEM = re.compile(r"(?m)^(\s*-\s+)tuned(\s*(#.*)?)$")  # `  - tuned  # ...`
TUNED_FLOW = re.compile(r"(variants:\s*\[\s*)tuned(\s*[,\]])")  # `variants: [tuned, cublas]`


def with_table(yaml, table, out):
    """yaml itself where it has no bare `tuned`, else a copy in OUT/yaml/ whose `tuned` names table."""
    with open(yaml) as f:
        text = f.read()
    entry = "{name: tuned, table: \"%s\"}" % table
    new = TUNED_FLOW.sub(lambda m: m.group(1) + entry + m.group(2), TUNED_ITEM.sub(lambda m: m.group(1) + entry + m.group(2), text))
    if new == text:  # (a `tuned` that names a table of its own keeps it: main's check of what ran says so)
        return yaml
    os.makedirs(os.path.join(out, "yaml"), exist_ok=True)
    copy = os.path.join(out, "yaml", os.path.basename(yaml))
    with open(copy, "w") as f:
        f.write(new)
    return copy


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runner", nargs="?", default=os.path.join(root, "runner"))
    ap.add_argument("--out", default=None)
    ap.add_argument("--tune", action="store_true")
    ap.add_argument("--md", default=None)
    ap.add_argument("--devices", default=None, help="the runner's --devices: all, or GPU ordinals as 0,2")
    ap.add_argument("--resume", action="store_true", help="with --out: go on from the result files there")
    ap.add_argument("--table", default="auto", help="tuned's table: auto (the one the runner carries for this GPU), "
                    "default (the registry's), or tilelab:sgemm/NAME.table")
    args = ap.parse_args()
    if args.resume and not args.out:
        ap.error("--resume needs --out (the folder whose result files it goes on from)")
    out = args.out or tempfile.mkdtemp(prefix="tilelab-sgemm-")
    os.makedirs(out, exist_ok=True)
    table = args.table
    if table == "auto":
        name = gpu_name(args.devices)
        table = carried_table(root, name) if name else None
        print("tuned's table: %s (%s)" % (table or "the registry's", "the one measured on this GPU, %s" % name if table
              else "none carried for %s" % (name or "this GPU: nvidia-smi did not name it")))
    elif table == "default":
        table = None
    elif not re.fullmatch(r"tilelab:sgemm/[\w.-]+\.table", table):
        ap.error("--table: auto, default or tilelab:sgemm/NAME.table, not '%s'" % table)
    exp = lambda n: with_table(os.path.join(root, "experiments", n), table, out) if table else \
        os.path.join(root, "experiments", n)
    fails = []
    files = {}
    for name in ["sgemm_odd", "sgemm_ladder", "sgemm_layouts", "sgemm_shapes", "sgemm_random", "sgemm_tldg",
                 "sgemm_packed"] + (
            ["sgemm_tune"] if args.tune else []):
        files[name] = run(args.runner, exp(name + ".yaml"), out, args.devices, args.resume)
        for c in cases(files[name]):
            if table and c["variant"] == "tuned" and c["status"] == "ok" and \
                    "(kernels/%s:" % table[len("tilelab:"):] not in c.get("dispatch", ""):
                fails.append("%s: tuned %s %s ran %s, not a row of %s" % (name, c["sizes"], c["layouts"],
                                                                       c.get("dispatch", "?"), table))
            if c["status"] != "ok" and not (name == "sgemm_tune" and c["status"] == "skipped") and not planned_skip(c):
                fails.append("%s: %s %s %s %s: %s %s" % (name, c["variant"], c["params"], c["sizes"], c["layouts"],
                                                         c["status"], c["reason"][:160]))
    odd = cases(files["sgemm_odd"])
    for params in sorted({c["params"] for c in odd if c["variant"] == "skinny"}):
        if not any(c["status"] == "ok" for c in odd if c["variant"] == "skinny" and c["params"] == params):
            fails.append("sgemm_odd: skinny %s verified on no problem" % params)
    pk = cases(files["sgemm_packed"])
    for params in sorted({c["params"] for c in pk if c["variant"] == "packed" and "KEEP=" in c["params"]}):
        if not any(c["status"] == "ok" for c in pk if c["variant"] == "packed" and c["params"] == params):
            fails.append("sgemm_packed: packed %s verified on no problem" % params)
    lad = cases(files["sgemm_ladder"])
    for c in lad:
        if c["variant"] != "cublas" and (c["regs"] < 0 or c["smem_bytes"] < 0 or c["local_bytes"] < 0):
            fails.append("resource usage missing for %s" % c["variant"])
    print("best rung against cuBLAS:")
    for size, bar in (("m=2048,n=2048,k=2048", 0.85), ("m=4096,n=4096,k=4096", 0.90), ("m=8192,n=8192,k=8192", 0.85)):
        cb = [c for c in lad if c["sizes"] == size and c["variant"] == "cublas"]
        rungs = [c for c in lad if c["sizes"] == size and c["variant"] != "cublas" and c["status"] == "ok"]
        if not cb or not rungs:
            fails.append("%s: missing cases" % size)
            continue
        best = min(rungs, key=lambda c: c["median"])
        r = cb[0]["median"] / best["median"]
        print("  %-22s %-10s %.3f x cuBLAS (%.3f ms vs %.3f ms), bar %.2f" % (size, best["variant"], r, best["median"],
                                                                          cb[0]["median"], bar))
        if r < bar:
            fails.append("%s: best rung %s at %.3f x cuBLAS, bar %.2f" % (size, best["variant"], r, bar))
    tldg(cases(files["sgemm_tldg"]))
    packed(pk)
    keep(pk)
    fails += shapes(cases(files["sgemm_shapes"]))
    random_shapes(cases(files["sgemm_random"]))
    fails += tensor_core_accuracy(files)
    if args.md:
        cmd = [sys.executable, os.path.join(root, "analysis", "sgemm_ladder_md.py"), files["sgemm_ladder"],
               "--layouts", files["sgemm_layouts"], "-o", args.md]
        if args.tune:
            cmd += ["--tune", files["sgemm_tune"]]
        md = subprocess.run(cmd)
        if md.returncode:  # the verdict still prints: the runs are done
            fails.append("--md %s: analysis/sgemm_ladder_md.py exited %d" % (args.md, md.returncode))
    if fails:
        print("GPU SGEMM CHECK FAILED:\n  " + "\n  ".join(fails[:40]))
        return 1
    print("GPU SGEMM CHECK PASSED")
    return 0


if __name__ == "__main__":
    sys.exit(main())
