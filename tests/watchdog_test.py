"""The watchdog, on the host target and without a GPU: a variant that never returns (copy's
host_hang_for_tests, which sleeps forever as a kernel spinning on a flag would) costs its own case. The case
is recorded as `timeout` with its phase and limit, the runner starts itself again and finishes the sweep, the
exit code is 1; `--resume` of the finished file runs nothing again; `--retry-failed` runs the timed-out cases
again once, keeping the earlier attempts; the analysis reads the file. A kernel whose compile runs past
`compile_timeout_s` fails alone."""
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

import h5py

RUNNER = os.path.abspath(os.path.join("runner", "runner"))

YAML = """name: wd
op: copy
seed: 3
sizes: {n: [1000, 3000]}
variants: [host_memcpy, host_hang_for_tests]
case_timeout_s: 2
measure: {warmup: 1, min_reps: 3, max_reps: 3}
"""


def text(v):
    return v.decode() if isinstance(v, bytes) else v


class Watchdog(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        cls.yaml = os.path.join(cls.tmp, "wd.yaml")
        with open(cls.yaml, "w") as f:
            f.write(YAML)
        cls.h5 = os.path.join(cls.tmp, "wd.h5")
        t0 = time.monotonic()
        cls.p = subprocess.run([RUNNER, "run", cls.yaml, "-o", cls.h5], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, timeout=120)
        cls.wall = time.monotonic() - t0

    def statuses(self):
        with h5py.File(self.h5, "r") as f:
            return {text(g.attrs["variant"]) + " " + text(g.attrs["sizes"]):
                    (text(g.attrs["status"]), text(g.attrs["reason"])) for g in f["cases"].values()}

    def test_a_hang_costs_its_case(self):
        self.assertEqual(self.p.returncode, 1, self.p.stderr)
        st = self.statuses()
        self.assertEqual(len(st), 4, st)
        for n in ("n=1000", "n=3000"):
            self.assertEqual(st["host_memcpy " + n][0], "ok")
            status, reason = st["host_hang_for_tests " + n]
            self.assertEqual(status, "timeout")
            self.assertIn("ran past its limit of 2 s (case_timeout_s) in its verify phase", reason)
        self.assertEqual(self.p.stderr.count("starting again with --resume"), 2, self.p.stderr)
        self.assertFalse(os.path.exists(self.h5 + ".timeout"))
        self.assertLess(self.wall, 60)

    def test_resume_does_not_run_it_again(self):
        t0 = time.monotonic()
        p = subprocess.run([RUNNER, "run", self.yaml, "-o", self.h5, "--resume"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=60)
        self.assertEqual(p.returncode, 1, p.stderr)  # the file holds failed cases
        self.assertLess(time.monotonic() - t0, 2, "a held timeout ran again")
        self.assertIn("4 of these 4 cases are already in", p.stderr)
        self.assertEqual(len(self.statuses()), 4)

    def test_the_analysis_reads_it(self):
        p = subprocess.run([sys.executable, "-m", "tilelab_analysis.summary", self.h5], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("timeout", p.stdout)

    def test_sigterm_says_how_to_go_on_and_ends_the_run(self):
        # Slurm's time limit on a case that would run a minute: the run ends at once, says the command that goes
        # on, and the file holds the case before it.
        y = os.path.join(self.tmp, "long.yaml")
        with open(y, "w") as f:
            f.write(YAML.replace("case_timeout_s: 2", "case_timeout_s: 60"))
        h5 = os.path.join(self.tmp, "term.h5")
        p = subprocess.Popen([RUNNER, "run", y, "-o", h5], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not os.path.exists(h5):
            time.sleep(0.05)
        time.sleep(1.0)  # into the case that never returns
        t0 = time.monotonic()
        p.send_signal(15)
        _, err = p.communicate(timeout=30)
        self.assertLess(time.monotonic() - t0, 5)
        self.assertEqual(p.returncode, -15, err)
        self.assertIn("runner: stopped; %s holds every case reported done. Continue with:" % h5, err)
        self.assertIn("-o %s --resume" % h5, err)
        with h5py.File(h5, "r") as f:
            self.assertEqual([text(g.attrs["variant"]) for g in f["cases"].values()], ["host_memcpy"])

    def test_retry_failed_runs_them_again_once(self):
        h5 = os.path.join(self.tmp, "retry.h5")
        shutil.copy(self.h5, h5)
        with h5py.File(h5, "r") as f:
            before = {c: (text(g.attrs["status"]), int(g.attrs["session"])) for c, g in f["cases"].items()}
        p = subprocess.run([RUNNER, "run", self.yaml, "-o", h5, "--retry-failed"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=120)
        self.assertEqual(p.returncode, 1, p.stderr)  # they time out again
        self.assertIn("--retry-failed: 2 cases %s holds as failed or timed out run again" % h5, p.stderr)
        # Each runs once more: a retry that timed out is not retried by the runner's restart after it.
        self.assertEqual(p.stderr.count("starting again with --resume"), 2, p.stderr)
        with h5py.File(h5, "r") as f:
            cases = f["cases"]
            self.assertEqual(set(cases), set(before))
            for c, (status, session) in before.items():
                g = cases[c]
                if status == "ok":
                    self.assertEqual(int(g.attrs["session"]), session, "an ok case ran again")
                    self.assertNotIn("retried", g.attrs)
                    continue
                self.assertEqual(text(g.attrs["status"]), "timeout")
                self.assertGreater(int(g.attrs["session"]), session)
                self.assertEqual(text(g.attrs["retried"]), "timeout in session %d" % session)
                old = f["retried"][c][str(session)]  # the earlier attempt, kept
                self.assertEqual(text(old.attrs["status"]), "timeout")
                self.assertEqual(int(old.attrs["session"]), session)
            ids = [text(r["case_id"]) for r in f["summary"]]
            self.assertEqual(sorted(ids), sorted(before), "one summary row a case")
        p = subprocess.run([RUNNER, "run", self.yaml, "-o", h5, "--resume"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=60)
        self.assertIn("4 of these 4 cases are already in", p.stderr)
        p = subprocess.run([sys.executable, "-m", "tilelab_analysis.summary", h5], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.count("timeout"), 2, p.stdout)

    def test_retry_failed_needs_a_file_and_one_gpu(self):
        for extra, want in (([], "--retry-failed continues a file: name it with -o FILE"),
                            (["-o", self.h5, "--devices", "all"], "--retry-failed runs on one GPU")):
            p = subprocess.run([RUNNER, "run", self.yaml, "--retry-failed"] + extra, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, timeout=60)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn(want, p.stderr)

    def test_a_compile_past_its_limit_fails_alone(self):
        # A source whose preprocessing alone takes minutes (2^24 statements), beside one that compiles: the first
        # fails at the limit with its variant's line, its compile's process killed; the second compiles after it.
        d = os.path.join(self.tmp, "slowc")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "slow.cu"), "w") as f:
            f.write("#define X0 x = x * 1.0001f + 1.0f;\n")
            for i in range(1, 25):
                f.write("#define X%d X%d X%d\n" % (i, i - 1, i - 1))
            f.write('extern "C" __global__ void slow(const float *in, float *y, long long n)\n'
                    "{\n    float x = in[0];\n    X24\n    y[0] = x;\n}\n")
        with open(os.path.join(d, "quick.cu"), "w") as f:
            f.write('extern "C" __global__ void quick(const float *x, float *y, long long n)\n'
                    "{\n    long long i = blockIdx.x * 256ll + threadIdx.x;\n    if (i < n) y[i] = x[i];\n}\n")
        y = os.path.join(d, "c.yaml")
        with open(y, "w") as f:
            f.write("name: c\nop: copy\nseed: 3\nsizes: {n: [1024]}\ncompile_timeout_s: 2\nvariants:\n"
                    "  - {name: slow, source: slow.cu, entry: slow, block: [256], grid: [4]}\n"
                    "  - {name: quick, source: quick.cu, entry: quick, block: [256], grid: [4]}\n")
        t0 = time.monotonic()
        p = subprocess.run([RUNNER, "validate", y, "--compile", "--arch", "sm_90", "-j", "1"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=120,
                           env=dict(os.environ, TILELAB_CACHE_DIR=os.path.join(self.tmp, "cache")))
        out = p.stdout + p.stderr
        self.assertLess(time.monotonic() - t0, 60)
        self.assertNotEqual(p.returncode, 0, out)
        self.assertIn("c.yaml:7:5: variant slow: NVRTC ran past the compile limit of 2 s (compile_timeout_s); its "
                      "process was killed", out)
        self.assertEqual(out.count("FAILED"), 1, out)  # quick compiled, in a new helper

    def test_the_limit_is_checked(self):
        bad = os.path.join(self.tmp, "bad.yaml")
        with open(bad, "w") as f:
            f.write(YAML.replace("case_timeout_s: 2", "case_timeout_s: 0"))
        p = subprocess.run([RUNNER, "validate", bad], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn("bad.yaml:6:17: case_timeout_s:", p.stderr)
        with open(bad, "w") as f:
            f.write(YAML.replace("case_timeout_s: 2", "compile_timeout_s: -1"))
        p = subprocess.run([RUNNER, "validate", bad], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn("bad.yaml:6:20: compile_timeout_s:", p.stderr)


if __name__ == "__main__":
    unittest.main()
