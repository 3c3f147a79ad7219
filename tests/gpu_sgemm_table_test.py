"""The SGEMM check's choice of table, on the host: the table the runner carries for a GPU is found by the
device line of its header, and the experiments that run `tuned` are copied to name it (the runner takes
the copies, and their `tuned` cases run rows of that table); the others run as they are."""
import os
import re
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpu_sgemm_check import carried_table, with_table  # noqa: E402

RUNNER = os.path.abspath(os.path.join("runner", "runner"))
ROOT = os.getcwd()


class TableChoice(unittest.TestCase):
    def test_the_table_of_the_gpu_by_its_header(self):
        self.assertEqual(carried_table(ROOT, "NVIDIA H200"), "tilelab:sgemm/tuned_h200.table")
        self.assertEqual(carried_table(ROOT, "NVIDIA H100 80GB HBM3"), "tilelab:sgemm/tuned_h100.table")
        self.assertIsNone(carried_table(ROOT, "NVIDIA H100"))  # a name, not a prefix
        self.assertIsNone(carried_table(ROOT, "NVIDIA B200"))

    def test_experiments_with_tuned_run_the_table_from_copies(self):
        out = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        table = "tilelab:sgemm/tuned_h200.table"
        for name in ("sgemm_odd", "sgemm_shapes", "sgemm_random"):
            yaml = os.path.join(ROOT, "experiments", name + ".yaml")
            copy = with_table(yaml, table, out)
            self.assertEqual(copy, os.path.join(out, "yaml", name + ".yaml"))
            p = subprocess.run([RUNNER, "validate", copy, "--picks"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("tuned: table kernels/sgemm/tuned_h200.table", p.stdout)
            picks = [l for l in p.stdout.splitlines() if re.match(r"    m=\d+", l) and "skipped" not in l]
            self.assertTrue(picks, p.stdout[:2000])
            for line in picks:  # every pick a row of the H200 table
                self.assertIn("(kernels/sgemm/tuned_h200.table:", line)
            with open(yaml) as f, open(copy) as g:  # all else as it was: only the lines of `tuned` changed
                was, now = f.read().splitlines(), g.read().splitlines()
            self.assertEqual(len(was), len(now))
            changed = [(a, b) for a, b in zip(was, now) if a != b]
            self.assertTrue(changed)
            for a, b in changed:
                self.assertEqual(b, a.replace("tuned", '{name: tuned, table: "%s"}' % table, 1))
        ladder = os.path.join(ROOT, "experiments", "sgemm_ladder.yaml")
        self.assertEqual(with_table(ladder, table, out), ladder)  # no tuned: run as it is


if __name__ == "__main__":
    unittest.main()
