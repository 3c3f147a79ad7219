#!/usr/bin/env python3
"""GPU check for sweeps (Bazel tag gpu; also runs from the portable bundle):

1. A kernel that faults (copy/fault_for_tests stores to an illegal address) in the middle of a sweep:
   the case is recorded as an error with the CUDA message, the runner re-executes itself with
   --resume (a new CUDA context), and the cases after it run and verify. Exit code 1 (a case failed).
2. A GPU sweep in 3 shards, merged: the merged file's cases equal a single run's, every case ok.
3. A kernel of the user's that never returns (it spins on a flag nobody sets) and one that traps, between good
   cases: the spinning case is recorded as `timeout` after case_timeout_s, the trapping one as an error, the
   runner starts itself again after each and every other case verifies. Printed: the seconds each cost.
4. The same sweep with --devices all: the same statuses, the workers restarting themselves.
5. --sanitize: a kernel that writes one float past its output (into memory that verification cannot see) passes
   a plain run and fails under memcheck with its file and line; a kernel that races on shared memory fails under
   racecheck with its file and line; the runner's own kernels are clean; the timings are the normal run's.
6. The runner run under compute-sanitizer by hand, through a kernel fault: it finishes the sweep.
7. A --devices worker whose GPU stays unusable after its restart (TILELAB_TEST_SICK_GPU makes the health check
   fail): it ends with one message, the run says what is missing, and --resume finishes the file.

usage: gpu_fault_check.py [RUNNER] [--out DIR]
"""
import argparse
import os
import subprocess
import sys
import tempfile

import h5py
import numpy

FAULT = """name: fault
op: copy
seed: 3
sizes: {n: [1048576]}
variants:
  - coalesced
  - fault_for_tests
  - vec4
  - memcpy
  - name: strided
    params: {S: [2, 4]}
measure: {warmup: 2, min_reps: 10, max_reps: 20, max_time_s: 0.5}
"""
HANG = """name: hang
op: copy
seed: 3
sizes: {n: [1048576]}
case_timeout_s: 8
variants:
  - coalesced
  - {name: spin, source: spin.cu, entry: spin, block: [256], grid: [64]}
  - vec4
  - {name: trap, source: trap.cu, entry: trap, block: [256], grid: [64]}
  - memcpy
measure: {warmup: 2, min_reps: 10, max_reps: 20, max_time_s: 0.5}
"""
SPIN = """extern "C" __global__ void spin(const float *x, float *y, long long n)
{
    __shared__ volatile int flag; // nobody sets it
    if (threadIdx.x == 0) flag = x[0] > 1e30f;
    __syncthreads();
    while (!flag) {}
    y[0] = x[0];
}
"""
TRAP = """extern "C" __global__ void trap(const float *x, float *y, long long n)
{
    if (threadIdx.x == 0 && blockIdx.x == 3) __trap();
    for (long long i = blockIdx.x * 256ll + threadIdx.x; i < n; i += 64 * 256ll) y[i] = x[i];
}
"""
SAN = """name: san
op: copy
seed: 3
sizes: {n: [1047552]}
variants:
  - coalesced
  - {name: oob, source: oob.cu, entry: oob, block: [256], grid: [64]}
  - {name: race, source: race.cu, entry: race, block: [256], grid: [64]}
  - vec4
measure: {warmup: 2, min_reps: 10, max_reps: 20, max_time_s: 0.3}
"""
OOB = """extern "C" __global__ void oob(const float *x, float *y, long long n)
{
    for (long long i = blockIdx.x * 256ll + threadIdx.x; i < n; i += 64 * 256ll) y[i] = x[i];
    // One float past the end. n = 2^20 - 1024 makes y 4 KiB short of 4 MiB, so the write lands in the same page as
    // y's last element: memory the allocation's rounding maps on every GPU, which verification never reads and
    // memcheck knows is outside y.
    if (blockIdx.x == 0 && threadIdx.x == 0) y[n] = 1.0f;
}
"""
RACE = """extern "C" __global__ void race(const float *x, float *y, long long n)
{
    __shared__ float s[256];
    for (long long i = blockIdx.x * 256ll + threadIdx.x; i < n; i += 64 * 256ll) {
        s[threadIdx.x] = x[i];
        float w = s[threadIdx.x ^ 32]; // another warp's element, before the barrier: a race
        __syncthreads();
        y[i] = s[threadIdx.x] + 0.0f * w;
        __syncthreads();
    }
}
"""
SWEEP = """name: gpu_sweep
op: sgemm
seed: 5
sizes: {mnk: [256, 512, 1024]}
layout: {a: row, b: [row, col]}
variants:
  - naive
  - name: smem_tile
    params: {BLOCKSIZE: [16, 32]}
  - hopper
  - cublas
measure: {warmup: 2, min_reps: 10, max_reps: 30, max_time_s: 0.5}
"""


def text(v):
    return v.decode() if isinstance(v, bytes) else v


def cases(path):
    with h5py.File(path, "r") as f:
        return {c: {k: (text(v) if isinstance(v, (str, bytes)) else int(v)) for k, v in f["cases"][c].attrs.items()
                    if isinstance(v, (str, bytes, int, numpy.integer))}
                for c in f["cases"]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("runner", nargs="?", default=os.path.join("runner", "runner"))
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    out = a.out or tempfile.mkdtemp()
    os.makedirs(out, exist_ok=True)
    bad = []

    def check(ok, what):
        print(("ok    " if ok else "FAIL  ") + what)
        if not ok:
            bad.append(what)

    # 1. The faulting kernel.
    y = os.path.join(out, "fault.yaml")
    with open(y, "w") as f:
        f.write(FAULT)
    h5 = os.path.join(out, "fault.h5")
    p = subprocess.run([a.runner, y, "-o", h5], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    print(p.stderr[-4000:])
    print(p.stdout)
    check(p.returncode == 1, "exit code 1 after a faulting case (got %d)" % p.returncode)
    check("the CUDA context is lost; starting again with --resume" in p.stderr, "the runner re-executed itself")
    got = cases(h5)
    by_variant = {(c["variant"], c["params"]): c for c in got.values()}
    check(len(got) == 6, "all 6 cases are in the file (%d)" % len(got))
    fault = by_variant.get(("fault_for_tests", "BLOCK=256,GRID=0"))
    fault = fault or next((c for c in got.values() if c["variant"] == "fault_for_tests"), None)
    check(fault is not None and fault["status"] == "error", "the faulting case is an error")
    if fault:
        print("  reason: " + fault["reason"])
        check("illegal" in fault["reason"] and "CUDA context is lost" in fault["reason"],
              "its reason has the CUDA message")
    others = [c for c in got.values() if c["variant"] != "fault_for_tests"]
    check(all(c["status"] == "ok" for c in others), "every other case verified: %s"
          % sorted((c["variant"], c["params"], c["status"]) for c in others))
    with h5py.File(h5, "r") as f:
        sessions = sorted(f["sessions"], key=int)
        check(len(sessions) == 2, "two sessions (the first, then the re-executed one): %s" % sessions)
        after = {text(f["cases"][c].attrs["variant"]) for c in f["cases"] if f["cases"][c].attrs["session"] == 1}
        check(after == {"vec4", "memcpy", "strided"}, "the cases after the fault ran in the new process: %s"
              % sorted(after))

    # 2. Shards on the GPU, merged.
    y = os.path.join(out, "gpu_sweep.yaml")
    with open(y, "w") as f:
        f.write(SWEEP)
    single = os.path.join(out, "single.h5")
    p = subprocess.run([a.runner, y, "-q", "-o", single], capture_output=True, text=True)
    check(p.returncode == 0, "single run of the sweep: exit %d %s" % (p.returncode, p.stderr[-500:]))
    shards = []
    for i in range(3):
        s = os.path.join(out, "shard%d.h5" % i)
        p = subprocess.run([a.runner, y, "-q", "--shard", "%d/3" % i, "-o", s], capture_output=True, text=True)
        check(p.returncode == 0, "shard %d/3: exit %d %s" % (i, p.returncode, p.stderr[-500:]))
        shards.append(s)
    merged = os.path.join(out, "merged.h5")
    p = subprocess.run([a.runner, "merge", merged, *shards], capture_output=True, text=True)
    print(p.stdout + p.stderr)
    check(p.returncode == 0, "merge: exit %d" % p.returncode)
    m, s1 = cases(merged), cases(single)
    check(set(m) == set(s1), "merged cases equal the single run's (%d, %d)" % (len(m), len(s1)))
    check(all(c["status"] == "ok" for c in m.values()), "every merged case ok")
    # 3. A kernel that never returns, and one that traps, between good cases.
    import time
    d = os.path.join(out, "hang")
    os.makedirs(d, exist_ok=True)
    for name, src in (("spin.cu", SPIN), ("trap.cu", TRAP)):
        with open(os.path.join(d, name), "w") as f:
            f.write(src)
    y = os.path.join(d, "hang.yaml")
    with open(y, "w") as f:
        f.write(HANG)
    h5 = os.path.join(out, "hang.h5")
    t0 = time.monotonic()
    p = subprocess.run([a.runner, y, "-o", h5], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=300)
    wall = time.monotonic() - t0
    print(p.stderr[-3000:])
    got = cases(h5) if os.path.exists(h5) else {}
    st = {c["variant"]: (c["status"], c.get("reason", "")) for c in got.values()}
    check(p.returncode == 1 and len(got) == 5, "the sweep with a hanging kernel finished: exit %d, %d of 5 cases"
          % (p.returncode, len(got)))
    check(st.get("spin", ("?",))[0] == "timeout" and "ran past its limit of 8 s" in st["spin"][1],
          "the spinning case is a timeout: %s" % (st.get("spin"),))
    check(st.get("trap", ("?",))[0] == "error", "the trapping case is an error: %s" % (st.get("trap"),))
    check(all(st.get(v, ("?",))[0] == "ok" for v in ("coalesced", "vec4", "memcpy")), "the others verified: %s" % st)
    clean = os.path.join(out, "clean.h5")
    with open(os.path.join(d, "clean.yaml"), "w") as f:
        f.write(HANG.replace("name: hang", "name: clean").replace(
            "  - {name: spin, source: spin.cu, entry: spin, block: [256], grid: [64]}\n", "").replace(
            "  - {name: trap, source: trap.cu, entry: trap, block: [256], grid: [64]}\n", ""))
    t0 = time.monotonic()
    subprocess.run([a.runner, os.path.join(d, "clean.yaml"), "-q", "-o", clean], capture_output=True, text=True)
    base = time.monotonic() - t0
    print("hang sweep: %.1f s wall against %.1f s without the spinning and trapping cases: %.1f s for the two "
          "(the limit 8 s, and two restarts)" % (wall, base, wall - base))


    # 4. The hanging sweep again, spread by --devices (one worker a GPU).
    h5d = os.path.join(out, "hang_devices.h5")
    t0 = time.monotonic()
    p = subprocess.run([a.runner, y, "-o", h5d, "--devices", "all"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=400)
    wall_d = time.monotonic() - t0
    print(p.stderr[-2000:])
    got = cases(h5d) if os.path.exists(h5d) else {}
    st = {c["variant"]: c["status"] for c in got.values()}
    check(p.returncode == 1 and st == {"coalesced": "ok", "spin": "timeout", "vec4": "ok", "trap": "error",
                                       "memcpy": "ok"},
          "--devices all: the spinning case a timeout, the trap an error, the rest ok (exit %d): %s" % (p.returncode, st))
    print("hang sweep with --devices all: %.1f s wall" % wall_d)

    # 5. --sanitize.
    d = os.path.join(out, "san")
    os.makedirs(d, exist_ok=True)
    for name, src in (("oob.cu", OOB), ("race.cu", RACE)):
        with open(os.path.join(d, name), "w") as f:
            f.write(src)
    y = os.path.join(d, "san.yaml")
    with open(y, "w") as f:
        f.write(SAN)
    plain = os.path.join(out, "san_plain.h5")
    t0 = time.monotonic()
    p = subprocess.run([a.runner, y, "-q", "-o", plain], capture_output=True, text=True, timeout=300)
    wall_plain = time.monotonic() - t0
    st = {c["variant"]: c["status"] for c in cases(plain).values()} if os.path.exists(plain) else {}
    print("plain run: %s (exit %d, %.1f s)" % (st, p.returncode, wall_plain))
    check(st.get("oob") == "ok", "the write past the output passes a plain run's verification: %s" % st.get("oob"))
    for tool, want_bad, line in (("memcheck", "oob", "in oob.cu:7"), ("racecheck", "race", "in race.cu:5")):
        h5s = os.path.join(out, "san_%s.h5" % tool)
        t0 = time.monotonic()
        p = subprocess.run([a.runner, y, "-o", h5s, "--sanitize", tool], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=500)
        wall = time.monotonic() - t0
        print(p.stderr[-2500:])
        got = cases(h5s) if os.path.exists(h5s) else {}
        by = {c["variant"]: c for c in got.values()}
        reps = {}
        if got:
            with h5py.File(h5s, "r") as f:
                reps = {text(g.attrs["variant"]): len(g["time_ms"]) for g in f["cases"].values()}
        bad_case = by.get(want_bad, {})
        print("--sanitize %s: %.1f s wall against %.1f s plain; %s: %s" % (tool, wall, wall_plain, want_bad,
                                                                            bad_case.get("reason")))
        print("  its report:\n    " + (bad_case.get("sanitize_report") or "").replace("\n", "\n    "))
        check(p.returncode == 1 and bad_case.get("status") == "verify_failed" and
              line in (bad_case.get("reason") or "") and bad_case.get("sanitize_errors", 0) > 0,
              "--sanitize %s fails %s naming %s: %s" % (tool, want_bad, line, bad_case.get("reason")))
        others = {v: (c["status"], c.get("sanitize_errors")) for v, c in by.items() if v != want_bad}
        clean = {v: x for v, x in others.items() if v in ("coalesced", "vec4")}
        check(all(x == ("ok", 0) for x in clean.values()), "--sanitize %s: the runner's kernels are clean: %s"
              % (tool, clean))
        check(all(n >= 10 for n in reps.values()), "--sanitize %s: every case has its timings: %s" % (tool, reps))

    # 6. The runner under compute-sanitizer, through a kernel fault (a restart in a process of its own).
    y = os.path.join(out, "fault.yaml")
    h5u = os.path.join(out, "under_sanitizer.h5")
    t0 = time.monotonic()
    try:
        p = subprocess.run(["compute-sanitizer", "--tool", "memcheck", "--show-backtrace", "no", a.runner, y,
                            "-o", h5u], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=300)
        ended = True
    except subprocess.TimeoutExpired:
        ended = False
    wall = time.monotonic() - t0
    waited = 0.0
    while ended and os.path.exists(os.path.join(out, ".under_sanitizer.h5.lock")) and waited < 120:
        time.sleep(0.5)  # the restarted runner, a child the tool may not wait for
        waited += 0.5
    got = cases(h5u) if os.path.exists(h5u) else {}
    st = sorted(c["status"] for c in got.values())
    print("under compute-sanitizer: ended %s after %.1f s (+%.1f s until the restarted runner let go of the file): %s"
          % (ended, wall, waited, st))
    if ended:
        print(p.stdout[-1500:] + p.stderr[-1500:])
    check(ended and len(got) == 6 and st.count("ok") == 5 and st.count("error") == 1,
          "the runner under compute-sanitizer finished the sweep through a fault: %s" % st)

    # 7. A worker's GPU that does not come back after its restart.
    h5w = os.path.join(out, "sick.h5")
    p = subprocess.run([a.runner, y, "-o", h5w, "--devices", "all"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=300, env=dict(os.environ, TILELAB_TEST_SICK_GPU="1"))
    print(p.stderr[-1500:])
    check(p.returncode == 1 and "is unusable after its restart (TILELAB_TEST_SICK_GPU is set); the worker stops"
          in p.stderr and p.stderr.count("unusable after") == 1 and "cases are missing; continue with --resume"
          in p.stderr, "a worker whose GPU stays broken ends with one message (exit %d)" % p.returncode)
    p = subprocess.run([a.runner, y, "-o", h5w, "--devices", "all", "--resume"], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=300)
    got = cases(h5w) if os.path.exists(h5w) else {}
    st = sorted(c["status"] for c in got.values())
    check(len(got) == 6 and st.count("ok") == 5 and st.count("error") == 1,
          "--resume finished it once the GPU was back: %s (exit %d)" % (st, p.returncode))

    print("GPU FAULT CHECK " + ("PASSED" if not bad else "FAILED: " + "; ".join(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
