"""dispatch_table on a file the runner wrote (host target): per problem (sizes, layouts, dtype) the
verified cases of the kinds asked for, fastest first, each with its time over the fastest (rel=, those
within REL_KEEP), in the runner's table format with the file's device and provenance; no pickable
case, or files of two ops, is an error."""
import os
import re
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dispatch_table as dt  # noqa: E402
from tilelab_analysis.load import load  # noqa: E402

RUNNER = os.path.join("runner", "runner")
TOOL = os.path.join("analysis", "dispatch_table")

YAML = """name: tune
op: sgemm
seed: 3
dtype: [f32, bf16]
layout: {a: row, b: [row, col]}
sizes:
  - {mnk: 24}
  - {m: 40, n: 30, k: 21}
variants: [host_ikj, host_naive]
reference: host
measure: {warmup: 0, min_reps: 3, max_reps: 3}
"""
ROW = re.compile(r"^(m=\S+) (a=\S+) (\w+) (\w+) (\S+) rel=([0-9.]+)  # ([0-9.]+) ms$")


class DispatchTable(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        cls.h5 = cls.run_yaml("tune", YAML)

    @classmethod
    def run_yaml(cls, name, text):
        yaml, h5 = os.path.join(cls.tmp, name + ".yaml"), os.path.join(cls.tmp, name + ".h5")
        with open(yaml, "w") as f:
            f.write(text)
        p = subprocess.run([RUNNER, "run", yaml, "-o", h5, "-q"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True)
        assert p.returncode == 0, p.stdout
        return h5

    def tool(self, *args):
        return subprocess.run([TOOL, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def test_rows_per_problem_fastest_first(self):
        out = os.path.join(self.tmp, "t.table")
        p = self.tool(self.h5, "--kinds", "host", "-o", out)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertRegex(p.stdout, r"8 problems, \d+ rows -> %s" % re.escape(out))
        with open(out) as f:
            lines = f.read().splitlines()
        self.assertIn("op sgemm", lines)
        self.assertIn("device host", lines)
        self.assertTrue(any(l.startswith("measured ") and self.h5 in l and "(experiment tune)" in l for l in lines))
        rows = [ROW.match(l) for l in lines if l.startswith("m=")]
        self.assertTrue(all(rows), [l for l in lines if l.startswith("m=") and not ROW.match(l)])
        df = load(self.h5)
        by_problem = {}
        for r in rows:
            sizes, layouts, dtype, variant, params, rel, ms = r.groups()
            self.assertEqual(params, "-")
            by_problem.setdefault((sizes, layouts, dtype), []).append((variant, float(rel), float(ms)))
        self.assertEqual(len(by_problem), 8)  # 2 sizes x 2 layouts of b x 2 dtypes
        for (sizes, layouts, dtype), got in by_problem.items():
            g = df[(df["sizes"] == sizes) & (df["layouts"] == layouts) & (df["dtype"] == dtype)]
            best = g["median_ms"].min()
            want = sorted((m, v) for v, m in zip(g["variant"], g["median_ms"]) if m / best <= dt.REL_KEEP)
            self.assertEqual([v for v, _, _ in got], [v for _, v in want], (sizes, layouts, dtype))
            self.assertEqual(got[0][1], 1.0)
            for (variant, rel, ms), (m, _) in zip(got, want):
                self.assertAlmostEqual(ms, m, delta=0.00006)
                self.assertAlmostEqual(rel, m / best, delta=0.0006)

    def test_the_runner_reads_the_table(self):
        # The tool's format is the runner's: its f32 rows, with the host rungs renamed to compiled ones
        # (a table names compiled rungs), are what `tuned` runs in a validate of another folder's
        # experiment.
        out = os.path.join(self.tmp, "r.table")
        self.assertEqual(self.tool(self.h5, "--kinds", "host", "-o", out).returncode, 0)
        with open(out) as f:
            lines = [l.replace(" host_ikj ", " naive ").replace(" host_naive ", " gmem_coalesced ")
                     for l in f.read().splitlines() if not l.startswith("m=") or " f32 " in l]
        folder = tempfile.mkdtemp(dir=self.tmp)
        with open(os.path.join(folder, "mine.table"), "w") as f:
            f.write("\n".join(lines) + "\n")
        y = os.path.join(folder, "t.yaml")
        with open(y, "w") as f:
            f.write("name: t\nop: sgemm\nseed: 1\nsizes: [{mnk: [24, 30]}, {m: 40, n: 30, k: 21}]\n"
                    "layout: {a: row, b: col}\nvariants: [{name: tuned, table: mine.table}]\n")
        p = subprocess.run([RUNNER, "validate", y], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        m = re.search(r"tuned: table \S*mine.table \((\d+) rows;.*its cases run:(.*)", p.stdout)
        self.assertIsNotNone(m, p.stdout)
        self.assertEqual(int(m.group(1)), sum(1 for l in lines if l.startswith("m=")))
        runs = dict((v, int(n)) for v, n in re.findall(r" (\w+) x (\d+)", m.group(2)))
        self.assertEqual(sum(runs.values()), 3, runs)
        self.assertLessEqual(set(runs), {"naive", "gmem_coalesced"})
        # And table-check predicts each of its problems from the others.
        p = subprocess.run([RUNNER, "table-check", os.path.join(folder, "mine.table")], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("mine.table: 4 measured problems (op sgemm; device host;", p.stdout)
        picks = re.findall(r"^  m=\S+ +a=row,b=(?:row|col) +f32 +([0-9.]+|> 1.5) +(naive|gmem_coalesced) ", p.stdout, re.M)
        self.assertEqual(len(picks), 4, p.stdout)
        self.assertRegex(p.stdout, r"geometric mean [0-9.]+ x the fastest .*; \d+ of 4 above 1.2")
        bad = subprocess.run([RUNNER, "table-check", os.path.join(folder, "t.yaml")], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        self.assertEqual(bad.returncode, 2)
        self.assertIn("does not name an op of this runner", bad.stderr)
        # --against: its picks on another table's problems; against itself every problem is one it
        # measured, so each gets its own fastest (rel 1).
        mine = os.path.join(folder, "mine.table")
        p = subprocess.run([RUNNER, "table-check", mine, "--against", mine], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("mine.table: its picks (op sgemm; device host;", p.stdout)
        self.assertIn("on the 4 problems of %s" % mine, p.stdout)
        self.assertEqual(re.findall(r"^  m=\S+ +a=row,b=(?:row|col) +f32 +(\S+) ", p.stdout, re.M), ["1.000"] * 4)
        self.assertRegex(p.stdout, r"geometric mean 1.000 x the fastest \(0 picks the held-out table has no row")
        other = os.path.join(folder, "copy.table")
        with open(other, "w") as f:
            f.write("op copy\n")
        for args, want in (([mine, "--against", other], "copy.table: a table of op copy, the table it checks is of "
                                                          "op sgemm"),
                           ([mine, "--against"], "unknown or incomplete option '--against'"),
                           ([mine, mine], "usage: table-check TABLE [--against HELD_OUT_TABLE]"),
                           ([mine, "--against", os.path.join(folder, "none.table")], "none.table")):
            bad = subprocess.run([RUNNER, "table-check"] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True)
            self.assertEqual(bad.returncode, 2, args)
            self.assertIn(want, bad.stderr, args)

    def test_a_progress_line_per_file_read(self):
        # Tuning shards take minutes each to read: a line as each is in; -q for none. The table is the
        # same either way (the two files hold the same cases: each candidate once, its faster run).
        second = os.path.join(self.tmp, "second.h5")
        with open(self.h5, "rb") as f, open(second, "wb") as g:
            g.write(f.read())
        outs = []
        for quiet in ([], ["-q"]):
            out = os.path.join(self.tmp, "p%d.table" % len(quiet))
            p = self.tool(self.h5, second, "--kinds", "host", "-o", out, *quiet)
            self.assertEqual(p.returncode, 0, p.stderr)
            lines = p.stderr.splitlines()
            if quiet:
                self.assertEqual(lines, [])
            else:
                self.assertEqual(len(lines), 2, lines)
                for path in (self.h5, second):
                    self.assertEqual(sum(bool(re.fullmatch(r"dispatch_table: read %s \(16 cases\), [12] of 2 files, \d+ s"
                                                           % re.escape(path), l)) for l in lines), 1, lines)
            with open(out) as f:
                outs.append(f.read().split("\n", 5)[5])  # past the header, which names the files
        self.assertEqual(outs[0], outs[1])

    def test_nothing_to_pick_is_an_error(self):
        p = self.tool(self.h5)  # nvrtc by default: the host file has none
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("no verified case of a nvrtc variant to pick", p.stderr)

    def test_validate_says_what_tuned_runs(self):
        # The registry's table, without a GPU: which rung each case of `tuned` would run.
        y = os.path.join(self.tmp, "tuned.yaml")
        with open(y, "w") as f:
            f.write("name: t\nop: sgemm\nseed: 1\nsizes: [{mnk: [1024, 4096]}, {m: 512, n: 512, k: 8192}]\n"
                    "variants: [tuned]\n")
        p = subprocess.run([RUNNER, "validate", y], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        m = re.search(r"tuned: table kernels/sgemm/tuned_h100.table \((\d+) rows; device ([^;]+);.*its cases run:(.*)",
                      p.stdout)
        self.assertIsNotNone(m, p.stdout)
        self.assertIn("H100", m.group(2))
        runs = dict((v, int(n)) for v, n in re.findall(r" (\w+) x (\d+)", m.group(3)))
        self.assertEqual(sum(runs.values()), 3, runs)

    def test_add_to_scales_a_problem_to_its_new_fastest(self):
        # New candidates' rel is their time over the anchor's (the table's fastest there); a problem
        # where one is faster is scaled so that it stands at 1, and rows past REL_KEEP go; a candidate
        # the table had takes its new row; problems the files lack keep their rows as they were.
        import pandas as pd
        table = "\n".join([
            "op sgemm", "device dev", "measured then", "# sizes layouts dtype variant params rel",
            "m=64,n=64,k=64 a=row,b=row f32 hopper - rel=1.000 # 1.0000 ms",
            "m=64,n=64,k=64 a=row,b=row f32 packed - rel=1.200 # 1.2000 ms",
            "m=64,n=64,k=64 a=row,b=row f32 tf32x3 BM=64 rel=1.400 # 1.4000 ms",
            "m=96,n=64,k=64 a=row,b=row f32 hopper - rel=1.000 # 2.0000 ms",
            "m=128,n=64,k=64 a=row,b=row f32 hopper - rel=1.000 # 3.0000 ms", ""])
        rows = [("m=64,n=64,k=64", "tuned", "", 1.0, "nvrtc", "x"), ("m=64,n=64,k=64", "tf32x3", "BM=64", 0.8, "nvrtc", ""),
                ("m=64,n=64,k=64", "tf32x3", "BM=128", 1.6, "nvrtc", ""),
                ("m=64,n=64,k=64", "cublas", "", 0.9, "library", ""),
                ("m=96,n=64,k=64", "tuned", "", 2.0, "nvrtc", "x"), ("m=96,n=64,k=64", "tf32x3", "BM=64", 2.5, "nvrtc", ""),
                ("m=96,n=64,k=64", "tf32x3", "BM=128", 3.2, "nvrtc", ""),
                ("m=128,n=64,k=64", "tf32x3", "BM=64", 0.1, "nvrtc", ""),  # no anchor: not added
                ("m=32,n=32,k=32", "tuned", "", 1.0, "nvrtc", "x")]        # not in the table
        df = pd.DataFrame([{"sizes": z, "layouts": "a=row,b=row", "dtype": "f32", "variant": v, "params": p,
                            "status": "ok", "median_ms": t, "kind": k, "dispatch": d, "variant_origin": "tilelab"}
                           for z, v, p, t, k, d in rows])
        text, anchors, added, faster = dt.add_rows(table, df, "tuned", ["nvrtc"], "dev", "now f.h5 (experiment add)")
        self.assertEqual((anchors, added, faster), (2, 2, 1))
        lines = text.splitlines()
        self.assertEqual(lines[:3], ["op sgemm", "device dev", "measured then"])
        self.assertEqual(lines[3], "# Also, now f.h5 (experiment add): 2 of the table's problems measured against "
                                   "tuned (trials 1, the table's fastest row there), 2 rows added, 1 problems whose "
                                   "fastest row is new")
        self.assertEqual(lines[4], "# sizes layouts dtype variant params rel")
        self.assertEqual([l.split("#")[0].strip() for l in lines[5:]], [
            "m=64,n=64,k=64 a=row,b=row f32 tf32x3 BM=64 rel=1.000",
            "m=64,n=64,k=64 a=row,b=row f32 hopper - rel=1.250",
            "m=64,n=64,k=64 a=row,b=row f32 packed - rel=1.500",   # 1.2 / 0.8; BM=128's 2.0 goes
            "m=96,n=64,k=64 a=row,b=row f32 hopper - rel=1.000",
            "m=96,n=64,k=64 a=row,b=row f32 tf32x3 BM=64 rel=1.250",
            "m=128,n=64,k=64 a=row,b=row f32 hopper - rel=1.000"])  # m=96's BM=128, 1.6, goes
        self.assertIn("# 0.8000 ms, 1.125 x cublas", lines[5])
        self.assertIn("# 1.0000 ms", lines[6])  # an old row keeps what its own run measured
        # A candidate measured again takes its new row, and when that was the fastest and is now slower,
        # the problem's new fastest stands at 1.
        again = pd.DataFrame([{"sizes": "m=96,n=64,k=64", "layouts": "a=row,b=row", "dtype": "f32", "variant": v,
                               "params": p, "status": "ok", "median_ms": t, "kind": "nvrtc", "dispatch": d,
                               "variant_origin": "tilelab"}
                              for v, p, t, d in (("tuned", "", 2.0, "hopper - (t:4)"), ("hopper", "", 2.6, ""))])
        text, _, added, faster = dt.add_rows(text, again, "tuned", ["nvrtc"], "dev", "later")
        self.assertEqual((added, faster), (1, 0))
        rows96 = [l.split("#")[0].strip() for l in text.splitlines() if l.startswith("m=96,")]
        self.assertEqual(rows96, ["m=96,n=64,k=64 a=row,b=row f32 tf32x3 BM=64 rel=1.000",
                                  "m=96,n=64,k=64 a=row,b=row f32 hopper - rel=1.040"])  # 1.3 / 1.25
        with self.assertRaises(SystemExit) as e:
            dt.add_rows(table, df, "tuned", ["nvrtc"], "other dev", "now")
        self.assertIn("the table was measured on dev, the files on other dev", str(e.exception))
        with self.assertRaises(SystemExit) as e:
            dt.add_rows(table, df, "hopper", ["nvrtc"], "dev", "now")
        self.assertIn("no case of hopper at the table's problems", str(e.exception))

    def test_add_to_anchored_on_the_library(self):
        # --anchor cublas: the library's time now over its speed against the problem's fastest row in that
        # row's note is the fastest row's time now; a problem whose fastest row has no such note, or a note
        # of another library, is left as it was.
        import pandas as pd
        table = "\n".join([
            "op sgemm", "device dev", "# sizes layouts dtype variant params rel",
            "m=64,n=64,k=64 a=row,b=row f32 hopper - rel=1.000  # 1.0000 ms, 0.800 x cublas",
            "m=64,n=64,k=64 a=row,b=row f32 packed - rel=1.300  # 1.3000 ms, 0.615 x cublas",
            "m=96,n=64,k=64 a=row,b=row f32 hopper - rel=1.000  # 2.0000 ms",
            "m=128,n=64,k=64 a=row,b=row f32 hopper - rel=1.000  # 3.0000 ms, 1.000 x other", ""])
        rows = [("m=64,n=64,k=64", "cublas", "", 1.6, "library"),   # twice then: the fastest row is 2.0 now
                ("m=64,n=64,k=64", "tf32x3", "BM=64", 1.5, "nvrtc"),
                ("m=64,n=64,k=64", "tf32x3", "BM=128", 3.2, "nvrtc"),
                ("m=96,n=64,k=64", "cublas", "", 1.0, "library"), ("m=96,n=64,k=64", "tf32x3", "BM=64", 0.1, "nvrtc"),
                ("m=128,n=64,k=64", "cublas", "", 1.0, "library"),
                ("m=128,n=64,k=64", "tf32x3", "BM=64", 0.1, "nvrtc")]
        df = pd.DataFrame([{"sizes": z, "layouts": "a=row,b=row", "dtype": "f32", "variant": v, "params": p,
                            "status": "ok", "median_ms": t, "kind": k, "dispatch": "", "variant_origin": "tilelab"}
                           for z, v, p, t, k in rows])
        text, anchors, added, faster = dt.add_rows(table, df, "cublas", ["nvrtc"], "dev", "now f.h5")
        self.assertEqual((anchors, added, faster), (1, 1, 1))
        lines = text.splitlines()
        self.assertEqual(lines[2], "# Also, now f.h5: 1 of the table's problems measured against cublas (its speed "
                                   "against the fastest row in the table's notes), 1 rows added, 1 problems whose "
                                   "fastest row is new")
        self.assertEqual([l.split("#")[0].strip() for l in lines[4:]], [
            "m=64,n=64,k=64 a=row,b=row f32 tf32x3 BM=64 rel=1.000",   # 1.5 against the fastest's 2.0 now
            "m=64,n=64,k=64 a=row,b=row f32 hopper - rel=1.333",       # packed (1.733) and BM=128 (2.133) go
            "m=96,n=64,k=64 a=row,b=row f32 hopper - rel=1.000",        # no note: as it was
            "m=128,n=64,k=64 a=row,b=row f32 hopper - rel=1.000"])      # another library's note: as it was
        self.assertIn("# 1.5000 ms, 1.067 x cublas", lines[4])
        with self.assertRaises(SystemExit) as e:  # no problem has the note: nothing to anchor on
            dt.add_rows(table.replace(", 0.800 x cublas", ""), df, "cublas", ["nvrtc"], "dev", "now")
        self.assertIn("no case of cublas at the table's problems whose fastest row's note has its speed",
                      str(e.exception))

    def test_add_to_new_problems(self):
        # --new-problems: a problem the table lacks joins it with its own rows, fastest first at rel 1 (its
        # note against the library there), after the table's; one with no pickable case adds nothing.
        # Without the flag such problems are left out, and with it files that bring neither an anchor nor
        # a new problem are an error.
        import pandas as pd
        table = "\n".join([
            "op sgemm", "device dev", "# sizes layouts dtype variant params rel",
            "m=64,n=64,k=64 a=row,b=row f32 hopper - rel=1.000  # 1.0000 ms, 0.800 x cublas", ""])
        rows = [("m=64,n=64,k=64", "cublas", "", 0.8, "library"),       # the anchor: the fastest still 1.0
                ("m=64,n=64,k=64", "packed", "", 1.2, "nvrtc"),
                ("m=4096,n=4096,k=60", "cublas", "", 2.0, "library"),
                ("m=4096,n=4096,k=60", "packed", "BM=32", 2.5, "nvrtc"),
                ("m=4096,n=4096,k=60", "hopper", "", 2.0, "nvrtc"),
                ("m=4096,n=4096,k=60", "tf32x3", "", 4.0, "nvrtc"),        # past REL_KEEP: no row
                ("m=999,n=999,k=99", "cublas", "", 1.0, "library")]        # nothing to pick: not added
        df = pd.DataFrame([{"sizes": z, "layouts": "a=row,b=row", "dtype": "f32", "variant": v, "params": p,
                            "status": "ok", "median_ms": t, "kind": k, "dispatch": "", "variant_origin": "tilelab"}
                           for z, v, p, t, k in rows])
        plain, _, added, _ = dt.add_rows(table, df, "cublas", ["nvrtc"], "dev", "now")
        self.assertEqual(added, 1)
        self.assertNotIn("k=60", plain)
        text, anchors, added, faster = dt.add_rows(table, df, "cublas", ["nvrtc"], "dev", "now f.h5", True)
        self.assertEqual((anchors, added, faster), (1, 3, 1))
        lines = text.splitlines()
        self.assertEqual(lines[2], "# Also, now f.h5: 1 of the table's problems measured against cublas (its speed "
                                   "against the fastest row in the table's notes), 3 rows added, 1 problems whose "
                                   "fastest row is new, and 1 problems the table had not measured, each with the "
                                   "rows of every candidate the files ran there (2 rows)")
        self.assertEqual([l.split("#")[0].strip() for l in lines[4:]], [
            "m=64,n=64,k=64 a=row,b=row f32 hopper - rel=1.000",
            "m=64,n=64,k=64 a=row,b=row f32 packed - rel=1.200",
            "m=4096,n=4096,k=60 a=row,b=row f32 hopper - rel=1.000",
            "m=4096,n=4096,k=60 a=row,b=row f32 packed BM=32 rel=1.250"])
        self.assertTrue(lines[6].endswith("# 2.0000 ms, 1.000 x cublas"), lines[6])
        self.assertEqual(dt.table_problems(text), {("m=64,n=64,k=64", "a=row,b=row", "f32"),
                                                   ("m=4096,n=4096,k=60", "a=row,b=row", "f32")})
        # Only new problems (no anchor at the table's): added all the same; neither: an error that says so.
        new_only = df[df["sizes"] != "m=64,n=64,k=64"]
        text, anchors, added, _ = dt.add_rows(table, new_only, "cublas", ["nvrtc"], "dev", "now", True)
        self.assertEqual((anchors, added), (0, 2))
        with self.assertRaises(SystemExit) as e:
            dt.add_rows(table, df[df["sizes"] == "m=999,n=999,k=99"], "cublas", ["nvrtc"], "dev", "now", True)
        self.assertIn("no case of cublas at the table's problems whose fastest row's note has its speed, nor a "
                      "problem the table lacks", str(e.exception))

    def test_add_to_from_a_result_file(self):
        # The command line on a host file: host_naive as the anchor (at its own row's rel, which is not 1
        # where host_ikj was the faster), host_ikj's rows taken anew against it: the same rels again.
        base = os.path.join(self.tmp, "base.table")
        self.assertEqual(self.tool(self.h5, "--kinds", "host", "-o", base, "-q").returncode, 0)
        out = os.path.join(self.tmp, "added.table")
        p = self.tool(self.h5, "--add-to", base, "--anchor", "host_naive", "--kinds", "host", "-o", out)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertRegex(p.stderr, r"dispatch_table: --add-to %s: 8 problems with host_naive, \d+ rows added" %
                         re.escape(base))
        with open(out) as f:
            lines = f.read().splitlines()
        self.assertTrue(any(l.startswith("# Also, ") and "(experiment tune): 8 of the table's problems" in l
                            for l in lines), lines[:6])
        df = load(self.h5)
        for (sizes, layouts, dtype), g in df.groupby(["sizes", "layouts", "dtype"]):
            t = dict(zip(g["variant"], g["median_ms"]))
            fastest = min(t.values())
            got = {l.split()[3]: float(l.split("rel=")[1].split()[0]) for l in lines
                   if l.startswith("%s %s %s " % (sizes, layouts, dtype))}
            for v, ms in t.items():
                if ms / fastest <= dt.REL_KEEP:
                    self.assertAlmostEqual(got[v], ms / fastest, delta=0.0011, msg=(sizes, layouts, dtype, v))
        # --new-problems from the command line: a table of the file's f32 problems alone takes its bf16 ones,
        # each with the rows a table of the whole file gives it.
        with open(base) as f:
            whole = f.read().splitlines()
        f32 = os.path.join(self.tmp, "f32.table")
        with open(f32, "w") as f:
            f.write("\n".join(l for l in whole if " bf16 " not in l) + "\n")
        p = self.tool(self.h5, "--add-to", f32, "--anchor", "host_naive", "--kinds", "host", "--new-problems",
                      "-o", out)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("; 4 problems the table lacked", p.stderr)
        self.assertIn("8 problems, ", p.stdout)
        with open(out) as f:
            bf16 = [l.split("#")[0].strip() for l in f.read().splitlines() if " bf16 " in l and not l.startswith("#")]
        self.assertEqual(bf16, [l.split("#")[0].strip() for l in whole if " bf16 " in l and not l.startswith("#")])
        p = self.tool(self.h5, "--add-to", os.path.join(self.tmp, "none.table"), "--kinds", "host")
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("none.table: No such file", p.stderr)

    def test_files_of_two_ops_are_refused(self):
        other = self.run_yaml("copy", "name: c\nop: copy\nseed: 1\nsizes: {n: 1024}\nvariants: [host_memcpy]\n"
                                      "measure: {warmup: 0, min_reps: 3, max_reps: 3}\n")
        p = self.tool(self.h5, other, "--kinds", "host")
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("a table is of one op", p.stderr)


if __name__ == "__main__":
    unittest.main()
