"""The analysis package on files the C runner wrote (host target): summary statistics equal those of the
raw samples (and the runner's own /summary), compare says SAME against a rerun and FASTER / SLOWER
against a planted 2x, the report has every section and valid PNGs, unknown schemas are refused."""
import base64
import csv
import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.image as mpimg  # noqa: E402
import numpy as np  # noqa: E402

from tilelab_analysis import SchemaError, load, load_meta  # noqa: E402
from tilelab_analysis.report import SECTIONS  # noqa: E402

RUNNER = os.path.join("runner", "runner")
TOOL = {n: os.path.join("analysis", n) for n in ("summary", "report", "compare")}

CONFIG = """name: analysis_host
op: sgemm
seed: 3
sizes: [{mnk: 64}, {m: 48, n: 80, k: 33}]
variants: [host_naive, host_ikj]
reference: host
measure: {warmup: 2, min_reps: 25, max_reps: 25}
"""


def sh(*cmd, timing=None):
    """timing: MS:NOISE:SEED for TILELAB_TEST_HOST_TIMING, the runner's simulated host clock. A shared
    CI machine's real clock drifts by tens of percent between runs, so the comparisons run on samples
    of known noise; the statistics test runs on the real clock."""
    env = dict(os.environ)
    env.pop("TILELAB_TEST_HOST_TIMING", None)
    if timing:
        env["TILELAB_TEST_HOST_TIMING"] = timing
    return subprocess.run(list(cmd), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


class Analysis(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        cls.yaml = os.path.join(cls.tmp, "analysis_host.yaml")
        with open(cls.yaml, "w") as f:
            f.write(CONFIG)
        cls.real = os.path.join(cls.tmp, "real.h5")
        cls.a = os.path.join(cls.tmp, "a.h5")
        cls.b = os.path.join(cls.tmp, "b.h5")
        cls.slow = os.path.join(cls.tmp, "slow.h5")
        for args, timing in (((cls.yaml, "-o", cls.real), None),
                             ((cls.yaml, "-o", cls.a), "2.0:0.01:1"),
                             (("rerun", cls.a, "-o", cls.b), "2.0:0.01:2"),     # the same config again
                             (("rerun", cls.a, "-o", cls.slow), "4.0:0.01:3")):  # a planted 2x slowdown
            p = sh(RUNNER, *args, "-q", timing=timing)
            assert p.returncode == 0, p.stdout + p.stderr

    def test_load_statistics_equal_the_raw_samples_and_the_runner_summary(self):
        df = load(self.real)
        self.assertEqual(len(df), 4)
        with h5py.File(self.real, "r") as f:
            runner_median = {r["case_id"].decode(): r["median_ms"] for r in f["summary"][()]}
        for _, r in df.iterrows():
            s = r["samples"]
            self.assertEqual(len(s), 25)
            self.assertEqual(r["median_ms"], np.median(s))
            q1, q3 = np.percentile(s, [25, 75])
            self.assertAlmostEqual(r["iqr_ms"], q3 - q1, places=12)
            self.assertAlmostEqual(r["median_ms"], runner_median[r["case_id"]], places=12)
            self.assertAlmostEqual(r["gflops"], r["flop"] / (np.median(s) * 1e-3) / 1e9, places=6)

    def test_the_baseline_is_the_one_the_file_names(self):
        from tilelab_analysis import add_metrics
        df = load(self.real)
        self.assertEqual(set(df["baseline"]), {"cublas"})  # sgemm's first library variant (schema 1.16)
        # An op the analysis has never heard of is measured against the baseline its file names.
        df["op"] = "op_of_tomorrow"
        df["baseline"] = "host_naive"
        m = add_metrics(df)
        for _, r in m.iterrows():
            base = m[(m["sizes"] == r["sizes"]) & (m["variant"] == "host_naive")]["median_ms"].iloc[0]
            self.assertAlmostEqual(r["pct_ref"], 100.0 * base / r["median_ms"], places=9)
        # Without it (a file older than 1.16) a registered op's library is the baseline, as it was.
        df = df.drop(columns=["baseline"]).assign(op="sgemm")
        self.assertTrue(add_metrics(df)["pct_ref"].isna().all())  # no cublas case in this file

    def test_load_gives_each_files_meta_from_the_same_read(self):
        # Each file is checked and read once, in a child (large tuning files take minutes): the parent
        # opens no file itself.
        L = sys.modules["tilelab_analysis.load"]  # the package exports a function of the same name
        children, start, opened = [], L._start_child, L._open_checked
        log = os.path.join(self.tmp, "opens.log")
        L._start_child = lambda path, work: (children.append(path), start(path, work))[1]

        def open_logged(path, *args):
            with open(log, "a") as f:  # the child's appends reach the parent through the file
                f.write("%d %s\n" % (os.getpid(), path))
            return opened(path, *args)
        L._open_checked = open_logged
        try:
            meta = []
            df = load([self.real, self.a], meta=meta)
        finally:
            L._start_child, L._open_checked = start, opened
        self.assertEqual(sorted(children), sorted([self.real, self.a]))
        with open(log) as f:
            opens = [line.split(" ", 1) for line in f.read().splitlines()]
        self.assertEqual(sorted(p for _, p in opens), sorted([self.real, self.a]))
        self.assertNotIn(str(os.getpid()), [pid for pid, _ in opens])
        self.assertEqual(len(df), 8)
        self.assertEqual(meta, [load_meta(self.real), load_meta(self.a)])
        root, env = meta[1]
        self.assertEqual(root["experiment"], "analysis_host")
        self.assertNotEqual(meta[0][0]["created_utc"], "")
        self.assertIn("host", root)

    def test_a_file_read_in_parts_is_the_file_read_whole(self):
        # A tuning file of 50000 cases takes minutes in one child: load splits a large file's cases among
        # several. The rows (and their run order) are those of one read, and what is wrong with any case
        # is found whichever part it falls in.
        whole = load(self.real, parts=1)
        for parts in (2, 3, 7):  # 7: more parts than the file's 4 cases
            df = load([self.real, self.a], parts=parts)
            self.assertEqual(list(df["case_id"]), list(whole["case_id"]) + list(load(self.a)["case_id"]))
            self.assertEqual(list(df["file"]), [self.real] * 4 + [self.a] * 4)
            for (_, r), (_, w) in zip(df.head(4).iterrows(), whole.iterrows()):
                np.testing.assert_array_equal(r["samples"], w["samples"])
                self.assertEqual(r["canonical"], w["canonical"])
        with h5py.File(self.real, "r") as f:
            self.assertEqual(list(whole["case_id"]), [c.decode() for c in f["summary"]["case_id"][()]])
        for i, cid in enumerate(whole["case_id"]):
            for what, damage, said in (
                    ("canonical", lambda f: f["cases"][cid].attrs.modify("canonical", "edited"), "not the hash"),
                    ("summary", lambda f: self.edit_reps(f, cid), "has 26 samples")):
                bad = os.path.join(self.tmp, "part%d_%s.h5" % (i, what))
                shutil.copy(self.real, bad)
                with h5py.File(bad, "r+") as f:
                    damage(f)
                for parts in (1, 3):
                    with self.assertRaises(SchemaError) as cm:
                        load(bad, parts=parts)
                    self.assertIn(cid, str(cm.exception))
                    self.assertIn(said, str(cm.exception))

    def test_a_large_file_gets_a_share_of_the_cpus(self):
        L = sys.modules["tilelab_analysis.load"]
        big = os.path.join(self.tmp, "big.h5")
        with open(big, "wb") as f:
            f.truncate(100 << 20)  # 100 MiB: six parts of 16 MiB
        cpus = L._cpus
        try:
            L._cpus = lambda: 8
            self.assertEqual(L._split([big, self.real]), [4, 1])  # a share of 8 CPUs each; a small file one
            self.assertEqual(L._split([big]), [6])
            L._cpus = lambda: 2
            self.assertEqual(L._split([big]), [2])
            self.assertEqual(L._split([big, self.real], parts=3), [3, 3])
        finally:
            L._cpus = cpus

    @staticmethod
    def edit_reps(f, cid):
        rows = f["summary"][()]
        rows["reps"][[c.decode() == cid for c in rows["case_id"]]] = 26
        f["summary"][...] = rows

    def test_summary_csv_and_markdown(self):
        p = sh(TOOL["summary"], self.real, "--csv")
        self.assertEqual(p.returncode, 0, p.stderr)
        rows = list(csv.DictReader(io.StringIO(p.stdout)))
        self.assertEqual(len(rows), 4)
        df = load(self.real)
        want = sorted(df["median_ms"])
        got = sorted(float(r["median_ms"]) for r in rows)
        np.testing.assert_allclose(got, want, rtol=1e-12)
        p = sh(TOOL["summary"], self.real, "--markdown")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("| variant | params | sizes |", p.stdout)
        self.assertIn("GFLOP/s", p.stdout)

    def test_compare_rerun_is_same(self):
        p = sh(TOOL["compare"], self.a, self.b)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("4 cases: 0 FASTER, 0 SLOWER, 4 SAME", p.stdout)
        self.assertIn("alpha 0.01", p.stdout)
        self.assertEqual(p.stdout.count("case_id"), 4)  # a rerun keeps the case ids
        self.assertNotIn("WARNING", p.stdout)

    def test_compare_planted_2x(self):
        p = sh(TOOL["compare"], self.a, self.slow)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn("4 cases: 0 FASTER, 4 SLOWER, 0 SAME", p.stdout)
        self.assertRegex(p.stdout, r"speedup of B over A: 0\.50\dx")
        p = sh(TOOL["compare"], self.slow, self.a)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("4 cases: 4 FASTER, 0 SLOWER, 0 SAME", p.stdout)
        self.assertRegex(p.stdout, r"speedup of B over A: 1\.99\dx|2\.00\dx")

    def test_a_reader_that_stops_early_changes_nothing(self):
        # `summary | head -1`, `compare | head -1`: no traceback, and the exit code of the whole command (compare's
        # 1 is "a case got slower", never "the pipe closed"). The pipe's reader is gone before the first write, so
        # that every write meets the closed pipe, however little the command prints.
        for tool, files, code in (("summary", [self.a], 0), ("compare", [self.a, self.slow], 1),
                                  ("compare", [self.slow, self.a], 0), ("summary", ["/nonexistent.h5"], 2)):
            r, w = os.pipe()
            os.close(r)
            p = subprocess.run([TOOL[tool]] + files, stdout=w, stderr=subprocess.PIPE, text=True, timeout=120)
            os.close(w)
            self.assertNotIn("Traceback", p.stderr, tool)
            self.assertNotIn("BrokenPipe", p.stderr, tool)
            self.assertEqual(p.returncode, code, "%s %s: %s" % (tool, files, p.stderr))

    def test_compare_warns_on_another_device(self):
        other = os.path.join(self.tmp, "other.h5")
        shutil.copy(self.b, other)
        with h5py.File(other, "r+") as f:
            f["env"].attrs["device_name"] = "another GPU"
        p = sh(TOOL["compare"], self.a, other)
        self.assertIn("WARNING: different devices", p.stdout)

    def test_compare_says_when_matched_cases_ran_other_sources(self):
        # Host cases compile nothing; plant what a GPU file records for an edited kernel of one's own:
        # its files in /sources, and each case's list of them.
        def plant(f, data):
            sha = hashlib.sha256(data).hexdigest()
            if sha not in f.require_group("sources"):
                d = f["sources"].create_dataset(sha, data=np.frombuffer(data, dtype=np.uint8))
                d.attrs["paths"] = "experiment:kernels/my.cu"
            return sha

        a2, b2 = os.path.join(self.tmp, "src_a.h5"), os.path.join(self.tmp, "src_b.h5")
        shutil.copy(self.a, a2), shutil.copy(self.b, b2)
        for path, edited in ((a2, b"// my kernel\n"), (b2, b"// my kernel, edited\n")):
            with h5py.File(path, "r+") as f:
                same, other, common = plant(f, b"// my kernel\n"), plant(f, edited), plant(f, b"// common\n")
                for g in f["cases"].values():
                    mine = same if g.attrs["variant"] == "host_naive" else other
                    g.attrs["sources"] = "experiment:kernels/my.cu %s\ntilelab:sgemm/sgemm_common.cuh %s" % (mine, common)
        p = sh(TOOL["compare"], a2, b2)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("WARNING: 2 matched case(s) compiled different kernel sources (kernels/my.cu)", p.stdout)
        self.assertEqual(p.stdout.count("[sources differ]"), 2, p.stdout)
        p = sh(TOOL["compare"], self.a, self.b)  # no sources recorded (host target): nothing to say
        self.assertNotIn("sources differ", p.stdout)

    def test_compare_matches_across_configs(self):
        # Another seed: other case ids, the same op/variant/params/sizes.
        yaml = os.path.join(self.tmp, "seed4.yaml")
        with open(yaml, "w") as f:
            f.write(CONFIG.replace("seed: 3", "seed: 4"))
        c = os.path.join(self.tmp, "c.h5")
        self.assertEqual(sh(RUNNER, yaml, "-o", c, "-q", timing="2.0:0.01:4").returncode, 0)
        p = sh(TOOL["compare"], self.a, c)
        self.assertEqual(p.stdout.count("op/variant/params/sizes"), 4, p.stdout)

    def test_report_has_every_section_and_valid_pngs(self):
        base = os.path.join(self.tmp, "rep")
        p = sh(TOOL["report"], self.real, self.b, "-o", base)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        with open(base + ".report.html") as f:
            page = f.read()
        with open(base + ".report.md") as f:
            md = f.read()
        absent = {"Hardware counters", "Clock and temperature", "Searches"}  # host sweeps have none: no heading, no note
        for s in SECTIONS:
            self.assertEqual("<h2>%s</h2>" % s in page, s not in absent, s)
            self.assertEqual("## %s\n" % s in md, s not in absent, s)
        self.assertLess(page.index("<h2>Verdicts</h2>"), page.index("<h2>Ladder</h2>"))  # verdicts first
        self.assertIn('class="t v sortable"', page)
        self.assertIn("analysis_host", page)
        self.assertIn("seed: 3", page)  # the config as run
        pngs = re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', page)
        self.assertGreaterEqual(len(pngs), 4)  # ladder, size, roofline, distributions
        for b64 in pngs:
            raw = base64.b64decode(b64)
            self.assertEqual(raw[:8], b"\x89PNG\r\n\x1a\n")
            img = mpimg.imread(io.BytesIO(raw), format="png")
            self.assertGreater(img.shape[0], 100)
            self.assertGreater(img.shape[1], 100)
            self.assertGreater(float(np.std(img)), 0.01)  # not a blank image
        for name in re.findall(r"\]\(([^)]+\.png)\)", md):
            self.assertTrue(os.path.exists(os.path.join(self.tmp, name)), name)
        self.assertNotIn("telemetry", page)
        self.assertNotIn("Nothing to draw", page)

    def test_unknown_schema_is_refused(self):
        bad = os.path.join(self.tmp, "future.h5")
        shutil.copy(self.a, bad)
        with h5py.File(bad, "r+") as f:
            f.attrs["schema"] = "tilelab/2"
        with self.assertRaises(SchemaError) as cm:
            load(bad)
        self.assertIn("tilelab/2", str(cm.exception))
        p = sh(TOOL["summary"], bad)
        self.assertEqual(p.returncode, 2)
        self.assertIn("future.h5: schema tilelab/2, this analysis reads tilelab/1", p.stderr)

    def test_several_files_at_once_name_the_first_bad_one(self):
        # load reads files in children side by side; what is wrong is told for the first bad file in
        # the order given, whichever child ends first, and no child is left behind.
        bad1, bad2 = os.path.join(self.tmp, "bad1.h5"), os.path.join(self.tmp, "bad2.h5")
        shutil.copy(self.a, bad1)
        with h5py.File(bad1, "r+") as f:
            f.attrs["schema"] = "tilelab/3"
        with open(bad2, "wb") as f:
            f.write(b"not HDF5 at all")
        for paths, named in (([self.a, bad2, self.real, bad1], "bad2.h5: not a readable HDF5 file"),
                             ([bad1, self.real, bad2], "bad1.h5: schema tilelab/3")):
            with self.assertRaises(SchemaError) as cm:
                load(paths)
            self.assertIn(named, str(cm.exception))
        with self.assertRaises(ChildProcessError):
            os.waitpid(-1, os.WNOHANG)  # no child of load's still there
        df = load([self.a, self.real, self.a])  # and the good ones in the order given
        self.assertEqual(list(df["file"]), [self.a] * 4 + [self.real] * 4 + [self.a] * 4)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
