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
            # Scalars and the work model are evaluated per problem as counts are: overflow, a division by zero, a
            # negative figure and an integer past its type are errors at the expression.
            (OP.replace("  signature: [x, y, n]", "  scalars:\n    s: {type: i32, value: \"n*n*n*n\"}\n"
                        "  signature: [x, y, n, s]"),
             "e.yaml:9:27: op.scalars.s.value: 'n*n*n*n' is 1000000000000 at n=1000: past what i32 holds"),
            (OP.replace("  signature: [x, y, n]", "  scalars:\n    s: {type: i32, value: 1099511627776}\n"
                        "  signature: [x, y, n, s]"), "'1099511627776' is 1099511627776 at n=1000: past what i32 holds"),
            (OP.replace("  reference: k", "  work: {bytes: \"8*n/(n-1000)\"}\n  reference: k"),
             "e.yaml:9:17: op.work.bytes: '8*n/(n-1000)': division by zero"),
            (OP.replace("  reference: k", "  work: {flop: \"n*n*n*n*n*n*n\"}\n  reference: k"),
             "op.work.flop: 'n*n*n*n*n*n*n': 64-bit overflow"),
            (OP.replace("  reference: k", "  work: {bytes: \"0 - n\"}\n  reference: k"),
             "op.work.bytes: '0 - n' is -1000 at n=1000: a count of bytes is not negative"),
            (OP.replace("  signature: [x, y, n]", "  scalars:\n    s: {type: f32, value: 2}\n  signature: [x, y, n]"),
             "op.signature: scalar 's' is not in it: no kernel could read it"),
            (OP.replace('grid: ["ceil_div(n, 256)"]', 'grid: ["%s"]' % "+".join(["n"] * 300)),
             "e.yaml:13:50: variants[0].grid[0]: an expression of 599 characters: at most 512"),
            (OP.replace("x: {type: f32, count: n}", "x: {type: f32, count: n, tolerance: {rtol: 0.1}}"),
             "tolerance: belongs to a buffer that is checked (out or inout)"),
            (OP.replace("y: {type: f32, count: n, out: true}", "y: {type: i32, count: n, out: true, tolerance: {rtol: 0.1}}"),
             "tolerance: an integer buffer is checked exactly (i32)"),
        ]
        for yaml, want in rows:
            with self.subTest(want=want):
                self.check_bad(yaml, want)

    def test_params_named_like_the_compilers_own(self):
        # Params are #define lines before the sources, so NVRTC's own header never sees them: T, N and K compile
        # (as -D options they broke __nv_nvrtc_builtin_header.h). C++'s and CUDA's names, and the op's, are errors.
        kernel = ("#ifndef T\n#define T 1\n#endif\n" + KERNEL.replace("y[i] = x[i]", "y[i] = (T + N + K) * x[i]"))
        yaml = OP.replace("block: [256]", "params: {T: [16, 32], N: 2, K: 3}, block: [256]")
        p = run("validate", "--compile", self.folder(yaml, kernel), env=self.env)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("2 cases", p.stdout)
        for name, why in (("int", "C++ or CUDA gives that name a meaning of its own"),
                          ("threadIdx", "C++ or CUDA gives that name a meaning of its own"),
                          ("size_t", "C++ or CUDA gives that name a meaning of its own"),
                          ("x", "a buffer of the op has that name"), ("n", "an axis of the op has that name")):
            with self.subTest(param=name):
                self.check_bad(OP.replace("block: [256]", "params: {%s: [16, 32]}, block: [256]" % name),
                               "e.yaml:13:%d: variants[0].params: '%s' cannot be a param: %s"
                               % (40 + len(name), name, why))

    def test_a_compile_error_is_whole_lines_and_names_the_case(self):
        # A log longer than an error message holds is cut after a whole line, with the count of lines left out;
        # the failing case's params are named.
        body = " ".join("undefined_%d = 1;" % i for i in range(80))
        yaml = OP.replace("block: [256]", "params: {BM: 64}, block: [256]")
        p = run("validate", "--compile", self.folder(yaml, KERNEL.replace("y[i] = x[i];", body)), env=self.env)
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertIn("FAILED k BM=64: ", p.stderr)
        self.assertRegex(p.stderr, r"\n\[\d+ more lines of NVRTC's log\]\n")

    def test_hdf5_inputs_hold_their_own_bytes(self):
        # An HDF5 input is read only when its elements are in that file and bounded: links, virtual datasets and
        # external storage that would read another file, unusual filters, huge chunks and chunks never written are
        # refused with the dataset and what it is, before any element is read.
        import h5py
        import numpy as np
        outside = os.path.join(self.tmp, "outside.h5")
        with h5py.File(outside, "w") as f:
            f.create_dataset("d", data=np.arange(1000, dtype=np.float32))
            f.create_dataset("g/d", data=np.arange(1000, dtype=np.float32))
        raw = os.path.join(self.tmp, "raw.bin")
        np.arange(1000, dtype=np.float32).tofile(raw)

        def vds(f):
            lay = h5py.VirtualLayout(shape=(1000,), dtype=np.float32)
            lay[:] = h5py.VirtualSource(outside, "d", shape=(1000,))
            f.create_virtual_dataset("d", lay)
        rows = [
            (lambda f: f.__setitem__("d", h5py.ExternalLink(outside, "/d")), "d",
             "dataset 'd' is reached through an external link (in /) to %s:/d" % outside),
            (lambda f: f.__setitem__("g", h5py.ExternalLink(outside, "/g")), "g/d", "is reached through an external link"),
            (vds, "d", "dataset 'd' is a virtual dataset"),
            (lambda f: f.create_dataset("d", shape=(1000,), dtype=np.float32, external=[(raw, 0, 4000)]), "d",
             "dataset 'd' keeps its elements in an external file ('%s')" % raw),
            (lambda f: f.create_dataset("d", data=np.arange(1000, dtype=np.float32), maxshape=(None,),
                                        chunks=(1 << 28,), compression="gzip"), "d",
             "dataset 'd' is stored in chunks of 1073741824 bytes, more than its 4000 bytes of elements"),
            (lambda f: f.create_dataset("d", shape=(1 << 40,), dtype=np.float32, chunks=(1 << 20,)), "d",
             "dataset 'd' holds 1099511627776 elements (shape (1099511627776,)) in 1048576 chunks, but none of them were "
             "ever written"),
            (lambda f: f.create_dataset("d", shape=(1000,), dtype=np.float32, chunks=(100,)).__setitem__(
                slice(0, 100), np.arange(100, dtype=np.float32)), "d", "in 10 chunks, but only some of them were ever written"),
            (lambda f: f.create_dataset("d", shape=(1000,), dtype=np.float32), "d",
             "but its file stores 0 of their 4000 bytes (never written)"),
        ]
        for make, dataset, want in rows:
            with self.subTest(want=want):
                yaml = OP.replace("x: {type: f32, count: n}", "x: {type: f32, count: n, init: {file: {path: w.h5, "
                                  "dataset: %s}}}" % dataset)
                path = self.folder(yaml)
                with h5py.File(os.path.join(os.path.dirname(path), "w.h5"), "w") as f:
                    make(f)
                out = os.path.join(os.path.dirname(path), "out.h5")
                p = run("validate", path, env=self.env)
                self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
                self.assertIn("op.buffers.x.init.file.dataset: w.h5: ", p.stderr)
                self.assertIn(want, p.stderr)
                self.assertEqual(run("run", path, "-o", out, env=self.env).returncode, 2)
        # What stays readable: a soft link inside the file, a user block before the HDF5 signature, gzip in one
        # chunk and in several.
        for make, dataset, block in ((lambda f: (f.create_dataset("real", data=np.arange(1000, dtype=np.float32)),
                                                 f.__setitem__("d", h5py.SoftLink("/real"))), "d", 0),
                                     (lambda f: f.create_dataset("d", data=np.arange(1000, dtype=np.float32),
                                                                 compression="gzip"), "d", 0),
                                     (lambda f: f.create_dataset("d", data=np.arange(1000, dtype=np.float32), chunks=(64,),
                                                                 compression="gzip", shuffle=True, fletcher32=True), "d", 0),
                                     (lambda f: f.create_dataset("d", data=np.arange(1000, dtype=np.float32)), "d", 512)):
            with self.subTest(block=block):
                yaml = OP.replace("x: {type: f32, count: n}", "x: {type: f32, count: n, init: {file: {path: w.h5, "
                                  "dataset: %s}}}" % dataset)
                path = self.folder(yaml)
                with h5py.File(os.path.join(os.path.dirname(path), "w.h5"), "w", userblock_size=block or None) as f:
                    make(f)
                p = run("validate", path, env=self.env)
                self.assertEqual(p.returncode, 0, p.stdout + p.stderr)

    def test_npy_with_a_negative_dimension(self):
        yaml = OP.replace("x: {type: f32, count: n}", "x: {type: f32, count: n, init: {file: x.npy}}")
        path = self.folder(yaml)
        header = "{'descr': '<f4', 'fortran_order': False, 'shape': (-1024,), }"
        header += " " * (118 - len(header)) + "\n"
        with open(os.path.join(os.path.dirname(path), "x.npy"), "wb") as f:
            f.write(b"\x93NUMPY\x01\x00" + bytes([len(header), 0]) + header.encode() + b"\0" * 4096)
        p = run("validate", path, env=self.env)
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertIn("x.npy: its .npy shape is not a tuple of sizes", p.stderr)

    def test_signature_against_the_declaration(self):
        wrong = KERNEL.replace("float *y", "double *y").replace("y[i] = x[i]", "y[i] = (double)x[i]")
        self.check_bad(OP, "argument 2 of k points to elements of 4 bytes: float * y", compile_error=True, kernel=wrong)
        wrong = KERNEL.replace("long long n", "int n")
        self.check_bad(OP, "argument 3 of k must be long long n (a 64-bit integer)", compile_error=True, kernel=wrong)


if __name__ == "__main__":
    unittest.main()
