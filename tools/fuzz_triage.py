#!/usr/bin/env python3
"""Sorts the reproducers of a result-file fuzzing run: each is replayed through the fuzz target (its
sanitizer report says where it failed) and through the real runner (`runner merge`, which reads the
file as every command does). A finding is ours when the first frame of its report outside the
sanitizer's and libc's is tilelab code (for an out-of-memory report: when tilelab code allocated one
of the largest live heap blocks); the HDF5 library's own crashes, hangs and huge allocations on
crafted files are expected, and the runner must turn each into exit 2 (it reads a file from elsewhere
in a child process first).

usage: fuzz_triage.py FUZZ_TARGET RUNNER REPRODUCER...    exit 1 when a finding is ours or the runner
                                                          did not give exit 0 or 2
"""
import os
import re
import subprocess
import sys
import tempfile

RUNTIME = re.compile(r"libclang_rt|asan_|__interceptor|__sanitizer|fuzzer::|crtend|libc\.so|libstdc\+\+|"
                     r" in (malloc|calloc|realloc|free|strdup|memcpy|memmove|operator new)\b|memmove-vec|"
                     r"\(<unknown module>\)")


# Frames of tilelab's own code: the runner's sources and the fuzz harness, as a symbolized frame
# (a source path) or a function of the fuzz target itself (not a shared library's, not libFuzzer's main).
TILELAB = re.compile(r" (runner|fuzz|kernels)/\w+\.c:\d+")
IN_TARGET = re.compile(r" in ([\w:~<>]+) \(([^()\s]+)\+0x[0-9a-f]+\)")


def tilelab_frame(line):
    if TILELAB.search(line):
        return True
    m = IN_TARGET.search(line)
    return bool(m) and m.group(1) != "main" and ".so" not in m.group(2) and not RUNTIME.search(line)


def first_frame(report):
    for line in report.splitlines():
        if re.match(r"\s+#\d+ ", line) and not RUNTIME.search(line):
            return line.strip()
    return ""


def oom_is_ours(report):
    """An out-of-memory report (the RSS limit) shows libFuzzer's stack, then the largest live heap
    contexts. It is tilelab's when one of those contexts was allocated by tilelab code; otherwise the
    memory went to the library parsing the file (or to memory it freed, which the report cannot show)."""
    heap = report[report.find("Live Heap Allocations"):]
    return any(tilelab_frame(line) for line in heap.splitlines() if re.match(r"\s+#\d+ ", line))


def main():
    target, runner, repros = sys.argv[1], sys.argv[2], sys.argv[3:]
    ours, hdf5, bad_exit = [], 0, []
    tmp = tempfile.mkdtemp()
    for r in repros:
        # The fuzzing run flagged inputs over 10 s; 5 s is enough to see where a timeout hangs, and the
        # runner's own limit on reading a file is cut the same way (CI time: a timeout costs both).
        p = subprocess.run([target, "-timeout=5", "-rss_limit_mb=2048", r], capture_output=True, text=True,
                           errors="replace", timeout=120)
        frame = first_frame(p.stderr)
        if "libFuzzer: out-of-memory (used:" in p.stderr and "Live Heap Allocations" in p.stderr:
            if oom_is_ours(p.stderr):
                ours.append((r, "out of memory, live heap allocated by tilelab code"))
            else:
                hdf5 += 1
        elif "libhdf5" in frame or re.search(r" in H5\w+ ", frame):
            hdf5 += 1
        elif "ERROR:" in p.stderr:
            ours.append((r, frame or p.stderr.strip().splitlines()[-1]))
        q = subprocess.run([runner, "merge", os.path.join(tmp, "out.h5"), r], capture_output=True, text=True,
                           errors="replace", timeout=900, env=dict(os.environ, TILELAB_TEST_PROBE_SECONDS="5"))
        if q.returncode not in (0, 2):
            bad_exit.append((r, q.returncode, q.stderr.strip()[-300:]))
        if os.path.exists(os.path.join(tmp, "out.h5")):
            os.unlink(os.path.join(tmp, "out.h5"))
    print("triage: %d reproducers: %d inside the HDF5 library, %d in tilelab code; the runner gave exit 0 or 2 "
          "on %d of them" % (len(repros), hdf5, len(ours), len(repros) - len(bad_exit)))
    for r, frame in ours:
        print("OURS %s: %s" % (r, frame))
    for r, rc, err in bad_exit:
        print("RUNNER EXIT %d on %s: %s" % (rc, r, err))
    return 1 if ours or bad_exit else 0


if __name__ == "__main__":
    sys.exit(main())
