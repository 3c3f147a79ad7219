"""`runner run --sanitize`, on the host target and without a GPU: a stand-in for compute-sanitizer (a script that
runs the program it is given and writes a log in the tool's format, with or without a finding) shows what the
runner does with the tool's verdicts. A clean case stays ok with its count of 0; a finding fails the case
(verify_failed, exit 1) with the count, the first finding in its reason and the report in the file, its timings
kept; a tool that crashes or hangs costs that case an error, never the run; no tool, or no such tool, is bad
input. TILELAB_TEST_SANITIZE_HOST lets host variants stand in for kernels. (tests/gpu_fault_check.py runs the
real tool on kernels.)"""
import os
import subprocess
import sys
import tempfile
import unittest

import h5py

RUNNER = os.path.abspath(os.path.join("runner", "runner"))

YAML = """name: san
op: copy
seed: 3
sizes: {n: [1000, 3000]}
variants: [host_memcpy]
case_timeout_s: 1
measure: {warmup: 1, min_reps: 3, max_reps: 3}
"""

FAKE = r"""#!/bin/sh
log=""; tool=""
echo "$*" >> "$FAKE_CALLS"
while [ $# -gt 0 ]; do
  case "$1" in
    --log-file) log="$2"; shift 2;;
    --tool) tool="$2"; shift 2;;
    --*) shift 2;;
    *) break;;
  esac
done
[ -n "$FAKE_HANG" ] && sleep 300
[ -n "$FAKE_CRASH" ] && kill -SEGV $$
"$@"; rc=$?
{
  echo "========= COMPUTE-SANITIZER"
  if [ -n "$FAKE_FINDING" ]; then
    echo "========= Invalid __global__ write of size 4 bytes"
    echo "=========     at oob+0x90 in kernels/oob.cu:4"
    echo "=========     by thread (0,0,0) in block (0,0,0)"
    echo "========= "
    echo "========= ERROR SUMMARY: 1 error"
  else
    echo "========= ERROR SUMMARY: 0 errors"
  fi
} > "$log"
exit $rc
"""


def text(v):
    return v.decode() if isinstance(v, bytes) else v


class Sanitize(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        cls.yaml = os.path.join(cls.tmp, "san.yaml")
        with open(cls.yaml, "w") as f:
            f.write(YAML)
        cls.fake = os.path.join(cls.tmp, "compute-sanitizer")
        with open(cls.fake, "w") as f:
            f.write(FAKE)
        os.chmod(cls.fake, 0o755)
        cls.children = os.path.join(cls.tmp, "children")  # TMPDIR of the runs: where the children's folders go
        os.makedirs(cls.children)
        cls.n = 0

    def run_it(self, *args, **env):
        self.__class__.n += 1
        h5 = os.path.join(self.tmp, "r%d.h5" % self.n)
        calls = os.path.join(self.tmp, "calls%d" % self.n)
        e = dict(os.environ, TILELAB_SANITIZER=self.fake, TILELAB_TEST_SANITIZE_HOST="1", FAKE_CALLS=calls,
                 TMPDIR=self.children)
        e.update(env)
        p = subprocess.run([RUNNER, "run", self.yaml, "-o", h5] + list(args), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=120, env=e)
        lines = open(calls).read().splitlines() if os.path.exists(calls) else []
        return p, h5, lines

    def cases(self, h5):
        with h5py.File(h5, "r") as f:
            return [{k: (text(v) if isinstance(v, (str, bytes)) else v) for k, v in g.attrs.items()} |
                    {"reps": len(g["time_ms"])} for g in f["cases"].values()]

    def test_a_clean_case_stays_ok(self):
        p, h5, calls = self.run_it("--sanitize")
        self.assertEqual(p.returncode, 0, p.stderr)
        for c in self.cases(h5):
            self.assertEqual((c["status"], c["sanitize_tool"], c["sanitize_errors"]), ("ok", "memcheck", 0), c)
            self.assertEqual(c["reps"], 3)
        self.assertEqual(len(calls), 2, calls)  # one child a case
        for line in calls:
            self.assertIn("--tool memcheck", line)
            self.assertIn("--padding 1048576", line)  # a write just past a buffer is out of bounds
            self.assertIn(" run %s -o " % self.yaml, line)
            self.assertIn("--sanitize-child", line)
            self.assertNotIn("--kernel-name", line)  # host variants have no kernels to name
        self.assertEqual(os.listdir(self.children), [], "a child's folder was left behind")

    def test_a_finding_fails_the_case(self):
        p, h5, calls = self.run_it("--sanitize", "racecheck", FAKE_FINDING="1")
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("compute-sanitizer racecheck: 1 error", p.stdout + p.stderr)
        for c in self.cases(h5):
            self.assertEqual(c["status"], "verify_failed")
            self.assertEqual(c["sanitize_errors"], 1)
            self.assertTrue(c["reason"].startswith("compute-sanitizer racecheck: 1 error in the kernels; the first: "
                                                   "Invalid __global__ write of size 4 bytes at oob+0x90 in "
                                                   "kernels/oob.cu:4"), c["reason"])
            self.assertEqual(c["sanitize_report"], "Invalid __global__ write of size 4 bytes\n    at oob+0x90 in "
                                                   "kernels/oob.cu:4\n    by thread (0,0,0) in block (0,0,0)\n")
            self.assertEqual(c["reps"], 3, "the timings are the normal run's, kept")
        self.assertTrue(all("--tool racecheck" in line and "--padding" not in line for line in calls), calls)
        p = subprocess.run([sys.executable, "-m", "tilelab_analysis.summary", h5], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)

    def test_a_tool_that_crashes_or_hangs_costs_the_case(self):
        for env, want in (({"FAKE_CRASH": "1"}, "compute-sanitizer memcheck could not check the case"),
                          ({"FAKE_HANG": "1"}, "compute-sanitizer memcheck ran past 3 s checking the case; it was "
                                               "killed")):
            p, h5, _ = self.run_it("--sanitize", "memcheck", **env)
            self.assertEqual(p.returncode, 1, p.stderr)
            cs = self.cases(h5)
            self.assertEqual(len(cs), 2)
            for c in cs:
                self.assertEqual((c["status"], c["sanitize_errors"]), ("error", -1), c)
                self.assertIn(want, c["reason"])
        self.assertEqual(os.listdir(self.children), [])

    def test_bad_input(self):
        for args, env, want in (
                (["--sanitize", "leakcheck"], {}, "--sanitize takes memcheck, racecheck, initcheck or synccheck, "
                                                  "not 'leakcheck'"),
                (["--sanitize"], {"TILELAB_SANITIZER": "/nonexistent/cs"},
                 "TILELAB_SANITIZER=/nonexistent/cs: not an executable file"),
                (["--sanitize"], {"TILELAB_SANITIZER": "", "CUDA_HOME": "/nonexistent", "CUDA_PATH": "/nonexistent",
                                  "PATH": "/nonexistent"} if not os.path.exists("/usr/local/cuda/bin/compute-sanitizer")
                 else {"TILELAB_SANITIZER": "/nonexistent/cs"}, "compute-sanitizer"),
                (["--sanitize", "--sanitize-child"], {}, "--sanitize-child is how --sanitize runs a case")):
            p, h5, _ = self.run_it(*args, **env)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn(want, p.stderr)
            self.assertFalse(os.path.exists(h5), "bad input wrote a file")
        p = subprocess.run([RUNNER, "rerun", self.yaml, "--sanitize"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn("--sanitize belongs to run", p.stderr)


if __name__ == "__main__":
    unittest.main()
