#!/usr/bin/env python3
"""GPU check for kernels of one's own (Bazel tag gpu; also runs from the portable bundle):

1. The example folders (experiments/user_sgemm, experiments/user_copy) run and every case verifies; the
   table shows the user's kernels against the ladder and the libraries at the same size.
2. Their result files are rerun after the folders are deleted, with an empty kernel cache: the same
   case ids and, for every compiled case, the same cubin SHA-256 (the kernels came from the file).
3. `runner extract` writes a folder that validates; an edited kernel run into a new file makes
   `compare` say the matched cases compiled different sources.
4. A deliberately wrong kernel of one's own fails verification (exit 1, verify_failed); one that does
   not compile, or has the wrong signature, stops the run before any GPU work (exit 2, no file, the
   user's file and line in the message).

usage: gpu_user_kernels_check.py [RUNNER] [--out DIR]
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

import h5py

HERE = os.path.dirname(os.path.abspath(__file__))
EXPERIMENTS = os.path.join(os.path.dirname(HERE), "experiments")
WRONG = """name: wrong_user
op: sgemm
seed: 11
sizes: [{mnk: 256}, {m: 100, n: 130, k: 70}]
variants:
  - name: drops_last_k
    source: wrong.cu
    block: [16, 16]
    grid: ["ceil_div(n, 16)", "ceil_div(m, 16)"]
  - cublas
measure: {warmup: 1, min_reps: 5, max_reps: 5}
"""
WRONG_CU = """// A user's SGEMM with a bug: its loop stops one short of K.
extern "C" __global__ void drops_last_k(int M, int N, int K, float alpha, const float *A, const float *B,
                                        float beta, float *C)
{
    const int i = blockIdx.y * 16 + threadIdx.y, j = blockIdx.x * 16 + threadIdx.x;
    if (i >= M || j >= N) return;
    float acc = 0.0f;
    for (int p = 0; p < K - 1; ++p) acc += A[i * K + p] * B[p * N + j];
    C[i * N + j] = alpha * acc + (beta == 0.0f ? 0.0f : beta * C[i * N + j]);
}
"""


def text(v):
    return v.decode() if isinstance(v, bytes) else v


def cases(path):
    with h5py.File(path, "r") as f:
        return {c: {k: text(v) for k, v in f["cases"][c].attrs.items() if isinstance(v, (str, bytes, int, float))}
                for c in f["cases"]}


def medians(path):
    with h5py.File(path, "r") as f:
        return {text(r["case_id"]): float(r["median_ms"]) for r in f["summary"][()]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("runner", nargs="?", default=os.path.join("runner", "runner"))
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    runner = os.path.abspath(a.runner)
    out = os.path.abspath(a.out or tempfile.mkdtemp())
    os.makedirs(out, exist_ok=True)
    bad = []

    def check(ok, what):
        print(("ok    " if ok else "FAIL  ") + what)
        if not ok:
            bad.append(what)
        return ok

    def run(*args, cache=None):
        env = dict(os.environ)
        if cache:
            env["TILELAB_CACHE_DIR"] = cache
        return subprocess.run([runner, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)

    results = {}
    for name in ("user_sgemm", "user_copy"):
        # 1. The example folder runs and verifies.
        folder = os.path.join(out, name)
        shutil.copytree(os.path.join(EXPERIMENTS, name), folder)
        h5 = os.path.join(out, name + ".h5")
        p = run(os.path.join(folder, name + ".yaml"), "-o", h5, cache=os.path.join(out, "cache-" + name))
        print(p.stdout)
        print(p.stderr[-3000:])
        check(p.returncode == 0, "%s: exit 0 (got %d)" % (name, p.returncode))
        got = cases(h5) if os.path.exists(h5) else {}
        own = [c for c in got.values() if c.get("variant_origin") == "experiment"]
        check(len(own) > 0 and all(c["status"] in ("ok", "skipped") for c in got.values()),
              "%s: every case ok or skipped (%d of the user's own)" % (name, len(own)))
        check(any(c["status"] == "ok" for c in own), "%s: the user's kernel verified" % name)
        check(all("experiment:kernels/" in c.get("sources", "") for c in own), "%s: its cases name their sources" % name)
        results[name] = h5
        # 2. Rerun with the folder gone and an empty cache: the file's sources, the same binaries.
        shutil.rmtree(folder)
        again = os.path.join(out, name + ".rerun.h5")
        p = run("rerun", h5, "-o", again, "-q", cache=os.path.join(out, "cache2-" + name))
        check(p.returncode == 0, "%s: rerun without the folder: exit %d %s" % (name, p.returncode, p.stderr[-800:]))
        got2 = cases(again) if os.path.exists(again) else {}
        check(set(got2) == set(got), "%s: the rerun has the same case ids (%d, %d)" % (name, len(got2), len(got)))
        same = [c for c in got if got[c].get("cubin_sha256") and got2.get(c, {}).get("cubin_sha256") == got[c]["cubin_sha256"]]
        compiled = [c for c in got if got[c].get("cubin_sha256")]
        check(len(compiled) > 0 and len(same) == len(compiled),
              "%s: the rerun compiled the same cubins (%d of %d)" % (name, len(same), len(compiled)))
        # 3. extract: the folder back, and it validates.
        ex = os.path.join(out, name + ".extracted")
        p = run("extract", h5, ex)
        print(p.stdout.strip())
        check(p.returncode == 0, "%s: extract: %s" % (name, p.stderr.strip()))
        p = run("validate", "--compile", os.path.join(ex, name + ".yaml"), cache=os.path.join(out, "cache3"))
        check(p.returncode == 0, "%s: the extracted folder validates and compiles: %s" % (name, p.stderr[-500:]))

    # The figures: the user's SGEMM against cuBLAS and the ladder at the same size and layout.
    got, med = cases(results["user_sgemm"]), medians(results["user_sgemm"])
    base = {(c["sizes"], c["layouts"]): med[i] for i, c in got.items() if c["variant"] == "cublas" and i in med}
    print("user_sgemm on this GPU (median ms, fraction of cuBLAS at the same size and layout):")
    for i, c in sorted(got.items(), key=lambda kv: (kv[1]["sizes"], kv[1]["layouts"], kv[1]["variant"], kv[1]["params"])):
        if i in med and (c["sizes"], c["layouts"]) in base:
            print("  %-12s %-26s %-20s %-12s %9.4f ms %6.3f x cuBLAS" % (c["variant"], c["params"], c["sizes"],
                                                                         c["layouts"], med[i],
                                                                         base[(c["sizes"], c["layouts"])] / med[i]))

    # 3b. An edited kernel: compare says the matched cases compiled other sources.
    folder = os.path.join(out, "edited")
    shutil.copytree(os.path.join(EXPERIMENTS, "user_copy"), folder)
    with open(os.path.join(folder, "kernels", "copy_ilp.cu"), "a") as f:
        f.write("// edited after the first run\n")
    edited = os.path.join(out, "edited.h5")
    p = run(os.path.join(folder, "user_copy.yaml"), "-o", edited, "-q")
    check(p.returncode == 0, "the edited copy kernel runs: %s" % p.stderr[-300:])
    p = subprocess.run([sys.executable, "-m", "tilelab_analysis.compare", results["user_copy"], edited],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       env=dict(os.environ, PYTHONPATH=os.path.join(os.path.dirname(HERE), "analysis")))
    print(p.stdout[-1500:] + p.stderr[-500:])
    check("compiled different kernel sources (kernels/copy_ilp.cu)" in p.stdout,
          "compare says which matched cases compiled other sources")

    # 4. A wrong kernel fails verification; bad kernels stop before any GPU work.
    folder = os.path.join(out, "wrong")
    os.makedirs(folder)
    with open(os.path.join(folder, "wrong.yaml"), "w") as f:
        f.write(WRONG)
    with open(os.path.join(folder, "wrong.cu"), "w") as f:
        f.write(WRONG_CU)
    h5 = os.path.join(out, "wrong.h5")
    p = run(os.path.join(folder, "wrong.yaml"), "-o", h5)
    print(p.stdout + p.stderr[-1500:])
    check(p.returncode == 1, "a wrong kernel of one's own: exit 1 (got %d)" % p.returncode)
    got = cases(h5) if os.path.exists(h5) else {}
    wrong = [c for c in got.values() if c["variant"] == "drops_last_k"]
    check(len(wrong) == 2 and all(c["status"] == "verify_failed" for c in wrong),
          "its cases failed verification: %s" % [c.get("reason", "")[:120] for c in wrong])
    check(all(c["status"] == "ok" for c in got.values() if c["variant"] == "cublas"), "cuBLAS beside it verified")
    for body, want in ((WRONG_CU.replace("acc += ", "acc += undeclared + "), "wrong.cu(8): error"),
                       (WRONG_CU.replace("int K,", "long long K,"), "argument 3 of drops_last_k must be int K")):
        with open(os.path.join(folder, "wrong.cu"), "w") as f:
            f.write(body)
        h5 = os.path.join(out, "never.h5")
        p = run(os.path.join(folder, "wrong.yaml"), "-o", h5)
        print(p.stderr[-800:])
        check(p.returncode == 2 and want in p.stderr and not os.path.exists(h5),
              "a kernel that %s: exit 2 (got %d), no file, '%s'" % ("does not compile" if "error" in want else
                                                                    "has the wrong signature", p.returncode, want))
        check(not re.search(r"^\[\s*\d+/\d+ ", p.stderr, re.M) and "tilelab: writing" not in p.stderr,
              "no case ran and no file was opened before the error")
    print("GPU USER KERNELS CHECK " + ("PASSED" if not bad else "FAILED: " + "; ".join(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
