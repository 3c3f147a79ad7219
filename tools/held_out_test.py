"""tools/held_out.py: the tuning's candidates on another experiment's shapes, as an experiment the runner
takes; --drop leaves variants out, --keep keeps only some, --anchor adds the dispatching variant at
trials 1; bad input exits 2 naming the file."""

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

    def test_new_candidates_against_the_anchor(self):
        # The tuning's own shapes, only the variants kept (every item of each), the anchor at trials 1.
        p = self.run_tool(self.tune, self.tune, "--keep", "packed", "--keep", "cublas", "--anchor", "tuned")
        self.assertEqual(p.returncode, 0, p.stderr)
        out = p.stdout
        self.assertTrue(out.startswith("name: tune_cublas_packed\n"), out)
        for line in ("seed: 9001          # the tuning's seed: not the held-out one", "  - {mnk: [1024]}",
                     "  - {name: packed, params: {BK: 8, XPF: 1}}", "  - cublas",
                     "  - {name: tuned, trials: 1}", "measure: {warmup: 2, min_reps: 5}"):
            self.assertIn(line, out)
        for gone in ("hopper", "skinny", "SPLITK"):
            self.assertNotIn(gone, out)
        self.assertLess(out.index("  - cublas"), out.index("  - {name: tuned, trials: 1}"))
        # The library as the anchor: it runs already, so nothing is added, and the description says so.
        p = self.run_tool(self.tune, self.tune, "--keep", "packed", "--keep", "cublas", "--anchor", "cublas")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertNotIn("trials: 1", p.stdout)
        self.assertEqual(p.stdout.count("  - cublas\n"), 1, p.stdout)
        self.assertIn("  against cublas, which it runs already (tools/held_out.py)", p.stdout)
        self.assertIn("--add-to --anchor cublas.", p.stdout)
        # NAME:TEXT keeps the items of NAME whose lines have TEXT.
        p = self.run_tool(self.tune, self.tune, "--keep", "hopper:SPLITK", "--keep", "cublas", "--anchor", "tuned")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("    params: {BM: 64, BN: 64, BK: 16, SPLITK: [4, 8]}\n", p.stdout)
        self.assertTrue(p.stdout.startswith("name: tune_cublas_hopper\n"), p.stdout)
        self.assertNotIn("packed", p.stdout)
        p = self.run_tool(self.tune, self.tune, "--keep", "hopper:KMAJ")
        self.assertEqual(p.returncode, 2)
        self.assertIn("no item of hopper:KMAJ (--keep)", p.stderr)
        p = self.run_tool(self.tune, self.tune, "--keep", "wgmma")
        self.assertEqual(p.returncode, 2)
        self.assertIn("tune.yaml: variants: no item of wgmma (--keep)", p.stderr)
        p = self.run_tool(self.tune, self.tune, "--keep", "packed", "--drop", "hopper")
        self.assertEqual(p.returncode, 2)
        self.assertIn("--keep and --drop do not go together", p.stderr)

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
