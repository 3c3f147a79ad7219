"""Result files are untrusted input. A table of hostile files (truncated at several offsets, random
bytes, a 0-byte file, a folder, an HDF5 file that is not tilelab's, each required group missing,
attributes of the wrong type, another schema major, a /summary that disagrees with /cases, a case
whose id is not its hash, damaged kernel sources, a file that crashes the HDF5 library itself) goes through every command that reads result files:
the runner's rerun, merge, extract and run --resume, and analysis's summary, report, compare and the
ladder's markdown generator. Each
must fail with one line naming the file, exit code 2, no traceback, and no output written (a resumed
file is left byte for byte as it was). Also: the kernel cache commands (`runner cache`)."""
import contextlib
import hashlib
import io
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest

import h5py
import numpy as np

from tilelab_analysis import compare, report, summary

sys.path.insert(0, "analysis")
import sgemm_ladder_md  # noqa: E402  (the ladder's docs generator reads result files too)

RUNNER = os.path.abspath(os.path.join("runner", "runner"))

# Bazel's shards (tests/BUILD): each takes every SHARDS-th row of the table through the commands, the last
# one also the tests that are not of the table; under ASan on CI's 2 cores one shard took 96 - 110 s.
SHARD = int(os.environ.get("TEST_SHARD_INDEX", "0"))
SHARDS = int(os.environ.get("TEST_TOTAL_SHARDS", "1"))
if os.environ.get("TEST_SHARD_STATUS_FILE"):
    open(os.environ["TEST_SHARD_STATUS_FILE"], "w").close()
in_last_shard = unittest.skipUnless(SHARD == SHARDS - 1, "another shard's")

CONFIG = """name: hostile
op: sgemm
seed: 5
sizes: [{mnk: 24}, {m: 9, n: 13, k: 7}]
variants: [host_naive, host_ikj]
reference: host
measure: {warmup: 1, min_reps: 3, max_reps: 3}
"""


def run(*args, env=None):
    return subprocess.run([RUNNER, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def edit(fn):
    """A row that edits a copy of the good file with h5py."""
    def make(good, path):
        shutil.copy(good, path)
        with h5py.File(path, "r+") as f:
            fn(f)
    return make


def raw(fn):
    """A row made from the good file's bytes."""
    def make(good, path):
        with open(good, "rb") as f:
            data = f.read()
        with open(path, "wb") as f:
            f.write(fn(data))
    return make


def first_case(f):
    return f["cases"][sorted(f["cases"])[0]]


def set_summary(f, fn):
    rows = f["summary"][()]
    rows = fn(rows)
    del f["summary"]
    f.create_dataset("summary", data=rows, maxshape=(None,), chunks=True)


def summary_extent(f, n):
    """/summary with its rows and an extent of n: chunked, the rows past them never written (no bytes)."""
    rows = f["summary"][()]
    del f["summary"]
    d = f.create_dataset("summary", shape=(n,), maxshape=(None,), chunks=(64,), dtype=rows.dtype)
    d[:len(rows)] = rows


def plant_source(f, data, name=None):
    g = f.require_group("sources")
    d = g.create_dataset(name or hashlib.sha256(data).hexdigest(), data=np.frombuffer(data, dtype=np.uint8))
    d.attrs["paths"] = "experiment:kernels/k.cu"


def not_tilelab(good, path):
    with h5py.File(path, "w") as f:
        f.create_dataset("x", data=np.arange(4))


def folder(good, path):
    os.makedirs(path)


def del_attr(name):
    return edit(lambda f: f.attrs.__delitem__(name))


def set_attr(name, value):
    return edit(lambda f: f.attrs.__setitem__(name, value))


def case_attr(name, value):
    return edit(lambda f: first_case(f).attrs.__setitem__(name, value))


def bad_heap_reference(good, path):
    """A root attribute whose variable-length value points past its global heap collection's objects:
    HDF5 1.10 segfaults reading it (the kind of file CI's fuzzing found on 2026-11-24, which
    passed the check and crashed `runner merge` as it copied the root attributes)."""
    shutil.copy(good, path)
    marker = "tilelab-crafted-heap-reference"
    with h5py.File(path, "r+") as f:
        f.attrs["zz_note"] = marker
    data = bytearray(open(path, "rb").read())
    heap = data.rfind(b"GCOL", 0, data.find(marker.encode()))  # the collection that holds the value
    for idx in range(1, 4096):  # the attribute's stored reference: length, collection address, index
        at = data.find(struct.pack("<IQI", len(marker), heap, idx))
        if at >= 0:
            data[at + 12:at + 16] = struct.pack("<I", 0x7FFFFFF0)
            break
    else:
        raise AssertionError("the attribute's heap reference was not found in the file")
    open(path, "wb").write(data)


def replace_time(data):
    def fn(f):
        g = first_case(f)
        del g["time_ms"]
        g.create_dataset("time_ms", data=data)
    return edit(fn)


# name -> how the hostile file is made from a good one, and a fragment of the error the runner gives.
ROWS = [
    ("zero_bytes", raw(lambda d: b""), "not a readable HDF5 file"),
    ("random_bytes", raw(lambda d: random.Random(7).randbytes(len(d))), "not a readable HDF5 file"),
    ("folder", folder, "a folder, not a result file"),
    ("not_tilelab", not_tilelab, "not a tilelab result file"),
    ("no_cases", edit(lambda f: f.__delitem__("cases")), "/cases is missing"),
    ("no_summary", edit(lambda f: f.__delitem__("summary")), "/summary is missing"),
    ("no_env", edit(lambda f: f.__delitem__("env")), "/env is missing"),
    ("no_sessions", edit(lambda f: f.__delitem__("sessions")), "/sessions is missing"),
    ("summary_is_a_group", edit(lambda f: (f.__delitem__("summary"), f.create_group("summary"))),
     "/summary is missing or not a dataset"),
    ("no_schema", del_attr("schema"), "not a tilelab result file"),
    ("schema_int", set_attr("schema", 12), "not a tilelab result file"),
    ("schema_2", set_attr("schema", "tilelab/2"), "schema tilelab/2"),
    ("no_config", del_attr("config_yaml"), "'config_yaml' is missing or not a string"),
    ("config_int", set_attr("config_yaml", np.int64(3)), "'config_yaml' is missing or not a string"),
    ("config_edited", edit(lambda f: f.attrs.__setitem__("config_yaml", f.attrs["config_yaml"] + "\n# edited")),
     "config_sha256 is not the hash of config_yaml"),
    ("status_int", case_attr("status", 1), "its status is missing, not a string"),
    ("status_unknown", case_attr("status", "great"), "its status is missing, not a string"),
    ("case_id_other", case_attr("case_id", "0123456789abcdef"), "its case_id attribute is missing or another id"),
    ("canonical_edited", edit(lambda f: first_case(f).attrs.__setitem__(
        "canonical", first_case(f).attrs["canonical"].replace("seed=5", "seed=6"))), "is not the hash of its canonical"),
    ("session_gone", case_attr("session", 9), "its session is missing or names no /sessions group"),
    ("no_time_ms", edit(lambda f: first_case(f).__delitem__("time_ms")), "time_ms is missing or not a 1-D float64"),
    ("time_ms_int", replace_time(np.arange(3, dtype=np.int32)), "time_ms is missing or not a 1-D float64"),
    ("time_ms_2d", replace_time(np.zeros((3, 2))), "time_ms is missing or not a 1-D float64"),
    ("ok_without_samples", replace_time(np.zeros(0)), "status ok but no samples"),
    ("telemetry_short", edit(lambda f: first_case(f).create_dataset("temp_c", data=np.zeros(1))),
     "temp_c has not one value per sample"),
    ("not_a_case", edit(lambda f: f["cases"].create_group("zzz")), "/cases/zzz: not a case id"),
    ("summary_row_gone", edit(lambda f: set_summary(f, lambda r: r[1:])), "/summary has 3 rows for 4 cases"),
    # As a fuzzed file (2026-11-27): the runner, and analysis, read /summary before comparing its
    # extent with the cases (the fuzzed file: a 79 TB calloc in the runner; this one: a 144 TiB array).
    ("summary_extent_huge", edit(lambda f: summary_extent(f, 2 ** 40)),
     "/summary has 1099511627776 rows for 4 cases"),
    ("summary_status", edit(lambda f: set_summary(f, lambda r: (r.__setitem__("status", b"error"), r)[1])),
     "/summary says case"),
    ("summary_reps", edit(lambda f: set_summary(f, lambda r: (r.__setitem__("reps", 99), r)[1])), "has 99 samples"),
    ("summary_fields", edit(lambda f: set_summary(f, lambda r: r[["case_id", "op"]])),
     "/summary's rows are not tilelab's"),
    ("source_damaged", edit(lambda f: plant_source(f, b"__global__ void k() {}\n", "0" * 64)),
     "its bytes hash to"),
    ("source_missing", case_attr("sources", "experiment:kernels/k.cu " + "1" * 64), "is not in /sources"),
    # /sources as a dataset of a million bytes: refused before its "names" are listed (analysis read them).
    ("sources_not_a_group", edit(lambda f: f.create_dataset("sources", data=np.zeros(1 << 20, dtype=np.uint8))),
     "/sources"),
    ("phase_negative", case_attr("t_timed_s", -1.0), "t_timed_s is not a number of seconds"),
    ("phase_text", case_attr("t_compile_s", "fast"), "t_compile_s is not a number of seconds"),
    ("cutlass_version_int", case_attr("cutlass_version", np.int64(4)), "cutlass_version is not a version string"),
    ("cutlass_version_empty", case_attr("cutlass_version", ""), "cutlass_version is not a version string"),
    ("tensor_maps_int", case_attr("tensor_maps", np.int64(1)), "tensor_maps is not a line of text"),
    ("device_text", case_attr("device_ordinal", "gpu0"), "device_ordinal is not a device number"),
    ("dispatch_int", case_attr("dispatch", np.int64(3)), "dispatch is not a line of text"),
    ("device_huge", case_attr("device_ordinal", np.int64(1 << 40)), "device_ordinal is not a device number"),
    ("tensor_maps_huge", case_attr("tensor_maps", "a" * 300), "tensor_maps is not a line of text"),
    ("counters_not_a_table", edit(lambda f: first_case(f).create_dataset("counters", data=np.arange(3.0))),
     "counters is not a list of (name, value, unit)"),
    # Attributes of the right type in the wrong shape: an array where the schema has one value (config_path as
    # 1,500 strings crashed extract, rerun and search-replay, and merge copied it).
    ("config_path_array", set_attr("config_path", np.array(["x" * 10] * 1500, dtype=h5py.string_dtype())),
     "the attribute 'config_path' is an array of 1500 strings, not a string"),
    ("schema_array", set_attr("schema", np.array(["tilelab/1.15"] * 3, dtype=h5py.string_dtype())),
     "not a tilelab result file"),
    ("env_array", edit(lambda f: f["env"].attrs.__setitem__("device_name", np.array(["a", "b"], dtype=h5py.string_dtype()))),
     "/env: the attribute 'device_name' is an array of 2 strings, not a string"),
    ("case_params_array", case_attr("params", np.array(["BM=1", "BN=2"], dtype=h5py.string_dtype())),
     "the attribute 'params' is an array of 2 strings, not a string"),
    ("case_flop_text", case_attr("flop", "many"), "the attribute 'flop' is a string, not a number"),
    ("source_paths_array", edit(lambda f: (plant_source(f, b"__global__ void k() {}\n"), [
        d.attrs.__setitem__("paths", np.array(["experiment:a.cu", "experiment:b.cu"], dtype=h5py.string_dtype()))
        for d in f["sources"].values()])), "its paths attribute is not one string"),
    # Found by fuzzing: HDF5 1.10 itself segfaults reading one of its attributes. Read in a child process.
    ("hdf5_crash", lambda good, path: shutil.copy(os.path.join("fuzz", "corpus_results", "hdf5_crash_global_heap.h5"),
                                                  path), "damaged in a way that crashes the HDF5 library"),
    # Found by fuzzing (2026-11-24): a root attribute's value that crashes HDF5 only when read, which
    # merge's copy of the root attributes did after the check had passed; the check now reads them all.
    ("hdf5_crash_root_attr", bad_heap_reference, "damaged in a way that crashes the HDF5 library"),
]
TRUNCATIONS = (512, 2048, 0.5, -1024, -8)
# Where analysis words it otherwise than the runner (the rows' third field).
ANALYSIS_SAYS = {"source_damaged": "its bytes do not hash to its name", "sources_not_a_group": "/sources is not a group"}


class HostileFiles(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        cls.yaml = os.path.join(cls.tmp, "hostile.yaml")
        with open(cls.yaml, "w") as f:
            f.write(CONFIG)
        cls.good = os.path.join(cls.tmp, "good.h5")
        p = run(cls.yaml, "-q", "-o", cls.good)
        assert p.returncode == 0, p.stdout + p.stderr
        size = os.path.getsize(cls.good)
        rows = list(ROWS)
        for t in TRUNCATIONS:
            n = int(size * t) if isinstance(t, float) else t if t > 0 else size + t
            rows.append(("truncated_%d" % n, raw(lambda d, n=n: d[:n]), None))
        cls.rows = []
        for name, make, want in rows:
            path = os.path.join(cls.tmp, name + ".h5")
            make(cls.good, path)
            cls.rows.append((name, path, want))
        cls.mine = cls.rows[SHARD::SHARDS]
        assert cls.mine, "shard %d of %d has no rows" % (SHARD, SHARDS)

    def check_runner(self, name, path, want, args, output):
        p = run(*args)
        what = "%s: runner %s" % (name, " ".join(args[:1]))
        self.assertEqual(p.returncode, 2, "%s: exit %d\n%s" % (what, p.returncode, p.stdout + p.stderr))
        lines = [l for l in p.stderr.splitlines() if l.strip()]
        self.assertEqual(len(lines), 1, "%s: not one line:\n%s" % (what, p.stderr))
        self.assertIn(os.path.basename(path), lines[0], what)
        if want:
            self.assertIn(want, lines[0], what)
        self.assertNotIn("HDF5 call failed", lines[0], what)
        if output:
            self.assertFalse(os.path.exists(output), "%s: wrote %s" % (what, output))

    def test_runner_commands(self):
        for name, path, want in self.mine:
            with self.subTest(row=name):
                out = os.path.join(self.tmp, "out-%s.h5" % name)
                self.check_runner(name, path, want, ["rerun", path, "-o", out], out)
                self.check_runner(name, path, want, ["merge", out, path], out)
                dest = os.path.join(self.tmp, "extract-" + name)
                self.check_runner(name, path, want, ["extract", path, dest], dest)

    def test_resume_leaves_a_hostile_file_as_it_was(self):
        for name, path, want in self.mine:
            if name in ("config_edited", "no_config", "config_int", "folder", "not_tilelab", "no_schema", "schema_int"):
                want = None  # the experiment check or the schema check may speak first; still exit 2
            with self.subTest(row=name):
                copy = os.path.join(self.tmp, "resume-%s.h5" % name)
                if os.path.isdir(path):
                    shutil.copytree(path, copy)
                else:
                    shutil.copy(path, copy)
                before = open(copy, "rb").read() if os.path.isfile(copy) else None
                p = run(self.yaml, "-q", "--resume", "-o", copy)
                self.assertEqual(p.returncode, 2, "%s: exit %d\n%s" % (name, p.returncode, p.stderr))
                self.assertIn(os.path.basename(copy), p.stderr, name)
                if want:
                    self.assertIn(want, p.stderr, name)
                if before is not None:
                    self.assertEqual(open(copy, "rb").read(), before, "%s: the file was written" % name)

    def analysis(self, main, argv):
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            rc = main(argv)
        return rc, err.getvalue()

    @staticmethod
    def ladder_md(argv):
        saved = sys.argv
        sys.argv = ["sgemm_ladder_md.py"] + argv
        try:
            return sgemm_ladder_md.main()
        finally:
            sys.argv = saved

    def test_analysis_commands(self):
        for name, path, want in self.mine:
            with self.subTest(row=name):
                base = os.path.join(self.tmp, "report-" + name)
                md = os.path.join(self.tmp, "ladder-%s.md" % name)
                for tool, argv in ((summary.main, [path]), (report.main, [path, "-o", base]),
                                   (compare.main, [self.good, path]), (compare.main, [path, self.good]),
                                   (self.ladder_md, [path, "-o", md]), (self.ladder_md, [self.good, "--tune", path])):
                    rc, err = self.analysis(tool, argv)
                    self.assertEqual(rc, 2, "%s %s: exit %s\n%s" % (name, tool.__module__, rc, err))
                    self.assertEqual(len(err.strip().splitlines()), 1, "%s: %s" % (name, err))
                    self.assertIn(os.path.basename(path), err)
                    # What is wrong, as the runner says it: a crafted /summary's extent, not "Unable to
                    # allocate 144. TiB" from reading its rows first.
                    if ANALYSIS_SAYS.get(name, want):
                        self.assertIn(ANALYSIS_SAYS.get(name, want), err, name)
                self.assertFalse(os.path.exists(base + ".report.html"), name)
                self.assertFalse(os.path.exists(md), name)

    @in_last_shard
    def test_compare_of_a_broken_file_is_not_a_regression(self):
        # The case that started it: compare exited 1 ("a regression") on a file without /cases.
        broken = dict((n, p) for n, p, _ in self.rows)["no_cases"]
        p = subprocess.run([sys.executable, "-m", "tilelab_analysis.compare", self.good, broken],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertNotIn("Traceback", p.stderr)
        self.assertIn("no_cases.h5: /cases is missing", p.stderr)

    @in_last_shard
    def test_extract_refuses_an_experiment_that_leaves_its_folder(self):
        # A config_yaml (its hash made to match) whose variant names a source outside the folder: rerun refuses it,
        # and so does extract now, instead of writing a folder that cannot run; nothing is left behind.
        path = os.path.join(self.tmp, "leaves.h5")
        shutil.copy(os.path.join("fuzz", "seeds", "with_sources.h5"), path)
        with h5py.File(path, "r+") as f:
            y = f.attrs["config_yaml"]
            y = (y.decode() if isinstance(y, bytes) else y).replace("source: kernels/my_tiled.cu",
                                                                     "source: ../../outside/evil.cuh", 1)
            f.attrs["config_yaml"] = y
            f.attrs["config_sha256"] = hashlib.sha256(y.encode()).hexdigest()
        dest = os.path.join(self.tmp, "leaves-extract")
        p = run("extract", path, dest)
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertIn("its experiment does not load from the extracted folder", p.stderr)
        self.assertIn("../../outside/evil.cuh: it leaves the experiment's folder", p.stderr)
        self.assertFalse(os.path.exists(dest))
        good = os.path.join(self.tmp, "sources-extract")
        self.assertEqual(run("extract", os.path.join("fuzz", "seeds", "with_sources.h5"), good).returncode, 0)

    @in_last_shard
    def test_a_file_hdf5_holds_open_after_its_close(self):
        # Found by fuzzing (2026-11-27): a crafted file that passes the check and merges, but that
        # HDF5 still holds open after the runner closed it; its atexit clean-up then closed it again and
        # crashed (SIGSEGV after the merged file was written). The runner now leaves by _exit when HDF5 holds
        # anything open at the end, as it does after a failed close.
        path = os.path.join("tests", "data", "hdf5_left_open.h5")
        out, dest = os.path.join(self.tmp, "left-open-merged.h5"), os.path.join(self.tmp, "left-open-extract")
        for args in (["merge", out, path], ["extract", path, dest], ["rerun", path, "-o", out + ".rerun.h5"]):
            with self.subTest(command=args[0]):
                p = run(*args)
                self.assertIn(p.returncode, (0, 2), "runner %s: exit %d\n%s" % (args[0], p.returncode, p.stderr))

    @unittest.skipIf(os.path.exists("/dev/nvidia0"), "needs a machine without a GPU")
    @in_last_shard
    def test_rerun_without_a_gpu_points_to_extract(self):
        gpu_file = os.path.join("fuzz", "seeds", "with_sources.h5")  # its cases run on the GPU
        p = run("rerun", gpu_file, "-o", os.path.join(self.tmp, "never.h5"))
        self.assertEqual(p.returncode, 2)
        self.assertIn("`runner extract %s DIR` writes its experiment out" % gpu_file, p.stderr)
        self.assertNotIn("runner validate", p.stderr)

    @in_last_shard
    def test_the_good_file_passes_every_command(self):
        out, dest = os.path.join(self.tmp, "good-merged.h5"), os.path.join(self.tmp, "good-extracted")
        self.assertEqual(run("merge", out, self.good).returncode, 0)
        self.assertEqual(run("extract", self.good, dest).returncode, 0)
        self.assertEqual(self.analysis(summary.main, [self.good])[0], 0)
        self.assertEqual(self.analysis(compare.main, [self.good, out])[0], 0)


class KernelCache(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        os.chmod(self.tmp, 0o700)
        self.dir = os.path.join(self.tmp, "cache")
        self.env = dict(os.environ, TILELAB_CACHE_DIR=self.dir)

    @in_last_shard
    def test_cache_command(self):
        p = run("cache", env=self.env)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("used: only this user can write it", p.stdout)
        self.assertEqual(os.stat(self.dir).st_mode & 0o777, 0o700)
        smoke = os.path.join("experiments", "smem_tile.yaml")
        p = run("compile", smoke, env=self.env)
        self.assertEqual(p.returncode, 0, p.stderr)
        entries = sorted(os.listdir(self.dir))
        self.assertGreater(len(entries), 1)
        p = run("cache", "--verify", env=self.env)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("%d entries, 0 damaged" % len(entries), p.stdout)
        # Truncate one, swap another for a third's: both damaged, named.
        a, b, c = (os.path.join(self.dir, e) for e in entries[:3])
        with open(a, "r+b") as f:
            f.truncate(100)
        shutil.copy(c, b)
        p = run("cache", "--verify", env=self.env)
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertIn("2 damaged", p.stdout)
        self.assertIn("damaged: " + a, p.stdout)
        self.assertIn("damaged: " + b, p.stdout)
        # A compile replaces them; then nothing is damaged.
        p = run("compile", smoke, env=self.env)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("0 damaged", run("cache", "--verify", env=self.env).stdout)
        p = run("cache", "--clear", env=self.env)
        self.assertIn("removed %d entries" % len(entries), p.stdout)
        self.assertEqual(os.listdir(self.dir), [])

    @in_last_shard
    def test_a_cache_others_can_write_is_not_used(self):
        os.makedirs(self.dir)
        os.chmod(self.dir, 0o777)
        p = run("compile", os.path.join("experiments", "smem_tile.yaml"), env=self.env)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("kernel cache not used: %s is writable by other users (mode 777)" % os.path.realpath(self.dir),
                      p.stderr)
        self.assertEqual(os.listdir(self.dir), [], "a refused cache was written")


if __name__ == "__main__":
    unittest.main()
