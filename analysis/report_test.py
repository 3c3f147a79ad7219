"""The report's and summary's answers, on files the runner's own writer made with modelled counters
(runner/testing/counters_fixture.c; CI has no GPU) and on a host-target run: the verdict rules (a strided copy is
told its sector efficiency), each case under the peak of its math (TF32 tensor for tf32, a third of it
for tf32x3), an outlier flagged and counted, `pip install ./analysis` giving load() with numeric size
columns, and the HTML report rendered by a real browser (Debian's chromium, headless): every image
decodes, the verdict table comes first, no figure is empty (on fixtures, a host run, and the H200 sample files
under analysis/sample)."""
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

import matplotlib

matplotlib.use("Agg")
import matplotlib.image as mpimg  # noqa: E402
import numpy as np  # noqa: E402

from tilelab_analysis import load, verdict  # noqa: E402
from shards import load_tests  # noqa: E402,F401 (unittest's protocol: this shard's tests)
from tilelab_analysis.peaks import FLOP_PER_CLOCK  # noqa: E402

FIXTURE = os.path.join("runner", "testing", "counters_fixture")
RUNNER = os.path.join("runner", "runner")
TOOL = {n: os.path.join("analysis", n) for n in ("summary", "report")}
DATA = os.path.join("analysis", "testdata")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

TC = """name: tc_fixture
op: sgemm
seed: 5
dtype: [f32, tf32]
sizes:
  - {mnk: [1024, 2048]}
counters: [smem, roofline, occupancy]
variants:
  - vectorized
  - mma_sync
  - tf32x3
  - cublas
"""
HOST = """name: report_host
op: sgemm
seed: 3
layout: {a: [row, col], b: row}
sizes: [{mnk: [24, 40]}, {m: 48, n: 80, k: 33}]
variants: [host_naive, host_ikj]
reference: host
measure: {warmup: 1, min_reps: 8, max_reps: 8}
"""


def sh(*cmd, **kw):
    return subprocess.run(list(cmd), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


class Report(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        cls.copy = os.path.join(cls.tmp, "copy.h5")
        cls.tc = os.path.join(cls.tmp, "tc.h5")
        cls.host = os.path.join(cls.tmp, "host.h5")
        tc_yaml = os.path.join(cls.tmp, "tc.yaml")
        host_yaml = os.path.join(cls.tmp, "host.yaml")
        for path, body in ((tc_yaml, TC), (host_yaml, HOST)):
            with open(path, "w") as f:
                f.write(body)
        for cmd in ((FIXTURE, cls.copy, os.path.join(DATA, "counters_copy.yaml"), "--outlier"),
                    (FIXTURE, cls.tc, tc_yaml), (RUNNER, "run", host_yaml, "-o", cls.host, "-q")):
            p = sh(*cmd)
            assert p.returncode == 0, p.stderr

    def test_a_strided_copy_is_told_its_sector_efficiency(self):
        df = load(self.copy)
        for _, r in df.iterrows():
            s = int(re.search(r"S=(\d+)", r["params"]).group(1)) if r["variant"] == "strided" else 1
            said = verdict.why(r)
            if s >= 4:  # 1/min(S, 8) <= 25%: under the rule's 50%
                self.assertIn("%.3g%% load sector efficiency" % (100.0 / min(s, 8)), said)
            else:
                self.assertNotIn("sector efficiency", said)
        t = verdict.table(df)
        self.assertEqual(len(t), 1)  # one problem
        self.assertIn(t["fastest"][0], ("coalesced", "strided", "offset"))
        self.assertEqual(t["verified"][0], "%d of %d" % (len(df), len(df)))
        # A case without counters gets no reason at all; the rules are documented where users read.
        self.assertEqual(verdict.why({"counters": {}}), "")
        with open(os.path.join("analysis", "README.md")) as f:
            readme = f.read()
        for name, limit, _, _ in verdict.RULES:
            self.assertIn(limit, readme, name)

    def test_each_case_is_under_the_peak_of_its_math(self):
        df = load(self.tc)
        sm90 = FLOP_PER_CLOCK["9.0"]
        fp32 = 50000.0  # the fixture's /env
        want = {"fp32": fp32, "tf32": fp32 * sm90["tf32"] / sm90["fp32"],
                "tf32x3": fp32 * sm90["tf32"] / sm90["fp32"] / 3}
        seen = set()
        for _, r in df.iterrows():
            math = "tf32x3" if r["variant"] == "tf32x3" else ("tf32" if r["dtype"] == "tf32" else "fp32")
            self.assertEqual(r["math"], math, (r["variant"], r["dtype"]))
            self.assertAlmostEqual(r["peak"], want[math], places=6)
            self.assertAlmostEqual(r["pct_peak"], 100 * r["gflops"] / want[math], places=6)
            seen.add(math)
        self.assertEqual(seen, {"fp32", "tf32", "tf32x3"})
        # The TF32 problems' verdicts name the TF32 peak; summary prints which peak in each row.
        t = verdict.table(df)
        self.assertEqual(set(t[t["dtype"] == "tf32"]["peak_name"]), {"TF32 tensor"})
        self.assertEqual(set(t[t["dtype"] == "f32"]["peak_name"]) - {"FP32 SIMT", "TF32 tensor / 3"}, set())
        p = sh(TOOL["summary"], self.tc)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(p.stdout.startswith("Verdicts"), p.stdout[:200])
        self.assertIn("TF32 tensor / 3", p.stdout)
        # An FP32 rule never speaks for a tensor-core case (its FFMA count is not its work).
        for _, r in df[df["math"] != "fp32"].iterrows():
            self.assertNotIn("FP32-bound", verdict.why(r))

    def test_an_outlier_is_flagged_and_counted(self):
        df = load(self.copy)
        self.assertEqual(int(df["outliers"].iloc[0]), 1)  # the fixture's first case: one sample at 20 x
        self.assertEqual(int(df["outliers"].iloc[1:].sum()), 0)
        p = sh(TOOL["summary"], self.copy)
        self.assertIn("1 sample(s) in 1 case(s) lie past 3 IQRs", p.stdout)
        base = os.path.join(self.tmp, "copy")
        self.assertEqual(sh(TOOL["report"], self.copy, "-o", base).returncode, 0)
        with open(base + ".report.html") as f:
            page = f.read()
        self.assertIn("1 sample(s) past 3 IQRs", page)

    def test_pip_install_gives_load_with_numeric_sizes(self):
        src = os.path.join(self.tmp, "src")
        shutil.copytree("analysis", src, ignore=shutil.ignore_patterns("*_test.py", "build", "*.egg-info"))
        target = os.path.join(self.tmp, "site")
        p = sh(sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--no-index",
               "--target", target, src, env=dict(os.environ, PIP_NO_CACHE_DIR="1", HOME=self.tmp))
        self.assertEqual(p.returncode, 0, p.stderr)
        code = ("import tilelab_analysis as t; df = t.load(%r); "
                "print(t.__file__); print(df['m'].dtype, df['n'].dtype, df['k'].dtype); "
                "print(sorted(set(df['m']))); print('dispatch' in df, 'pct_peak' in df, 'noise_pct' in df)" % self.host)
        p = sh(sys.executable, "-c", code, env=dict(os.environ, PYTHONPATH=target), cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = p.stdout.splitlines()
        self.assertTrue(lines[0].startswith(target), lines[0])  # the installed copy, not the tree's
        self.assertEqual(lines[1], "float64 float64 float64")
        self.assertEqual(lines[2], "[24.0, 40.0, 48.0]")
        self.assertEqual(lines[3], "True True True")
        p = sh(os.path.join(target, "bin", "tilelab-summary"), self.host, env=dict(os.environ, PYTHONPATH=target))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("Verdicts", p.stdout)

    def render_in_a_browser(self, name, files):
        self.assertIsNotNone(CHROMIUM, "chromium is missing (tools/setup.sh installs it)")
        base = os.path.join(self.tmp, "browser-" + name)
        p = sh(TOOL["report"], *files, "-o", base)
        self.assertEqual(p.returncode, 0, p.stderr)
        n = int(re.search(r"\((\d+) figures\)", p.stdout).group(1))
        self.assertGreaterEqual(n, 3, p.stdout)
        home = os.path.join(self.tmp, "home-" + name)
        os.makedirs(home)
        p = sh(CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
               "--user-data-dir=" + os.path.join(home, "profile"), "--virtual-time-budget=5000",
               "--dump-dom", "file://" + base + ".report.html", env=dict(os.environ, HOME=home), timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr[-2000:])
        dom = p.stdout
        self.assertIn('data-images="%d/%d"' % (n, n), dom, re.findall(r'data-images="[^"]*"', dom))
        first = dom.index("<h2>")
        self.assertEqual(dom[first:first + len("<h2>Verdicts</h2>")], "<h2>Verdicts</h2>")
        self.assertIn('class="t v sortable"', dom)
        self.assertNotIn("Nothing to draw", dom)
        # No figure is empty: each has marks of more than one colour beyond its frame.
        for png in sorted(os.listdir(base + ".report_files")):
            img = mpimg.imread(os.path.join(base + ".report_files", png))
            colours = np.unique((img[..., :3] * 255).astype(np.uint8).reshape(-1, 3), axis=0)
            self.assertGreater(len(colours), 8, png)

    def test_the_report_of_counters_renders_in_a_browser(self):
        self.render_in_a_browser("counters", [self.copy, self.tc])

    def test_the_report_of_a_host_run_renders_in_a_browser(self):
        self.render_in_a_browser("host", [self.host])

    def test_the_report_of_the_samples_renders_in_a_browser(self):
        # The sample files measured on an H200 (analysis/sample), as a newcomer renders them first.
        self.render_in_a_browser("sample", [os.path.join("analysis", "sample", n) for n in ("sgemm.h5",
                                                                                            "copy_counters.h5")])

if __name__ == "__main__":
    unittest.main()
