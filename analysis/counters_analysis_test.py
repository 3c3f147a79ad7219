"""Hardware counters in the analysis, on files the runner's own writer made with counters from a stated
model (runner/testing/counters_fixture.c; CI has no GPU): the HDF5 layout, every derived figure against the
model, the summary's counters table, the report's counters section with its plots, compare's counter
changes, and a damaged counters dataset refused."""
import io
import os
import re
import shutil
import subprocess
import tempfile
import unittest

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.image as mpimg  # noqa: E402
import numpy as np  # noqa: E402

from tilelab_analysis import SchemaError, load  # noqa: E402
from tilelab_analysis import counters  # noqa: E402

FIXTURE = os.path.join("runner", "testing", "counters_fixture")
TOOL = {n: os.path.join("analysis", n) for n in ("summary", "report", "compare")}
DATA = os.path.join("analysis", "testdata")


def sh(*cmd):
    return subprocess.run(list(cmd), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def text(v):
    return v.decode() if isinstance(v, bytes) else v


def param(params, name, default):
    for p in params.split(","):
        if p.startswith(name + "="):
            return int(p.split("=")[1])
    return default


class Counters(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        cls.copy = os.path.join(cls.tmp, "copy.h5")
        cls.sgemm = os.path.join(cls.tmp, "sgemm.h5")
        for out, yaml in ((cls.copy, "counters_copy.yaml"), (cls.sgemm, "counters_sgemm.yaml")):
            p = sh(FIXTURE, out, os.path.join(DATA, yaml))
            assert p.returncode == 0, p.stderr

    def test_layout(self):
        with h5py.File(self.sgemm, "r") as f:
            self.assertEqual(text(f.attrs["schema"]), "tilelab/1.16")
            for g in f["cases"].values():
                self.assertEqual(text(g.attrs["counters_status"]), "ok")
                self.assertEqual(int(g.attrs["counters_kernels"]), 1)
                c = g["counters"]
                self.assertEqual(c.dtype.names, ("name", "value", "unit"))
                names = [text(n) for n in c["name"]]
                self.assertIn(counters.CONFLICTS, names)
                self.assertEqual(text(c["unit"][names.index(counters.DRAM_READ)]), "byte")

    def test_copy_derived_figures_follow_the_model(self):
        df = load(self.copy)
        self.assertEqual(len(df), 10)
        for _, r in df.iterrows():
            s, o, n = param(r["params"], "S", 1), param(r["params"], "O", 0), 16777216
            w = min(s, 8)
            want_eff = 0.8 if o % 8 else 1 / w
            self.assertAlmostEqual(r["ld_sector_eff"], want_eff, places=12, msg=r["params"])
            self.assertAlmostEqual(r["ld_sector_eff"], counters.sector_model(s, o), places=12)
            dram = 4 * n * w / (0.8 if o % 8 else 1) + 4 * n
            self.assertAlmostEqual(r["dram_bytes"], dram, delta=1e-6 * dram)
            self.assertAlmostEqual(r["dram_vs_model"], dram / float(r["bytes"]), places=9)
            self.assertAlmostEqual(r["dram_gbs"], dram / (r["median_ms"] * 1e-3) / 1e9, places=6)
            self.assertAlmostEqual(r["dram_pct_peak"], 100 * r["dram_gbs"] / 3000, places=9)
            self.assertTrue(np.isnan(r["conflicts_per_request"]), "no shared-memory counters: NaN, not 0")

    def test_sgemm_derived_figures_follow_the_model(self):
        df = load(self.sgemm)
        for _, r in df.iterrows():
            m = n = k = int(r["sizes"].split(",")[0].split("=")[1])
            self.assertAlmostEqual(r["conflicts_per_request"], 2 if r["variant"] == "vectorized" else 0.02, places=12)
            self.assertAlmostEqual(r["counted_gflop"], (2 * m * n * k + m * n) * 1e-9, places=9)
            self.assertAlmostEqual(r["occupancy_pct"], 25)
            rate = r["counted_gflop"] / (r["median_ms"] * 1e-3)
            self.assertAlmostEqual(r["flop_pct_peak"], 100 * rate / 50000, places=9)
            self.assertAlmostEqual(r["ai_dram"], r["counted_gflop"] * 1e9 / r["dram_bytes"], places=9)

    def test_summary_prints_the_counters_table(self):
        p = sh(TOOL["summary"], self.copy)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("copy: hardware counters", p.stdout)
        self.assertIn("ld_sector_eff", p.stdout)
        row = [l for l in p.stdout.splitlines() if l.startswith("strided") and "S=32," in l and "ld" not in l]
        self.assertTrue(any(" 0.125 " in l for l in row), p.stdout)
        p = sh(TOOL["summary"], "--csv", self.sgemm)
        self.assertIn("conflicts_per_request", p.stdout.splitlines()[0])

    def test_report_has_the_counters_section_and_plots(self):
        base = os.path.join(self.tmp, "both")
        p = sh(TOOL["report"], self.copy, self.sgemm, "-o", base)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        with open(base + ".report.md") as f:
            md = f.read()
        section = md.split("## Hardware counters")[1].split("\n## ")[0]
        self.assertIn("roofline from the counters", section)
        self.assertIn("measured global-load sector efficiency", section)
        self.assertIn("conflicts_per_request", section)
        pngs = [re.search(r"\]\(([^()]*)\)$", l).group(1) for l in section.splitlines() if l.startswith("![")]
        self.assertGreaterEqual(len(pngs), 2)
        for rel in pngs:
            with open(os.path.join(self.tmp, rel), "rb") as f:
                img = mpimg.imread(io.BytesIO(f.read()), format="png")
            self.assertGreater(img.shape[0], 100)
            self.assertGreater(float(np.std(img)), 0.01, "a blank figure")

    def test_compare_shows_counter_changes(self):
        b = os.path.join(self.tmp, "sgemm_b.h5")
        shutil.copy(self.sgemm, b)
        with h5py.File(b, "r+") as f:  # counters are observations, not identity: edit them in place
            for g in f["cases"].values():
                if text(g.attrs["variant"]) != "vectorized":
                    continue
                c = g["counters"][()]
                names = [text(n) for n in c["name"]]
                i, j = names.index(counters.DRAM_READ), names.index(counters.DRAM_WRITE)
                total = c["value"][i] + c["value"][j]
                c["value"][i] = 0.52 * total - c["value"][j]
                c["value"][names.index(counters.CONFLICTS)] = 0
                g["counters"][...] = c
        p = sh(TOOL["compare"], self.sgemm, b)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        rows = [l for l in p.stdout.splitlines() if l.split()[1:2] == ["vectorized"]]
        self.assertEqual(len(rows), 2, p.stdout)
        for l in rows:
            self.assertIn("counters: bank conflicts -100%, DRAM bytes -48%", l)
        others = [l for l in p.stdout.splitlines() if l.split()[1:2] == ["cublas"]]
        self.assertTrue(others and all("counters:" not in l for l in others), "unchanged counters: nothing said")

    def test_readme_documents_every_derived_column(self):
        with open(os.path.join("analysis", "README.md")) as f:
            readme = f.read()
        for col, what in counters.DERIVED:
            self.assertIn("| `%s` | %s |" % (col, what), readme)

    def test_a_damaged_counters_dataset_is_refused(self):
        bad = os.path.join(self.tmp, "bad.h5")
        shutil.copy(self.copy, bad)
        with h5py.File(bad, "r+") as f:
            g = next(iter(f["cases"].values()))
            del g["counters"]
            g["counters"] = np.arange(3.0)
        with self.assertRaises(SchemaError) as cm:
            load(bad)
        self.assertIn("counters is not a list of (name, value, unit)", str(cm.exception))
        p = sh(TOOL["summary"], bad)
        self.assertEqual(p.returncode, 2)


if __name__ == "__main__":
    unittest.main()
