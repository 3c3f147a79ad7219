"""The bandwidth ops (reduce, copy, transpose) end to end on the host target: each op's host variant
verifies at sizes that are no multiple of anything, f16 inputs are summed from half values, the
byte model and GB/s are in the file, a wrong result fails verification with exit code 1, and a case that
writes its input fails without spoiling the cases after it."""
import os
import subprocess
import tempfile
import unittest

import h5py
import numpy as np

RUNNER = os.path.join("runner", "runner")


def text(v):
    return v.decode() if isinstance(v, bytes) else v


class MemoryOpsOnHost(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))

    def run_yaml(self, name, body):
        yaml = os.path.join(self.tmp, name + ".yaml")
        out = os.path.join(self.tmp, name + ".h5")
        with open(yaml, "w") as f:
            f.write("name: %s\nseed: 9\nmeasure: {warmup: 1, min_reps: 3, max_reps: 3}\n%s" % (name, body))
        p = subprocess.run([RUNNER, yaml, "-o", out], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        return p, out

    def cases(self, path):
        with h5py.File(path, "r") as f:
            return [({k: text(v) for k, v in g.attrs.items()}, g["time_ms"][()]) for g in f["cases"].values()]

    def check_ok(self, p, out, bytes_per_case):
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("GB/s", p.stdout)
        cases = self.cases(out)
        self.assertEqual(len(cases), len(bytes_per_case))
        got = sorted((a["sizes"], float(a["bytes"])) for a, _ in cases)
        self.assertEqual(got, sorted(bytes_per_case))
        for a, t in cases:
            self.assertEqual(a["status"], "ok", a)
            self.assertEqual(len(t), 3)
            self.assertTrue(np.all(t > 0))

    def test_reduce_f32(self):
        p, out = self.run_yaml("r32", "op: reduce\nsizes: {n: [1000, 65537]}\nvariants: [host_sum]\n")
        self.check_ok(p, out, [("n=1000", 4004.0), ("n=65537", 4 * 65537 + 4.0)])

    def test_reduce_f16_sums_half_values(self):
        p, out = self.run_yaml("r16", "op: reduce\ndtype: f16\ndata: normal\nsizes: {n: 4099}\nvariants: [host_sum]\n")
        self.check_ok(p, out, [("n=4099", 2 * 4099 + 4.0)])
        with h5py.File(out, "r") as f:
            self.assertEqual(text(list(f["cases"].values())[0].attrs["dtype"]), "f16")

    def test_reduce_int_data_is_exact(self):
        p, out = self.run_yaml("ri", "op: reduce\ndata: int\nsizes: {n: 100003}\nvariants: [host_sum]\n")
        self.check_ok(p, out, [("n=100003", 4 * 100003 + 4.0)])
        a, _ = self.cases(out)[0]
        self.assertEqual(float(a["max_abs_err"]), 0.0)

    def test_copy(self):
        p, out = self.run_yaml("c", "op: copy\nsizes: {n: [1, 4099]}\nvariants: [host_memcpy]\n")
        self.check_ok(p, out, [("n=1", 8.0), ("n=4099", 8 * 4099.0)])

    def test_transpose(self):
        p, out = self.run_yaml("t", "op: transpose\nsizes: [{m: 33, n: 65}, {mn: 64}]\nvariants: [host_transpose]\n")
        self.check_ok(p, out, [("m=33,n=65", 8 * 33 * 65.0), ("m=64,n=64", 8 * 64 * 64.0)])

    def test_wrong_results_fail(self):
        for op, sizes in (("reduce", "{n: 5000}"), ("copy", "{n: 5000}"), ("transpose", "{m: 17, n: 19}")):
            with self.subTest(op=op):
                p, out = self.run_yaml("w" + op, "op: %s\nsizes: %s\nvariants: [host_wrong_for_tests]\n" % (op, sizes))
                self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
                self.assertIn("FAILED", p.stderr)
                (a, t), = self.cases(out)
                self.assertEqual(a["status"], "verify_failed")
                self.assertEqual(len(t), 0)

    def test_a_case_that_writes_its_input_fails_and_spoils_no_other(self):
        # The variant sums right, then halves its input: its own check passes, so only the input guard catches
        # it; the host_sum after it must sum the inputs the reference summed (without the guard it fails).
        for dtype in ("f32", "f16"):
            with self.subTest(dtype=dtype):
                p, out = self.run_yaml("wi" + dtype, "op: reduce\ndtype: %s\nsizes: {n: [5000, 65537]}\n"
                                       "variants: [host_writes_input_for_tests, host_sum]\n" % dtype)
                self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
                cases = self.cases(out)
                self.assertEqual(len(cases), 4)
                for a, t in cases:
                    if a["variant"] == "host_sum":
                        self.assertEqual(a["status"], "ok", a)
                        continue
                    self.assertEqual(a["status"], "verify_failed", a)
                    self.assertEqual(a["reason"], "wrote to its input x (first changed element 0)")
                    self.assertEqual(len(t), 0)  # not timed

    def test_invalid_block_sizes_are_skipped_with_reasons(self):
        # validate plans GPU variants without running them; a skip names the param and its range.
        yaml = os.path.join(self.tmp, "v.yaml")
        with open(yaml, "w") as f:
            f.write("name: v\nop: reduce\nseed: 1\nsizes: {n: 1024}\nvariants:\n"
                    "  - {name: first_add, params: {BLOCK: [32, 48, 64]}}\n  - vec4\n")
        p = subprocess.run([RUNNER, "validate", yaml], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("4 cases", p.stdout)
        self.assertIn("BLOCK = 32 is not a power of two in 64 .. 1024", p.stdout)
        self.assertIn("BLOCK = 48 is not a power of two in 64 .. 1024", p.stdout)


if __name__ == "__main__":
    unittest.main()
