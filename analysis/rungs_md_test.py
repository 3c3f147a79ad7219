"""rungs_md on a file the runner wrote (host target, two dtypes): one table per dtype and layout, every
size, the variants in the experiment's order with the bar last, ratios that are the file's medians,
failed cases listed; a damaged file is refused with exit 2."""
import os
import re
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tilelab_analysis.load import load  # noqa: E402

RUNNER = os.path.join("runner", "runner")
RUNGS = os.path.join("analysis", "rungs_md")
FIXTURE = os.path.join("runner", "testing", "counters_fixture")

YAML = """name: rungs
op: sgemm
seed: 3
dtype: [f32, bf16]
sizes:
  - {mnk: 24}
  - {m: 40, n: 30, k: 20}
variants: [host_ikj, host_naive]
reference: host
measure: {warmup: 0, min_reps: 3, max_reps: 3}
"""


class RungsMd(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        yaml, cls.h5 = os.path.join(cls.tmp, "rungs.yaml"), os.path.join(cls.tmp, "rungs.h5")
        with open(yaml, "w") as f:
            f.write(YAML)
        p = subprocess.run([RUNNER, "run", yaml, "-o", cls.h5], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True)
        assert p.returncode == 0, p.stdout

    def test_tables_follow_the_file(self):
        p = subprocess.run([RUNGS, self.h5, "--bar", "host_naive"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        out = p.stdout
        self.assertIn("### f32, a=row,b=row", out)
        self.assertIn("### bf16, a=row,b=row", out)
        df = load(self.h5)
        rows = re.findall(r"^\| (m=[^|]+) \| (\w+) \| [^|]* \| ([0-9.]+) \| [0-9.]+ \| ([0-9.]+|-) \|", out, re.M)
        self.assertEqual(len(rows), 8)  # 2 dtypes x 2 sizes x 2 variants
        # Within a size, the rung first and the bar last; its ratio is the bar's median over its own.
        for i in range(0, 8, 2):
            self.assertEqual((rows[i][1], rows[i + 1][1]), ("host_ikj", "host_naive"))
            self.assertEqual(rows[i + 1][3], "1.000")
            size = rows[i][0]
            dtype = "f32" if i < 4 else "bf16"
            med = lambda v: float(df[(df["sizes"] == size) & (df["variant"] == v) & (df["dtype"] == dtype)]["median_ms"].iloc[0])
            self.assertAlmostEqual(med("host_naive") / med("host_ikj"), float(rows[i][3]), delta=0.0006)
        for size, variant, ms, _ in rows:
            want = df[(df["sizes"] == size) & (df["variant"] == variant)]["median_ms"]
            self.assertTrue(any(abs(float(ms) - w) < 1e-4 for w in want), (size, variant, ms))
        # Sizes from small to large.
        self.assertLess(out.index("m=24,n=24,k=24"), out.index("m=40,n=30,k=20"))
        self.assertIn("8 cases, 8 verified and timed, 0 skipped", out)

    def test_bank_conflicts_column_when_counted(self):
        # counters_fixture's model: shared loads m n k / 64, 2 conflicts per load for vectorized, 0.02 else.
        h5 = os.path.join(self.tmp, "counted.h5")
        p = subprocess.run([FIXTURE, h5, os.path.join("analysis", "testdata", "counters_sgemm.yaml")],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.assertEqual(p.returncode, 0, p.stdout)
        p = subprocess.run([RUNGS, h5], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("| smem bank conflicts |", p.stdout)
        for n in (1024, 2048):
            loads = n ** 3 / 64
            for variant, per in (("vectorized", 2), ("bank_padding", 0.02)):
                m = re.search(r"^\| m=%d,n=%d,k=%d \| %s \|.* ([0-9.e+]+) \|$" % (n, n, n, variant), p.stdout, re.M)
                self.assertIsNotNone(m, (n, variant))
                self.assertAlmostEqual(float(m.group(1)) / (per * loads), 1.0, places=2)
        # A file without counters has no such column (the host run above).
        p = subprocess.run([RUNGS, self.h5, "--bar", "host_naive"], stdout=subprocess.PIPE, text=True)
        self.assertNotIn("bank conflicts", p.stdout)

    def test_damaged_file_is_refused(self):
        bad = os.path.join(self.tmp, "bad.h5")
        with open(bad, "wb") as f:
            f.write(b"not hdf5")
        p = subprocess.run([RUNGS, bad], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn("rungs_md: ", p.stderr)


if __name__ == "__main__":
    unittest.main()
