"""End to end on the host target: the runner writes a tilelab/1 file that h5py reads, with every
group, attribute and sample a user relies on; bad input exits 2 and writes nothing."""
import hashlib
import os
import subprocess
import tempfile
import unittest

import h5py
import numpy as np

RUNNER = os.path.join("runner", "runner")
SMOKE = os.path.join("experiments", "host_smoke.yaml")


def run(*args):
    return subprocess.run([RUNNER, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def text(v):
    return v.decode() if isinstance(v, bytes) else v


class HostSmoke(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        cls.path = os.path.join(cls.tmp, "smoke.h5")
        cls.proc = run(SMOKE, "-o", cls.path)

    def test_exit_code_and_table(self):
        self.assertEqual(self.proc.returncode, 0, self.proc.stderr)
        self.assertIn("host_ikj", self.proc.stdout)
        self.assertIn("results: " + self.path, self.proc.stdout)

    def test_each_progress_line_tells_its_case_apart(self):
        """The progress lines name what the closing table does: variant, size and layouts (host_smoke runs each
        size with b row- and column-major, so without the layouts two lines would read the same)."""
        lines = [l for l in self.proc.stderr.splitlines() if l.startswith("[")]
        self.assertEqual(len(lines), 12, self.proc.stderr)
        keys = [tuple(l.split("]", 1)[1].split()[:4]) for l in lines]  # variant, params ("-": none), size, layout
        self.assertEqual(len(set(keys)), 12, keys)
        self.assertEqual({k[1] for k in keys}, {"-"})
        self.assertEqual({k[3] for k in keys}, {"a=row,b=row", "a=row,b=col"})
        # Columns as wide as the run's widest text: the status begins at one place on every line.
        self.assertEqual(len({l.index(" ok ") for l in lines}), 1, lines)

    def test_root_provenance(self):
        with open(SMOKE, "rb") as f:
            raw = f.read()
        with h5py.File(self.path, "r") as f:
            a = {k: text(v) for k, v in f.attrs.items()}
        self.assertEqual(a["schema"], "tilelab/1.16")
        self.assertEqual(a["experiment"], "host_smoke")
        self.assertEqual(a["config_yaml"], raw.decode())
        self.assertEqual(a["config_sha256"], hashlib.sha256(raw).hexdigest())
        for key in ("tilelab_version", "git_commit", "created_utc", "host", "argv", "protocol", "tolerance",
                    "tolerance_rule", "config_path", "reference", "verify", "data"):
            self.assertTrue(a[key], key)
        self.assertEqual(a["verify"], "once")
        self.assertEqual(a["data"], "uniform")
        self.assertGreater(float(a["wall_s"]), float(a["timed_s"]))
        # One session: this run, on this machine, with the run's totals; every case points at it.
        with h5py.File(self.path, "r") as f:
            self.assertEqual(list(f["sessions"]), ["0"])
            s = {k: text(v) for k, v in f["sessions/0"].attrs.items()}
            self.assertEqual(s["argv"], a["argv"])
            self.assertEqual(s["shard"], "")
            self.assertEqual(s["resumed"], 0)
            self.assertEqual(s["wall_s"], a["wall_s"])
            self.assertEqual(text(f["sessions/0/env"].attrs["host"]), text(f["env"].attrs["host"]))
            self.assertEqual({text(f["cases"][c].attrs["session"]) for c in f["cases"]}, {0})
        # Nothing is left beside the file once the run is over.
        self.assertEqual([n for n in os.listdir(self.tmp) if n.startswith(".")], [])
        self.assertGreater(float(a["timed_s"]), 0)
        self.assertIn(self.path, a["argv"])
        self.assertIn(int(a["git_dirty"]), (0, 1))

    def test_env(self):
        with h5py.File(self.path, "r") as f:
            env = dict(f["env"].attrs)
        self.assertTrue(text(env["host"]))
        self.assertTrue(text(env["cpu"]))
        self.assertTrue(text(env["build_compiler"]))
        self.assertGreater(int(env["cpus"]), 0)
        self.assertGreater(int(env["host_mem_bytes"]), 0)
        self.assertEqual(int(env["have_gpu"]), 0)
        self.assertIn("host target", text(env["nvml"]))

    def test_cases_and_samples(self):
        with h5py.File(self.path, "r") as f:
            protocol = dict(kv.split("=") for kv in text(f.attrs["protocol"]).split(";"))
            lo, hi = int(protocol["min_reps"]), int(protocol["max_reps"])
            rtol = float(text(f.attrs["tolerance"]).split(";")[0].split("=")[1])
            cases = f["cases"]
            # 3 sizes x 2 layouts of b x 2 variants
            self.assertEqual(len(cases), 12)
            variants = set()
            for cid, g in cases.items():
                a = {k: text(v) for k, v in g.attrs.items()}
                self.assertEqual(a["case_id"], cid)
                self.assertEqual(hashlib.sha256(a["canonical"].encode()).hexdigest()[:16], cid)
                self.assertEqual(a["status"], "ok", a["reason"])
                self.assertEqual(a["target"], "host")
                self.assertEqual(a["seed"], 7)
                self.assertLess(a["max_rel_err"], rtol)
                self.assertEqual(a["alpha"], 1.5)
                self.assertEqual(a["beta"], 0.5)
                m, n, k = (int(x) for x in g.attrs["dims"])
                self.assertEqual(a["flop"], 2.0 * m * n * k)
                t = g["time_ms"][()]
                self.assertEqual(t.dtype, np.float64)
                self.assertTrue(lo <= len(t) <= hi, len(t))
                self.assertTrue(np.all(t > 0))
                self.assertIn(a["stopped"], ("noise", "max_reps", "max_time"))
                for key in ("protocol", "tolerance", "reference", "verify", "data", "layouts", "dtype", "kind"):
                    self.assertTrue(a[key], key)
                self.assertEqual(a["reference"], "host")
                self.assertEqual(a["baseline"], "cublas")  # the op's first library variant (schema 1.16)
                self.assertGreaterEqual(int(a["warmup_runs"]), 1)
                self.assertAlmostEqual(float(a["timed_s"]), float(t.sum()) * 1e-3, places=12)
                self.assertEqual(a["regs"], -1)  # not a compiled kernel
                variants.add(a["variant"])
            self.assertEqual(variants, {"host_naive", "host_ikj"})

    def test_summary_matches_samples(self):
        with h5py.File(self.path, "r") as f:
            rows = f["summary"][()]
            self.assertEqual(len(rows), len(f["cases"]))
            for row in rows:
                g = f["cases"][text(row["case_id"])]
                t = g["time_ms"][()]
                self.assertEqual(int(row["reps"]), len(t))
                self.assertAlmostEqual(float(row["median_ms"]), float(np.median(t)), places=12)
                self.assertAlmostEqual(float(row["mean_ms"]), float(np.mean(t)), places=12)
                self.assertAlmostEqual(float(row["min_ms"]), float(np.min(t)), places=12)
                self.assertAlmostEqual(float(row["p90_ms"]), float(np.percentile(t, 90)), places=12)
                self.assertAlmostEqual(float(row["gflops"]), g.attrs["flop"] / (np.median(t) * 1e-3) / 1e9, places=6)

    def test_rerun_reproduces_case_ids(self):
        again = os.path.join(self.tmp, "again.h5")
        p = run("rerun", self.path, "-o", again, "-q")
        self.assertEqual(p.returncode, 0, p.stderr)
        with h5py.File(self.path, "r") as a, h5py.File(again, "r") as b:
            self.assertEqual(sorted(a["cases"]), sorted(b["cases"]))
            self.assertEqual(text(b.attrs["config_yaml"]), text(a.attrs["config_yaml"]))
            self.assertEqual(text(b.attrs["config_sha256"]), text(a.attrs["config_sha256"]))
            self.assertTrue(text(b.attrs["rerun_of"]).startswith(self.path))

    def test_rerun_of_a_non_result_file(self):
        p = run("rerun", SMOKE)
        self.assertEqual(p.returncode, 2)
        self.assertIn("not a readable HDF5 file", p.stderr)

    def test_never_overwrites(self):
        before = os.path.getmtime(self.path)
        p = run(SMOKE, "-o", self.path)
        self.assertEqual(p.returncode, 2)
        self.assertIn("exists; result files are never overwritten", p.stderr)
        self.assertEqual(os.path.getmtime(self.path), before)


def write(tmp, name, body):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(body)
    return path


class Modes(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))

    def cases(self, path):
        with h5py.File(path, "r") as f:
            return [{k: text(v) for k, v in g.attrs.items()} for g in f["cases"].values()]

    def test_int_data_is_exact(self):
        y = write(self.tmp, "int.yaml", "name: i\nop: sgemm\nseed: 3\ndata: int\nargs: {alpha: 1.5, beta: -0.5}\n"
                  "sizes: {m: 31, n: 29, k: 57}\nvariants: [host_naive, host_ikj]\n"
                  "measure: {min_reps: 2, max_reps: 3}\n")
        out = os.path.join(self.tmp, "int.h5")
        p = run(y, "-o", out, "-q")
        self.assertEqual(p.returncode, 0, p.stderr)
        for c in self.cases(out):
            self.assertEqual(c["status"], "ok", c["reason"])
            self.assertEqual(c["data"], "int")
            self.assertEqual(c["max_abs_err"], 0.0)
            self.assertEqual(c["tolerance"], "rtol=0;atol=0")

    def test_verify_off_and_every(self):
        base = "name: v\nop: sgemm\nseed: 3\ndata: normal\nsizes: {mnk: 24}\nvariants: [host_ikj]\n" \
               "measure: {min_reps: 4, max_reps: 4}\n"
        for mode, ref in (("off", "none"), ("every", "host")):
            out = os.path.join(self.tmp, mode + ".h5")
            p = run(write(self.tmp, mode + ".yaml", base + "verify: %s\n" % mode), "-o", out, "-q")
            self.assertEqual(p.returncode, 0, p.stderr)
            (c,) = self.cases(out)
            self.assertEqual((c["status"], c["verify"], c["reference"]), ("ok", mode, ref))
            self.assertEqual(np.isnan(c["max_abs_err"]), mode == "off")

    def test_batch_on_the_host(self):
        out = os.path.join(self.tmp, "batch.h5")
        y = write(self.tmp, "b.yaml", "name: b\nop: sgemm\nseed: 3\nsizes: {mnk: 16}\n"
                  "variants: [{name: host_ikj, measure: {batch: 50, min_reps: 3, max_reps: 3}}]\n")
        p = run(y, "-o", out, "-q")
        self.assertEqual(p.returncode, 0, p.stderr)
        (c,) = self.cases(out)
        self.assertIn("batch=50", c["protocol"])


class Phases(unittest.TestCase):
    """Where the time goes (schema 1.5): per case and per session, seconds per phase that add up to no
    more than the run's wall time, and the closing line that says it."""

    PHASES = ("compile", "load", "inputs", "reference", "verify", "warmup", "timed", "loop", "telemetry", "counters", "trials")

    def test_phases_per_case_and_session(self):
        tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        out = os.path.join(tmp, "smoke.h5")
        p = run(SMOKE, "-o", out)
        self.assertEqual(p.returncode, 0, p.stderr)
        line = [l for l in p.stderr.splitlines() if l.startswith("tilelab: where the ")]
        self.assertEqual(len(line), 1, p.stderr)
        for k in self.PHASES[:-1] + ("write", "other"):  # trials: only where a case had some
            self.assertRegex(line[0], r"\b%s [0-9]+\.[0-9]{2}\b" % k)
        self.assertNotIn(" trials ", line[0])
        start = [l for l in p.stderr.splitlines() if l.startswith("tilelab: before the first case: ")]
        self.assertEqual(len(start), 1, p.stderr)
        with h5py.File(out, "r") as f:
            s = f["sessions/0"].attrs
            total = sum(float(s["t_%s_s" % k]) for k in self.PHASES) + float(s["t_write_s"])
            self.assertLessEqual(total, float(s["wall_s"]) + 1e-6)
            # The start-up before the first case: some time since exec, and on the host no CUDA context.
            self.assertGreater(float(s["t_start_s"]), 0.0)
            self.assertLess(float(s["t_start_s"]), 60.0)
            self.assertIn("%.2f s from the runner's start" % float(s["t_start_s"]), start[0])
            self.assertEqual(float(s["t_start_cuda_s"]), 0.0)
            self.assertGreaterEqual(float(s["t_start_libs_s"]), 0.0)
            self.assertAlmostEqual(float(s["t_timed_s"]), float(s["timed_s"]), places=9)
            sums = dict.fromkeys(self.PHASES, 0.0)
            problems = set()
            for g in f["cases"].values():
                a = g.attrs
                self.assertEqual(int(a["compile_cached"]), -1)  # host variants compile nothing
                self.assertEqual(float(a["t_compile_s"]), 0.0)
                self.assertEqual(float(a["t_load_s"]), 0.0)  # nor load a module
                for k in self.PHASES:
                    self.assertGreaterEqual(float(a["t_%s_s" % k]), 0.0)
                    sums[k] += float(a["t_%s_s" % k])
                self.assertAlmostEqual(float(a["t_timed_s"]), float(a["timed_s"]), places=9)
                if text(a["status"]) == "ok":
                    self.assertGreater(float(a["t_verify_s"]), 0.0)
                # Inputs are made once per problem: only its first case pays them.
                key = (text(a["sizes"]), text(a["layouts"]), text(a["dtype"]))
                if float(a["t_inputs_s"]) > 0:
                    self.assertNotIn(key, problems)
                    problems.add(key)
            for k in self.PHASES:
                self.assertAlmostEqual(sums[k], float(s["t_%s_s" % k]), places=9)
            self.assertGreater(len(problems), 0)


class SgemmDtypes(unittest.TestCase):
    """dtype is a sweep axis: the host variants multiply as each dtype says (tf32 rounds the operands,
    bf16 inputs are BF16 values), each case is checked with its dtype's tolerance, and a problem made
    for one dtype is never reused for another."""

    def test_tf32_rounding_shows_and_stays_within_its_bound(self):
        tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        yaml, out = os.path.join(tmp, "dt.yaml"), os.path.join(tmp, "dt.h5")
        with open(yaml, "w") as f:
            f.write("name: dt\nop: sgemm\nseed: 7\ndtype: [f32, tf32, bf16]\nlayout: {a: [row, col]}\n"
                    "args: {alpha: 1.5, beta: 0.5}\nsizes: {m: 37, n: 29, k: 301}\n"
                    "variants: [host_naive, host_ikj]\nreference: host\nmeasure: {warmup: 0, min_reps: 2, max_reps: 2}\n")
        p = run("run", yaml, "-o", out)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        with h5py.File(out, "r") as f:
            cases = [{k: text(v) for k, v in g.attrs.items()} for g in f["cases"].values()]
        self.assertEqual(len(cases), 12)
        for c in cases:
            self.assertEqual(c["status"], "ok", c)
            rtol = float(c["tolerance"].split(";")[0].split("=")[1])
            err = float(c["max_rel_err"])
            if c["dtype"] == "tf32":
                # Operands rounded to 10 fraction bits: errors near 2^-11 of the scale, under 2^-9.
                self.assertAlmostEqual(rtol, 1e-5 + 2 ** -9, places=12)
                self.assertGreater(err, 1e-5, c)
            else:
                # f32 is FP32 throughout; bf16 is checked against the BF16 values it multiplied.
                self.assertEqual(rtol, 1e-5)
                self.assertLess(err, 1e-6, c)
            self.assertLessEqual(err, rtol)
        self.assertIn(" tf32 ", p.stdout)


class BadInput(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))

    def test_config_error_exits_2_without_a_file(self):
        bad = os.path.join(self.tmp, "bad.yaml")
        with open(bad, "w") as f:
            f.write("name: bad\nop: sgemm\nseed: 1\nsizes: {mnk: 8}\nvariants:\n  - name: host_naive\n    parms: {}\n")
        out = os.path.join(self.tmp, "bad.h5")
        p = run(bad, "-o", out)
        self.assertEqual(p.returncode, 2)
        self.assertIn(bad + ":7:5: variants[0]: unknown key 'parms'", p.stderr)
        self.assertFalse(os.path.exists(out))

    def test_gpu_experiment_without_gpu(self):
        out = os.path.join(self.tmp, "smem.h5")
        p = run(os.path.join("experiments", "smem_tile.yaml"), "-o", out)
        if "no CUDA device found" not in p.stderr:
            self.skipTest("this machine has a GPU")
        self.assertEqual(p.returncode, 2)
        self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
        self.assertIn("try experiments/host_smoke.yaml", p.stderr)
        self.assertFalse(os.path.exists(out))

    def test_validate_counts_cases(self):
        p = run("validate", SMOKE, os.path.join("experiments", "smem_tile.yaml"))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("12 cases (0 on the GPU, 12 on the host, 0 skipped)", p.stdout)
        self.assertIn("25 cases (25 on the GPU", p.stdout)

    def test_validate_picks(self):
        """--picks names, per case of a dispatching variant, the rung its table picks; the table's SK twin
        runs where SK cuts the last wave of a problem of under two waves, the one without SK elsewhere."""
        with open(os.path.join(self.tmp, "my.table"), "w") as f:
            f.write("op sgemm\n"
                    "m=2048,n=2048,k=2048 a=col,b=row f32 packed BM=128,BN=64,WM=64,WN=32,WNITER=2,STAGES=3,MINB=2 rel=1\n"
                    "m=2048,n=2048,k=2048 a=col,b=row f32 packed BM=128,BN=64,WM=64,WN=32,WNITER=2,STAGES=3,MINB=2,SK=396 "
                    "rel=1.01\n")
        exp = os.path.join(self.tmp, "picks.yaml")
        with open(exp, "w") as f:
            f.write("name: picks\nop: sgemm\nseed: 1\nlayout: {a: col, b: row}\n"
                    "sizes: [{m: 2047, n: 2049, k: 2048}, {m: 4096, n: 16384, k: 4096}]\n"
                    "variants: [{name: tuned, table: my.table}]\n")
        p = run("validate", exp, "--picks")
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = {l.split()[0]: l for l in p.stdout.splitlines() if l.startswith("    m=")}
        self.assertEqual(sorted(lines), ["m=2047,n=2049,k=2048", "m=4096,n=16384,k=4096"], p.stdout)
        self.assertIn("a=col,b=row f32: packed BM=128,BN=64,", lines["m=2047,n=2049,k=2048"])
        self.assertIn(",SK=396 (", lines["m=2047,n=2049,k=2048"])
        self.assertNotIn("SK=", lines["m=4096,n=16384,k=4096"])
        self.assertIn("my.table:2)", lines["m=4096,n=16384,k=4096"])
        self.assertNotIn("    m=", run("validate", exp).stdout)

    def test_compile_of_files_that_do_not_load_says_only_why(self):
        """A bad experiment gets its error and exit 2; the compile step is not reported as if it had run."""
        exp = os.path.join(self.tmp, "bad.yaml")
        with open(exp, "w") as f:
            f.write("name: bad\nop: sgemm\nseed: 1\nsizes: [{mnk: 64}]\nvariants: [no_such_rung]\n")
        for cmd in (("validate", exp, "--compile"), ("compile", exp)):
            p = run(*cmd)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn("no_such_rung", p.stderr)
            self.assertNotIn("compil", p.stderr, cmd)
        p = run("compile", exp, SMOKE)  # the good one still compiles (a host experiment: no kernels)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("compiling 0 kernels", p.stderr)

    def test_compile_rejects_an_incomplete_option(self):
        p = run("compile", SMOKE, "--arch")
        self.assertEqual(p.returncode, 2)
        self.assertIn("unknown or incomplete option '--arch'", p.stderr)

    def test_counters_on_the_host_target_say_why_not(self):
        """A host-target case asked for counters still measures (exit 0), and its file says why it has none."""
        with open(SMOKE) as f:
            yaml = f.read().replace("variants:\n", "counters: [memory, sm__cycles_active.avg]\nvariants:\n")
        exp = os.path.join(self.tmp, "host_counters.yaml")
        with open(exp, "w") as f:
            f.write(yaml)
        out = os.path.join(self.tmp, "host_counters.h5")
        p = run(exp, "-o", out)
        self.assertEqual(p.returncode, 0, p.stderr)
        with h5py.File(out, "r") as f:
            self.assertEqual(text(f.attrs["schema"]), "tilelab/1.16")
            for g in f["cases"].values():
                self.assertEqual(text(g.attrs["status"]), "ok")
                self.assertEqual(text(g.attrs["counters_status"]), "unavailable")
                self.assertIn("host target", text(g.attrs["counters_reason"]))
                self.assertNotIn("counters", g)
                self.assertGreater(len(g["time_ms"]), 0)

    def test_list_help_names_the_ops_and_sets_of_the_tables(self):
        ops = [l.split(":")[0] for l in run("list").stdout.splitlines() if l and l[0].isalpha()]
        sets = [l.strip() for l in run("list", "counters").stdout.splitlines()
                if l.startswith("  ") and not l.startswith("    ")]
        self.assertEqual(len(ops), 4)
        p = run("list", "--help")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("\nops: %s\n" % ", ".join(ops), p.stdout)
        self.assertIn("\ncounter sets: %s\n" % ", ".join(sets), p.stdout)

    def test_list_counters(self):
        p = run("list", "counters")
        self.assertEqual(p.returncode, 0, p.stderr)
        for s in ("memory", "smem", "occupancy", "roofline", "dram__bytes_read.sum",
                  "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum"):
            self.assertIn(s, p.stdout)
        # The counters guide's table is the runner's (one table): every set's metric, with its set.
        with open(os.path.join("docs", "guide", "counters.md")) as f:
            readme = f.read()
        rows = [l.split() for l in p.stdout.splitlines() if l.startswith("    ")]
        sets = {}
        for l in p.stdout.splitlines():
            if l.startswith("  ") and not l.startswith("    "):
                current = l.strip()
            elif l.startswith("    "):
                sets.setdefault(current, []).append(l.split()[0])
        self.assertEqual(sorted(sets), ["memory", "occupancy", "roofline", "smem"])
        for s, metrics in sets.items():
            for m in metrics:
                self.assertIn("| `%s` | `%s` |" % (s, m), readme, "docs/guide/counters.md lacks %s in %s" % (m, s))
        self.assertGreater(len(rows), 15)

    def test_validate_chip_names_near_metrics(self):
        exp = os.path.join(self.tmp, "bad_counter.yaml")
        with open(SMOKE) as f:
            yaml = f.read().replace("variants:\n", "counters: [memory, dram__bytes_reed.sum]\nvariants:\n")
        with open(exp, "w") as f:
            f.write(yaml)
        p = run("validate", exp)
        self.assertEqual(p.returncode, 0, p.stderr)  # without a chip the names are checked for form only
        p = run("validate", "--chip", "GH100", exp)
        self.assertEqual(p.returncode, 2)
        line = 1 + yaml.split("\n").index("counters: [memory, dram__bytes_reed.sum]")
        self.assertIn(f"{exp}:{line}:20: counters: 'dram__bytes_reed.sum' is not a metric of GH100 "
                      "(near names: dram__bytes_read.sum", p.stderr)

    def test_help(self):
        p = run("--help")
        self.assertEqual(p.returncode, 0)
        self.assertIn("validate", p.stdout)
        self.assertIn("exit codes", p.stdout)

    def commands(self):
        """The commands `runner --help` lists, a line each under "commands:"."""
        out = run("--help").stdout.split("\ncommands:\n", 1)[1].split("\n\n", 1)[0]
        return [line.split()[0] for line in out.splitlines()]

    def test_each_command_prints_its_own_help(self):
        """`runner CMD --help` (and -h, and `runner help CMD`) prints that command's usage and options, none
        of another command's, and exits 0 without running anything."""
        names = self.commands()
        self.assertEqual(set(names), {"run", "rerun", "extract", "merge", "submit", "validate", "compile",
                                      "table-check", "search-replay", "list", "cache"})
        for name in names:
            for args in ((name, "--help"), (name, "-h"), ("help", name), (name, SMOKE, "--help")):
                p = run(*args)
                self.assertEqual(p.returncode, 0, (args, p.stderr))
                self.assertTrue(p.stdout.startswith("usage: runner %s" % name), (args, p.stdout[:200]))
                self.assertEqual(p.stdout.count("usage: runner "), 1, args)
                self.assertEqual(p.stderr, "", args)
                self.assertGreater(len(p.stdout.splitlines()), 4, args)  # the options or what it does, not one line
        self.assertIn("--local-sources", run("rerun", "--help").stdout)
        self.assertNotIn("--local-sources", run("run", "--help").stdout)
        self.assertIn("--chip", run("validate", "--help").stdout)
        self.assertNotIn("--chip", run("compile", "--help").stdout)
        self.assertTrue(run(SMOKE, "--help").stdout.startswith("usage: runner run "))

    def test_an_unknown_word_is_an_error_that_names_the_commands(self):
        for word in ("frobnicate", "experiments/host_smoke", "--resume"):
            p = run(word, SMOKE)
            self.assertEqual(p.returncode, 2, word)
            self.assertIn("'%s' is not a command" % word, p.stderr)
            for name in self.commands():
                self.assertIn(name, p.stderr)
            self.assertEqual(p.stdout, "")

    def test_compile_helper(self):
        """The runner started as a run's compile helper (runner/jit/jit_helper.h) compiles a job sent on its
        stdin, says why a program does not compile, and exits 0 when the run closes its end, 1 on junk."""
        import socket
        import struct

        def message(fields):
            out = struct.pack("=I", len(fields))
            for f in fields:
                b = f.encode() if isinstance(f, str) else f
                out += struct.pack("=Q", len(b)) + b
            return out

        def answer(sock):
            buf = b""
            while True:
                chunk = sock.recv(1 << 16)
                if not chunk:
                    break
                buf += chunk
            n, = struct.unpack_from("=I", buf, 0)
            fields, at = [], 4
            for _ in range(n):
                ln, = struct.unpack_from("=Q", buf, at)
                fields.append(buf[at + 8:at + 8 + ln])
                at += 8 + ln
            return fields

        def job(source):
            opts = ["--gpu-architecture=sm_90", "-std=c++17", "--no-source-include"]
            return message([source, "90", "0", "k", "", "0", str(len(opts))] + opts + ["0"])

        for source, compiles in (('extern "C" __global__ void k(float *x) { x[0] = 1.0f; }', True),
                                 ('extern "C" __global__ void k(float *x) { x[0] = nope; }', False)):
            mine, theirs = socket.socketpair()
            p = subprocess.Popen([RUNNER, "--tilelab-nvrtc-helper"], stdin=theirs, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE)
            theirs.close()
            mine.sendall(job(source))
            mine.shutdown(socket.SHUT_WR)  # one job, then the run's end closes
            rc, has_log, log, cubin, why = answer(mine)
            mine.close()
            self.assertEqual(p.wait(timeout=120), 0)
            if compiles:
                self.assertEqual(rc, b"0")
                self.assertEqual(cubin[:4], b"\x7fELF")
            else:
                self.assertGreater(int(rc), 0)  # NVRTC's nvrtcResult; the run words the error from the log
                self.assertEqual(has_log, b"1")
                self.assertIn(b"nope", log)
                self.assertEqual(cubin, b"")
        for junk, status in ((b"", 0), (b"no job here", 1)):
            p = subprocess.run([RUNNER, "--tilelab-nvrtc-helper"], input=junk, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
            self.assertEqual((p.returncode, p.stdout), (status, b""))
        self.assertNotIn("nvrtc-helper", run("--help").stdout)  # a run's own, not a command

    def test_compile_helper_holds_no_file_of_the_run(self):
        """A compile helper closes every file it inherits but its socket and output (the run's result
        file and its lock are not the helper's to hold), however many the run had open."""
        import resource
        import socket
        import time
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        want = 1100 if hard == resource.RLIM_INFINITY or hard >= 1300 else 40  # past 1024 where allowed
        if soft != resource.RLIM_INFINITY and soft < want + 200:
            resource.setrlimit(resource.RLIMIT_NOFILE,
                               (want + 200 if hard == resource.RLIM_INFINITY else min(want + 200, hard), hard))
        held = os.open(os.devnull, os.O_RDONLY)
        extra = [os.dup(held) for _ in range(want)]
        mine, theirs = socket.socketpair()
        p = None
        try:
            p = subprocess.Popen([RUNNER, "--tilelab-nvrtc-helper"], stdin=theirs, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, pass_fds=extra)
            theirs.close()
            fds = None
            for _ in range(200):  # it closes them as it starts, before it reads a job
                try:
                    fds = sorted(int(f) for f in os.listdir("/proc/%d/fd" % p.pid))
                except FileNotFoundError:
                    break
                if fds == [0, 1, 2]:
                    break
                time.sleep(0.05)
            self.assertEqual(fds, [0, 1, 2], "the helper kept %d inherited files" % (len(fds or []) - 3))
            mine.close()
            self.assertEqual(p.wait(timeout=60), 0)
        finally:
            mine.close(), theirs.close()
            if p and p.poll() is None:
                p.kill()
                p.wait()
            for fd in extra + [held]:
                os.close(fd)
            resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


if __name__ == "__main__":
    unittest.main()
