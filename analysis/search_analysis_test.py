"""Searches and energy in the analysis, on files the runner made on the host target (copy's
host_landscape_for_tests with simulated times, and an energy counter stand-in): load() carries each case's
search step, objective and best, its energy, power and work a joule; the search table names the best point
and when it was found; summary and the report show the searches (the report with a progress figure that
decodes); the T4 export validates against Kernel Tuner's published T4 schema (tools/setup.sh unpacks it from
the pinned wheel) and marks a failed case as one; dispatch_table takes a file a search made."""
import json
import os
import subprocess
import tempfile
import unittest

import jsonschema
import matplotlib

matplotlib.use("Agg")
import matplotlib.image as mpimg  # noqa: E402
import numpy as np  # noqa: E402

from tilelab_analysis import load, search, t4  # noqa: E402

RUNNER = os.path.join("runner", "runner")
TOOL = {n: os.path.join("analysis", n) for n in ("summary", "report", "t4", "dispatch_table")}
SCHEMA = os.path.join("external", "t4_schema", "T4", "1.0.0")
YAML = """name: ls
op: copy
seed: 5
sizes: {n: [4096, 8192]}
variants:
  - host_memcpy
  - name: host_landscape_for_tests
    params: {X: {range: [0, 7, 1]}, Y: {range: [0, 7, 1]}, Z: {range: [0, 7, 1]}, W: [0, 1, 2, 3]}
search: {strategy: local, budget: {cases: 30}, seed: 4}
measure: {warmup: 1, min_reps: 3, max_reps: 3, l2_flush: false, energy_s: 0.2}
"""


def sh(*cmd, **kw):
    return subprocess.run(list(cmd), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


class SearchAnalysis(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        yaml = os.path.join(cls.tmp, "ls.yaml")
        with open(yaml, "w") as f:
            f.write(YAML)
        cls.h5 = os.path.join(cls.tmp, "ls.h5")
        env = dict(os.environ, TILELAB_TEST_HOST_TIMING="1:0.02:11", TILELAB_TEST_HOST_ENERGY_W="50")
        p = sh(RUNNER, "run", yaml, "-o", cls.h5, "-q", env=env)
        assert p.returncode in (0, 1), p.stderr
        cls.df = load(cls.h5)

    def test_load_carries_steps_and_energy(self):
        d = search.searched(self.df)
        self.assertEqual(len(d), 60)
        for _, g in d.groupby("sizes"):
            self.assertEqual(sorted(g["search_step"]), list(range(1, 31)))
        ok = self.df[self.df["status"] == "ok"]
        self.assertTrue((ok["energy_j"] > 0).all())
        self.assertTrue(np.allclose(ok["per_joule"], ok["bytes"] / 1e9 / ok["energy_j"]))
        self.assertTrue((ok["energy_power_w"].between(20, 80)).all(), ok["energy_power_w"].tolist())

    def test_the_search_table_names_the_best_point(self):
        t = search.table(self.df)
        self.assertEqual(len(t), 2)
        d = search.searched(self.df)
        for _, row in t.iterrows():
            g = d[(d["sizes"] == row["sizes"]) & (d["status"] == "ok")]
            best = g.loc[g["search_objective"].astype(float).idxmin()]
            self.assertEqual(row["best_params"], best["params"])
            self.assertEqual(row["found_at"], best["search_step"])
            self.assertEqual(row["strategy"], "local")
            self.assertEqual(row["evaluated"], 30)
            self.assertLessEqual(row["found_after_s"], row["seconds"])

    def test_summary_and_report_show_the_searches(self):
        p = sh(TOOL["summary"], self.h5)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("Searches: per problem and variant", p.stdout)
        self.assertIn("energy (J a run)", p.stdout)
        self.assertIn("GB a J", p.stdout)
        base = os.path.join(self.tmp, "rep")
        p = sh(TOOL["report"], self.h5, "-o", base)
        self.assertEqual(p.returncode, 0, p.stderr)
        md = open(base + ".report.md").read()
        self.assertIn("## Searches", md)
        self.assertIn("found at evaluation", md)
        pngs = [os.path.join(base + ".report_files", f) for f in os.listdir(base + ".report_files")]
        self.assertIn("the best objective so far against evaluations", md)
        for png in pngs:
            self.assertGreater(mpimg.imread(png).shape[0], 100)

    def test_t4_export_validates_against_kernel_tuners_schema(self):
        out = os.path.join(self.tmp, "ls.t4.json")
        p = sh(TOOL["t4"], self.h5, "-o", out)
        self.assertEqual(p.returncode, 0, p.stderr)
        results, meta = json.load(open(out)), json.load(open(out[:-5] + ".metadata.json"))
        for doc, name in ((results, "results-schema.json"), (meta, "metadata-schema.json")):
            schema = json.load(open(os.path.join(SCHEMA, name)))
            jsonschema.Draft202012Validator(schema).validate(doc)
        self.assertEqual(len(results["results"]), len(self.df))
        byconf = {json.dumps(r["configuration"], sort_keys=True): r for r in results["results"]}
        for _, row in self.df.iterrows():
            conf = dict(t4._params(row["params"]), variant=row["variant"], layouts=row["layouts"], dtype=row["dtype"],
                        n=int(row["n"]))
            r = byconf[json.dumps(conf, sort_keys=True)]
            self.assertEqual(r["invalidity"], t4.INVALIDITY[row["status"]])
            if row["status"] == "ok":
                self.assertAlmostEqual(r["measurements"][0]["value"], row["median_ms"])
                self.assertEqual(len(r["times"]["runtimes"]), 3)
        # A result the schema rejects is caught: the test is not vacuous.
        bad = dict(results, results=[dict(results["results"][0], invalidity="fine")])
        with self.assertRaises(jsonschema.ValidationError):
            jsonschema.Draft202012Validator(json.load(open(os.path.join(SCHEMA, "results-schema.json")))).validate(bad)

    def test_dispatch_table_takes_a_searched_file(self):
        out = os.path.join(self.tmp, "ls.table")
        p = sh(TOOL["dispatch_table"], self.h5, "-o", out, "--kinds", "host", "-q")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("host_landscape_for_tests", open(out).read())


if __name__ == "__main__":
    unittest.main()
