"""Kernels of one's own, through the runner's command line and without a GPU: `list` shows the signature
a kernel must have; the example folders validate and compile; every bad input (a bad name, expression,
path, link, source, include, entry, signature or compile) is one clear error with exit code 2 and no
result file; `submit` carries the experiment's folder; `extract` refuses bad arguments."""
import os
import shutil
import stat
import subprocess
import tempfile
import unittest

RUNNER = os.path.abspath(os.path.join("runner", "runner"))
EXAMPLES = ("user_sgemm", "user_copy")

OK_COPY = ('extern "C" __global__ void k(const float *x, float *y, long long n)\n'
           '{\n    long long i = blockIdx.x * 256ll + threadIdx.x;\n    if (i < n) y[i] = x[i];\n}\n')


def run(*args, cwd=None, env=None):
    return subprocess.run([RUNNER, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd,
                          env=env)


class UserKernels(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        self.env = dict(os.environ, TILELAB_CACHE_DIR=os.path.join(self.tmp, "cache"))
        # The runfiles' files are links out of their folder, which the runner refuses: copy them.
        for name in EXAMPLES:
            shutil.copytree(os.path.join("experiments", name), os.path.join(self.tmp, name), symlinks=False)

    def example(self, name):
        return os.path.join(self.tmp, name, name + ".yaml")

    def folder(self, kernels, variant, op="copy", sizes="{n: 1000}"):
        """An experiment folder with the given kernel files and one declared variant."""
        d = tempfile.mkdtemp(dir=self.tmp)
        for rel, text in kernels.items():
            os.makedirs(os.path.dirname(os.path.join(d, rel)) or d, exist_ok=True)
            with open(os.path.join(d, rel), "w") as f:
                f.write(text)
        yaml = os.path.join(d, "e.yaml")
        with open(yaml, "w") as f:
            f.write("name: e\nop: %s\nseed: 1\nsizes: %s\nvariants:\n%s" % (op, sizes, variant))
        return yaml

    def test_list_prints_each_ops_kernel_signature(self):
        p = run("list")
        self.assertEqual(p.returncode, 0, p.stderr)
        for sig in ('void NAME(int M, int N, int K, float alpha, const float *A, const float *B, float beta, float *C)',
                    'void NAME(const float *x, float *y, long long n)',
                    'void NAME(const float *x, long long n, float *partial, float *out)',
                    'void NAME(const float *x, float *y, int m, int n)'):
            self.assertIn('extern "C" __global__ ' + sig, p.stdout)
        self.assertIn("A_COL = 1 column-major", p.stdout)

    def test_examples_validate_and_compile(self):
        p = run("validate", "--compile", *[self.example(n) for n in EXAMPLES], env=self.env)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("my_tiled: kernels/my_tiled.cu (entry my_tiled_sgemm), 2 files: kernels/my_tiled.cu "
                      "kernels/tile_load.cuh", p.stdout)
        self.assertIn("are decided on the device", p.stdout)  # user_copy's grid names sms
        self.assertNotIn("FAILED", p.stderr)
        p = run("compile", self.example("user_sgemm"), "-j", "2", env=self.env)
        self.assertEqual(p.returncode, 0, p.stderr)

    def test_parallel_compile_of_own_kernels_only_ends(self):
        # Every kernel the experiment's own: the first worker starts the sandboxed compile helper, which
        # lives until the end; `compile -j` once waited for it as if it were a worker, and never ended.
        yaml = self.folder({"k.cu": OK_COPY}, "  - {name: mine, source: k.cu, entry: k, params: {B: [128, 256, 512]},"
                                              " block: [B], grid: ['ceil_div(n, B)']}\n")
        p = subprocess.run([RUNNER, "compile", yaml, "-j", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, env=self.env, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("compiling 3 kernels", p.stderr + p.stdout)

    def check_bad(self, yaml, want, compile_error=False):
        out = os.path.join(os.path.dirname(yaml), "out.h5")
        args = ("validate", "--compile", yaml) if compile_error else ("validate", yaml)
        p = run(*args, env=self.env)
        self.assertEqual(p.returncode, 2, "%s\n%s" % (want, p.stdout + p.stderr))
        self.assertIn(want, p.stderr)
        p = run("compile" if compile_error else "run", yaml, *([] if compile_error else ["-o", out]), env=self.env)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertFalse(os.path.exists(out), "a result file after bad input")

    def test_bad_names_and_expressions(self):
        src = {"k.cu": OK_COPY}
        rows = [
            ("  - {name: coalesced, source: k.cu, block: [256], grid: [1]}\n",
             "e.yaml:6:12: variants[0]: 'coalesced' is a registered variant of copy"),
            ("  - {name: mine, source: k.cu, entry: k, block: [256], grid: ['ceil_div(n, 256']}\n",
             "variants[0].grid[0]: 'ceil_div(n, 256': expected ',' or ')'"),
            ("  - {name: mine, source: k.cu, entry: k, block: [BLOCK], grid: [1]}\n",
             "variants[0].block[0]: 'BLOCK': unknown name 'BLOCK' (names: n, sms, smem_optin, warp)"),
            ("  - {name: mine, source: k.cu, entry: k, params: {B: [0, 256]}, block: [256], grid: ['n / B']}\n",
             "variants[0].grid[0]: 'n / B': division by zero in 'n / B', for B=0 at n=1000"),
            ("  - {name: mine, source: k.cu, entry: k, block: [2048], grid: [1]}\n",
             "block [2048, 1, 1] for n=1000: x and y may be 1024 at most"),
        ]
        for variant, want in rows:
            with self.subTest(want=want):
                self.check_bad(self.folder(src, variant), want)

    def test_bad_sources(self):
        outside = os.path.join(self.tmp, "outside.cu")
        with open(outside, "w") as f:
            f.write(OK_COPY)
        v = "  - {name: mine, source: %s, entry: k, block: [256], grid: ['ceil_div(n, 256)']}\n"
        rows = [
            ({}, "k.cu", "k.cu: no such file in the experiment's folder"),
            ({}, outside, "an absolute path (files are named relative to the experiment's folder)"),
            ({}, "../outside.cu", "../outside.cu: it leaves the experiment's folder"),
            ({}, '"k\\n.cu"', "k\\n.cu: a control character"),  # a newline in the name, shown as \n on one line
            ({"k.cu": '#include "../outside.cu"\n'}, "k.cu", 'k.cu:1: "../outside.cu": it leaves'),
            ({"k.cu": '#include "%s"\n' % outside}, "k.cu", "an absolute path"),
            ({"k.cu": "#define F <x>\n#include F\n"}, "k.cu", "k.cu:2: #include F: a computed include"),
            ({"k.cu": "/* x */\n#include \"gone.cuh\"\n"}, "k.cu", 'k.cu:2: #include "gone.cuh": '),
            ({"k.cu": "x" * (1024 * 1024 + 1)}, "k.cu", "over the 1 MiB limit for a kernel source"),
            # A ' after a number opens a character literal (the compiler's reading): the include is seen.
            ({"k.cu": "#define TL_HIDE 1'/*'\n#include \"%s\"\n// */\n" % outside + OK_COPY}, "k.cu",
             'k.cu:2: "%s": an absolute path' % outside),
        ]
        for files, source, want in rows:
            with self.subTest(want=want):
                self.check_bad(self.folder(files, v % source), want)
        # A link that points out of the folder; one that stays inside is fine.
        yaml = self.folder({"real.cu": OK_COPY}, v % "link.cu")
        os.symlink(outside, os.path.join(os.path.dirname(yaml), "link.cu"))
        self.check_bad(yaml, "link.cu: a link to %s, outside the experiment's folder" % os.path.realpath(outside))
        yaml = self.folder({"real.cu": OK_COPY}, v % "inside.cu")
        os.symlink("real.cu", os.path.join(os.path.dirname(yaml), "inside.cu"))
        p = run("validate", "--compile", yaml, env=self.env)
        self.assertEqual(p.returncode, 0, p.stderr)
        # A source that cannot be read.
        yaml = self.folder({"k.cu": OK_COPY}, v % "k.cu")
        os.chmod(os.path.join(os.path.dirname(yaml), "k.cu"), 0)
        if os.geteuid() != 0:  # root reads it anyway
            self.check_bad(yaml, "k.cu: ")

    def test_compile_errors_name_the_users_file_and_line(self):
        v = "  - {name: mine, source: kernels/k.cu, entry: %s, block: [256], grid: ['ceil_div(n, 256)']}\n"
        body = "long long n)\n{\n    y[0] = x[0] + nonsense;\n}\n"
        rows = [
            ({"kernels/k.cu": 'extern "C" __global__ void k(const float *x, float *y, ' + body}, "k",
             "kernels/k.cu(3): error: identifier \"nonsense\" is undefined"),
            ({"kernels/k.cu": '#include "util.cuh"\n' + OK_COPY,
              "kernels/util.cuh": "__device__ int f() { return missing_fn(); }\n"}, "k",
             "kernels/util.cuh(1): error: identifier \"missing_fn\" is undefined"),
            ({"kernels/k.cu": OK_COPY}, "copy_kernel", "e.yaml:6:5: variant mine: "),  # where the YAML names it
            ({"kernels/k.cu": OK_COPY}, "copy_kernel", "no function named 'copy_kernel' (the entry)"),
            ({"kernels/k.cu": OK_COPY.replace('extern "C" ', "")}, "k",
             "'k' is not an extern \"C\" __global__ function of the compiled module (its kernels: _Z1kPKfPfx); a "
             "name starting _Z is C++'s: declare it extern \"C\""),
            ({"kernels/k.cu": OK_COPY.replace("long long n", "int n")}, "k",
             "argument 3 of k must be long long n (a 64-bit integer)"),
            ({"kernels/k.cu": OK_COPY.replace(", long long n", "")}, "k",
             "k must take the 3 arguments of copy kernels (const float *x, float *y, long long n)"),
            ({"kernels/k.cu": OK_COPY.replace('extern "C" __global__', '__device__')}, "k",
             "'k' is not an extern \"C\" __global__ function of the compiled module (its kernels: none)"),
        ]
        for files, entry, want in rows:
            with self.subTest(want=want):
                yaml = self.folder(files, v % entry)
                self.check_bad(yaml, want, compile_error=True)
                if want.startswith("kernels/"):  # the path as the user knows it, from where they stand
                    p = run("validate", "--compile", yaml, env=self.env)
                    self.assertIn(os.path.join(os.path.dirname(yaml), want), p.stderr)

    def test_toolkit_headers_are_found_by_angle_includes(self):
        kernel = ("#include <cuda_fp16.h>\n#include <cooperative_groups.h>\n" +
                  OK_COPY.replace("y[i] = x[i];", "y[i] = __half2float(__float2half(x[i]));"))
        yaml = self.folder({"k.cu": kernel},
                           "  - {name: mine, source: k.cu, entry: k, block: [256], grid: ['ceil_div(n, 256)']}\n")
        p = run("validate", "--compile", yaml, env=self.env)
        self.assertEqual(p.returncode, 0, p.stderr)
        # ... but an angle include may not climb out of the toolkit's folders.
        yaml = self.folder({"k.cu": "#include <../../../etc/passwd>\n" + OK_COPY},
                           "  - {name: mine, source: k.cu, entry: k, block: [256], grid: [1]}\n")
        self.check_bad(yaml, "k.cu:1: <../../../etc/passwd>: it leaves the experiment's folder")

    def test_cute_kernels_compile_with_the_pinned_cutlass_headers(self):
        kernel = ("#include <cute/tensor.hpp>\n"
                  'extern "C" __global__ void k(const float *x, float *y, long long n)\n'
                  "{\n"
                  "    using namespace cute;\n"
                  "    long long i0 = blockIdx.x * 256ll;\n"
                  "    Tensor gx = make_tensor(make_gmem_ptr(x + i0), make_layout(Int<256>{}));\n"
                  "    Tensor gy = make_tensor(make_gmem_ptr(y + i0), make_layout(Int<256>{}));\n"
                  "    if (i0 + threadIdx.x < n) gy(threadIdx.x) = gx(threadIdx.x);\n"
                  "}\n")
        variant = "  - {name: mine, source: k.cu, entry: k, block: [256], grid: ['ceil_div(n, 256)']}\n"
        yaml = self.folder({"k.cu": kernel}, variant)
        p = run("validate", "--compile", yaml, env=self.env)
        self.assertEqual(p.returncode, 0, p.stderr)
        # The kernel cache does not hang on where the headers lie (another bundle, another checkout): the
        # same headers reached by another path compile nothing new.
        here = [d for d in (os.path.join(os.environ.get(v, ""), "cutlass") for v in ("RUNFILES_DIR", "TEST_SRCDIR"))
                if os.path.isfile(os.path.join(d, "include", "cute", "tensor.hpp"))]
        self.assertTrue(here, "the test's CUTLASS headers are not in its runfiles")
        cache = self.env["TILELAB_CACHE_DIR"]
        before = sorted(os.listdir(cache))
        self.assertTrue(any(n.endswith(".cubin") for n in before), before)
        elsewhere = os.path.join(self.tmp, "cutlass-elsewhere")
        os.symlink(os.path.realpath(here[0]), elsewhere)
        p = run("validate", "--compile", yaml, env=dict(self.env, TILELAB_CUTLASS=elsewhere))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(sorted(os.listdir(cache)), before)
        # A machine without them: one error naming the include, where it looked and how to get them.
        env = dict(self.env, TILELAB_CUTLASS=os.path.join(self.tmp, "no-cutlass"),
                   TILELAB_CACHE_DIR=os.path.join(self.tmp, "cache2"))
        p = run("compile", yaml, env=env)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("k.cu:1: <cute/tensor.hpp> needs the CUTLASS headers", p.stderr)
        self.assertIn("no-cutlass", p.stderr)
        self.assertIn("tools/setup.sh", p.stderr)
        # A folder that is not a CUTLASS install is refused the same way, not half used.
        os.makedirs(os.path.join(self.tmp, "fake", "include", "cute"))
        p = run("compile", yaml, env=dict(env, TILELAB_CUTLASS=os.path.join(self.tmp, "fake")))
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("needs the CUTLASS headers", p.stderr)

    def test_run_refuses_local_sources(self):
        p = run(self.example("user_copy"), "--local-sources")
        self.assertEqual(p.returncode, 2)
        self.assertIn("--local-sources belongs to rerun", p.stderr)

    def test_submit_carries_the_experiments_folder(self):
        out = os.path.join(self.tmp, "sweep", "x.h5")
        p = run("submit", self.example("user_sgemm"), "--shards", "2", "-o", out, "--dry-run")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("x.sweep/experiment/kernels/tile_load.cuh: a kernel source of the experiment", p.stdout)
        # A real submission, with an sbatch that only prints job ids.
        bin_dir = os.path.join(self.tmp, "bin")
        os.makedirs(bin_dir)
        with open(os.path.join(bin_dir, "sbatch"), "w") as f:
            f.write("#!/bin/sh\necho 4242\n")
        os.chmod(os.path.join(bin_dir, "sbatch"), stat.S_IRWXU)
        env = dict(self.env, PATH=bin_dir + ":" + os.environ["PATH"])
        p = run("submit", self.example("user_sgemm"), "--shards", "2", "-o", out, env=env)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        sweep = os.path.join(self.tmp, "sweep", "x.sweep", "experiment")
        for rel in ("kernels/my_tiled.cu", "kernels/tile_load.cuh"):
            with open(os.path.join(sweep, rel), "rb") as a, open(os.path.join(self.tmp, "user_sgemm", rel), "rb") as b:
                self.assertEqual(a.read(), b.read(), rel)
        with open(os.path.join(sweep, "..", "array.sbatch")) as f:
            self.assertIn("x.sweep/experiment/experiment.yaml' --shard", f.read())
        shutil.rmtree(os.path.join(self.tmp, "user_sgemm"))  # the sweep needs nothing from the original folder
        p = run("validate", os.path.join(sweep, "experiment.yaml"))
        self.assertEqual(p.returncode, 0, p.stderr)

    def test_extract_refuses_bad_arguments(self):
        for args, want in ((["extract"], "usage: extract RESULT.h5 DIR"),
                           (["extract", os.path.join(self.tmp, "none.h5"), os.path.join(self.tmp, "d")],
                            "none.h5: No such file or directory"),
                           (["extract", self.example("user_copy"), os.path.join(self.tmp, "d")],
                            "user_copy.yaml: not a readable HDF5 file"),
                           (["extract", self.example("user_copy"), self.tmp], "exists and is not empty")):
            p = run(*args)
            self.assertEqual(p.returncode, 2, args)
            self.assertIn(want, p.stderr)


if __name__ == "__main__":
    unittest.main()
