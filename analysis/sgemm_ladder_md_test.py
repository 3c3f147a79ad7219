"""sgemm_ladder_md on a file the runner wrote on the host: its layouts table takes variants past the ladder
(tf32x3 in sgemm_layouts.yaml; here the host rungs) after the ladder's, each layout's rows together. The
GPU check writes docs with it, so a variant it does not list must not stop it."""
import os
import re
import subprocess
import sys
import tempfile
import unittest

RUNNER = os.path.join("runner", "runner")
LADDER_MD = os.path.join("analysis", "sgemm_ladder_md")

YAML = """name: layouts
op: sgemm
seed: 5
layout: {a: [row, col], b: [row, col]}
sizes: [{mnk: 20}]
variants: [host_naive, host_ikj]
reference: host
measure: {warmup: 0, min_reps: 3, max_reps: 3}
"""


class LadderMd(unittest.TestCase):
    def test_layouts_table_takes_rungs_past_the_ladder(self):
        tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        yaml, h5, md = (os.path.join(tmp, n) for n in ("layouts.yaml", "layouts.h5", "out.md"))
        with open(yaml, "w") as f:
            f.write(YAML)
        p = subprocess.run([RUNNER, "run", yaml, "-o", h5], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.assertEqual(p.returncode, 0, p.stdout)
        p = subprocess.run([LADDER_MD, h5, "--layouts", h5, "-o", md], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(md) as f:
            text = f.read()
        section = text[text.index("## Layouts"):]
        rows = re.findall(r"^\| (host_\w+) \| (a=\w+,b=\w+) \| [0-9.]+ \|", section, re.M)
        want = [(v, l) for l in ("a=col,b=col", "a=col,b=row", "a=row,b=col", "a=row,b=row")
                for v in ("host_ikj", "host_naive")]
        self.assertEqual(rows, want)


if __name__ == "__main__":
    unittest.main()
