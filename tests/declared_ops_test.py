"""Ops declared in the experiment, through the runner's command line and without a GPU: the example folders of
experiments/ops/ validate and compile, and `validate` prints the signature their kernels must have; a bad
declaration, a bad library mapping, a bad data file or a count the sizes make bad is one clear error at file:line:column with
exit code 2 and no result file; a kernel whose signature does not match the declaration stops the compile."""
import glob
import os
import shutil
import subprocess
import tempfile
import unittest

RUNNER = os.path.abspath(os.path.join("runner", "runner"))

OP = """name: e
op:
  name: mine
  axes: [n]
  buffers:
    x: {type: f32, count: n}
    y: {type: f32, count: n, out: true}
  signature: [x, y, n]
  reference: k
seed: 1
sizes: {n: 1000}
variants:
  - {name: k, source: k.cu, block: [256], grid: ["ceil_div(n, 256)"]}
"""
KERNEL = ('extern "C" __global__ void k(const float *x, float *y, long long n)\n'
          '{\n    long long i = blockIdx.x * 256ll + threadIdx.x;\n    if (i < n) y[i] = x[i];\n}\n')


def run(*args, env=None):
    return subprocess.run([RUNNER, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


class DeclaredOps(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        self.env = dict(os.environ, TILELAB_CACHE_DIR=os.path.join(self.tmp, "cache"))

    def folder(self, yaml, kernel=KERNEL):
        d = tempfile.mkdtemp(dir=self.tmp)
        with open(os.path.join(d, "k.cu"), "w") as f:
            f.write(kernel)
        with open(os.path.join(d, "e.yaml"), "w") as f:
            f.write(yaml)
        return os.path.join(d, "e.yaml")

    def test_examples_validate_and_compile(self):
        # The runfiles' files are links out of their folder, which the runner refuses: copy them.
        ops = os.path.join(self.tmp, "ops")
        shutil.copytree(os.path.join("experiments", "ops"), ops, symlinks=False)
        files = sorted(glob.glob(os.path.join(ops, "*", "*.yaml")))
        self.assertGreaterEqual(len(files), 5)
        p = run("validate", "--compile", *files, env=self.env)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertNotIn("FAILED", p.stderr)
        self.assertIn('extern "C" __global__ void NAME(const float *x, float *y, long long rows, long long cols)', p.stdout)
        self.assertIn("split: kernels/split.cu (kernels stats, then normalize)", p.stdout)
        self.assertIn("cub: library cub.inclusive_sum (in=x, out=y, n=n)", p.stdout)
        self.assertIn("w        taps elements of float, in, file lowpass.npy", p.stdout)  # conv1d's taps

    def check_bad(self, yaml, want, compile_error=False, kernel=KERNEL):
        path = self.folder(yaml, kernel)
        out = os.path.join(os.path.dirname(path), "out.h5")
        p = run("validate", *(["--compile"] if compile_error else []), path, env=self.env)
        self.assertEqual(p.returncode, 2, "%s\n%s" % (want, p.stdout + p.stderr))
        self.assertIn(want, p.stderr)
        p = run("run", path, "-o", out, env=self.env)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertFalse(os.path.exists(out), "a result file after bad input")

    def test_bad_declarations(self):
        rows = [
            (OP.replace("signature: [x, y, n]", "signature: [x, y, m]"),
             "e.yaml:8:21: op.signature[2]: 'm' is not a buffer, axis or scalar of the op"),
            (OP.replace("type: f32, count: n}", "type: f31, count: n}"),
             "e.yaml:6:15: op.buffers.x.type: 'f31' is not an element type"),
            (OP.replace("reference: k", "reference: j"),
             "e.yaml:9:14: op.reference: 'j' is not a variant of this experiment (variants: k)"),
            (OP.replace("x: {type: f32, count: n}", "x: {type: u8, count: n, init: {ints: {lo: 0, hi: 256}}}"),
             "op.buffers.x.init.ints.hi: 256 does not fit u8"),
            (OP.replace("count: n, out", "count: \"n - 1000\", out"),
             "e.yaml:7:27: op.buffers.y.count: 'n - 1000' is 0 elements at n=1000"),
            (OP + "  - {name: c, library: cub.histogram_even, args: {samples: x, histogram: y, n: n, bins: 4, "
                  "lower: 0, upper: 4}}\n", "cub.histogram_even's histogram is u32, and 'y' is f32"),
            (OP + "  - {name: c, library: memcpy, args: {src: x, dst: y, n: \"n + 1\"}}\n",
             "c: memcpy: src (x) holds 1000 elements, the call reaches 1001, at n=1000"),
            (OP.replace("x: {type: f32, count: n}", "x: {type: f32, count: n, init: {file: ../x.npy}}"),
             "e.yaml:6:43: op.buffers.x.init.file.path: ../x.npy: it leaves the experiment's folder"),
            (OP.replace("x: {type: f32, count: n}", "x: {type: f32, count: n, init: {file: k.cu}}"),
             "'k.cu': a data file is a .npy, or an HDF5 file (.h5, .hdf5) with `dataset:`"),
        ]
        for yaml, want in rows:
            with self.subTest(want=want):
                self.check_bad(yaml, want)

    def test_signature_against_the_declaration(self):
        wrong = KERNEL.replace("float *y", "double *y").replace("y[i] = x[i]", "y[i] = (double)x[i]")
        self.check_bad(OP, "argument 2 of k points to elements of 4 bytes: float * y", compile_error=True, kernel=wrong)
        wrong = KERNEL.replace("long long n", "int n")
        self.check_bad(OP, "argument 3 of k must be long long n (a 64-bit integer)", compile_error=True, kernel=wrong)


if __name__ == "__main__":
    unittest.main()
