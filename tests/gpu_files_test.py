"""What the GPU checks share, on the host target: run_experiment writes a fresh file each time, and with
resume goes on from the file there, running only the cases it lacks (a check cut off by a time limit is
finished by the same command again); cases() reads every case with its median."""
import os
import sys
import tempfile
import unittest

import h5py

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpu_files import cases, run_experiment  # noqa: E402

RUNNER = os.path.abspath(os.path.join("runner", "runner"))

YAML = """name: files
op: sgemm
seed: 5
layout: {a: row, b: [row, col]}
sizes:
%s
variants: [host_naive, host_ikj]
reference: host
measure: {warmup: 0, min_reps: 3, max_reps: 3}
"""


class RunExperiment(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        self.yaml = os.path.join(self.tmp, "files.yaml")

    def write(self, sizes):
        with open(self.yaml, "w") as f:
            f.write(YAML % "\n".join("  - {mnk: %d}" % n for n in sizes))

    @staticmethod
    def samples(h5):
        """{case id: its raw times} of a result file."""
        with h5py.File(h5, "r") as f:
            return {k: list(g["time_ms"][()]) for k, g in f["cases"].items()}

    def test_resume_runs_only_what_the_file_lacks(self):
        self.write([16, 24])
        # Killed (SIGKILL, as a time limit's kill -9) right after its first commit: the file holds that
        # commit's cases.
        os.environ.update(TILELAB_TEST_CRASH_AT="exchanged:1", TILELAB_TEST_COMMIT_EACH="1")
        try:
            h5 = run_experiment(RUNNER, self.yaml, self.tmp)
        finally:
            del os.environ["TILELAB_TEST_CRASH_AT"], os.environ["TILELAB_TEST_COMMIT_EACH"]
        self.assertEqual(h5, os.path.join(self.tmp, "files.h5"))
        first = self.samples(h5)
        self.assertTrue(0 < len(first) < 8, len(first))
        # The same call with resume keeps what the file had, samples and all, and runs the rest.
        run_experiment(RUNNER, self.yaml, self.tmp, resume=True)
        done = self.samples(h5)
        self.assertEqual(len(done), 8)  # 2 sizes x 2 layouts of B x 2 variants
        for k, t in first.items():
            self.assertEqual(done[k], t, k)
        got = cases(h5)
        self.assertEqual(len(got), 8)
        self.assertTrue(all(c["status"] == "ok" and c["median"] > 0 for c in got), got)
        # Resume on a whole file runs nothing; without resume the file is written anew, every case run again.
        run_experiment(RUNNER, self.yaml, self.tmp, resume=True)
        self.assertEqual(self.samples(h5), done)
        run_experiment(RUNNER, self.yaml, self.tmp)
        fresh = self.samples(h5)
        self.assertEqual(set(fresh), set(done))
        self.assertNotEqual(fresh, done)

if __name__ == "__main__":
    unittest.main()
