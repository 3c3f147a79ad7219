"""tools/held_out.py: the tuning's candidates on another experiment's shapes, as an experiment the runner
takes; --drop leaves variants out; bad input exits 2 naming the file."""

import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "held_out.py")

TUNE = """name: tune
op: sgemm
seed: 9001          # the tuning's seed: not the held-out one
layout: {a: [row, col], b: [row, col]}
sizes:
  - {mnk: [1024]}
variants:
  # a comment between items
  - name: hopper                # tiles
    params: {BM: 64, BN: 64, BK: 16, SPLITK: [4, 8]}
  - name: skinny
    params: {SIDE: [0, 1], SMAX: 8}
  - {name: packed, params: {BK: 8, XPF: 1}}
  - cublas
reference: cublas
measure: {warmup: 2, min_reps: 5}
"""

SHAPES = """name: shapes
description: held-out shapes
op: sgemm
seed: 2426
args: {alpha: 0.75, beta: -1.25}
layout: {a: row, b: [row, col]}
sizes:
  - {m: 5164, n: 6097, k: 60}
  - {m: 3711, n: 61, k: 15815}
variants: [tuned, cublas]
reference: cublas
measure: {warmup: 3}
"""


class HeldOutTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.tune = self.write("tune.yaml", TUNE)
        self.shapes = self.write("shapes.yaml", SHAPES)

    def write(self, name, text):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def run_tool(self, *args):
        return subprocess.run([sys.executable, TOOL] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)

    def test_candidates_on_the_shapes(self):
        p = self.run_tool(self.tune, self.shapes, "--drop", "skinny")
        self.assertEqual(p.returncode, 0, p.stderr)
        out = p.stdout
        self.assertTrue(out.startswith("name: shapes_candidates\n"), out)
        # The shapes' seed, args, layouts and sizes; the tuning's variants, reference and measure.
        for line in ("seed: 2426", "args: {alpha: 0.75, beta: -1.25}", "layout: {a: row, b: [row, col]}",
                     "  - {m: 5164, n: 6097, k: 60}", "  - {m: 3711, n: 61, k: 15815}",
                     "  - name: hopper                # tiles", "    params: {BM: 64, BN: 64, BK: 16, SPLITK: [4, 8]}",
                     "  - {name: packed, params: {BK: 8, XPF: 1}}", "  - cublas", "measure: {warmup: 2, min_reps: 5}"):
            self.assertIn(line + "\n", out)
        for gone in ("skinny", "SMAX", "9001", "mnk", "variants: [tuned", "warmup: 3", "a comment between"):
            self.assertNotIn(gone, out)
        self.assertEqual(out.count("\nvariants:"), 1)

    def test_written_to_a_file(self):
        dest = os.path.join(self.tmp, "held.yaml")
        p = self.run_tool(self.tune, self.shapes, "-o", dest)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(dest) as f:
            text = f.read()
        self.assertIn("  - name: skinny\n", text)  # nothing dropped
        self.assertEqual(p.stdout, "")

    def test_bad_input(self):
        no_sizes = self.write("nosizes.yaml", "name: x\nop: sgemm\nseed: 1\n")
        no_vars = self.write("novars.yaml", "name: x\nop: sgemm\nseed: 1\nsizes: [{mnk: 64}]\n")
        flow = self.write("flow.yaml", "name: x\nop: sgemm\nvariants: [hopper, packed]\n")
        other = self.write("copy.yaml", "name: x\nop: copy\nvariants:\n  - coalesced\n")
        for args, want in (([self.tune, os.path.join(self.tmp, "none.yaml")], "none.yaml: No such file"),
                           ([self.tune, no_sizes], "nosizes.yaml: no sizes"),
                           ([no_vars, self.shapes], "novars.yaml: no variants"),
                           ([flow, self.shapes], "flow.yaml: variants: a block list"),
                           ([other, self.shapes], "of different ops"),
                           ([self.tune, self.shapes, "--drop", "hopper", "--drop", "skinny", "--drop", "packed",
                             "--drop", "cublas"], "tune.yaml: variants: nothing left")):
            p = self.run_tool(*args)
            self.assertEqual(p.returncode, 2, (args, p.stdout, p.stderr))
            self.assertIn(want, p.stderr, args)


if __name__ == "__main__":
    unittest.main()
