"""Sweeps at scale on the host target: --shard gives disjoint, cost-balanced, deterministic shares;
merge makes one file whose cases equal a single run's, in plan order, with each shard's provenance;
--resume skips what a file holds; skipped cases share a commit; mixed or overlapping inputs are refused
with a clear error."""
import os
import re
import subprocess
import sys
import tempfile
import unittest

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from host_files import cases, problem, summary_ids, text  # noqa: E402

RUNNER = os.path.abspath(os.path.join("runner", "runner"))

# Sizes from 8 to 96: case costs differ by three orders of magnitude, so shares balanced by count
# alone would not be balanced by time.
SWEEP = """name: sweep
op: sgemm
seed: 11
layout: {a: row, b: [row, col]}
sizes:
  - {mnk: [8, 16, 24, 32, 48, 64, 96]}
  - {m: 33, n: 17, k: 45}
variants:
  - host_naive
  - host_ikj
reference: host
measure: {warmup: 1, min_reps: 3, max_reps: 5, max_noise: 0.5, max_time_s: 0.2, l2_flush: false}
"""
SHARDS = 4


def run(*args, env=None):
    return subprocess.run([RUNNER, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def run_time(a):
    """One host run at the model's nominal rates (runner/plan/plan.c)."""
    return max(a["flop"] / 2e9, a["bytes"] / 5e9)


def model_cost(a):
    """plan_cost of runner/plan/plan.c for a host case of this protocol."""
    t = run_time(a)
    return 0.05 + max(min((1 + 3 + 1) * t, 0.2 + 2 * t), 0)


def setup_cost(a):
    """plan_setup_cost: making the case's problem (inputs, reference), once per share that has it."""
    return 0.1 + 2 * run_time(a)


def load(cs):
    """A share's model cost: its cases, and one set-up per problem it has."""
    firsts = {}
    for a in cs.values():
        firsts.setdefault(problem(a), a)
    return sum(model_cost(a) for a in cs.values()) + sum(setup_cost(a) for a in firsts.values())


class Sweep(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        cls.yaml = os.path.join(cls.tmp, "sweep.yaml")
        with open(cls.yaml, "w") as f:
            f.write(SWEEP)
        cls.single = os.path.join(cls.tmp, "single.h5")
        p = run(cls.yaml, "-q", "-o", cls.single)
        assert p.returncode == 0, p.stderr
        cls.shards = []
        for i in range(SHARDS):
            out = os.path.join(cls.tmp, "shard%d.h5" % i)
            p = run(cls.yaml, "-q", "--shard", "%d/%d" % (i, SHARDS), "-o", out)
            assert p.returncode == 0, p.stderr
            cls.shards.append(out)
        cls.merged = os.path.join(cls.tmp, "merged.h5")
        cls.merge = run("merge", cls.merged, *cls.shards)

    def test_shares_are_disjoint_and_cover_the_plan(self):
        seen = {}
        for i, s in enumerate(self.shards):
            for c in cases(s):
                self.assertNotIn(c, seen, "case %s in shards %s and %d" % (c, seen.get(c), i))
                seen[c] = i
        self.assertEqual(set(seen), set(cases(self.single)))
        self.assertEqual(len(seen), 32)

    def test_shares_are_balanced_by_expected_cost(self):
        loads = [load(cases(s)) for s in self.shards]
        problems = {}
        for c, a in cases(self.single).items():
            problems.setdefault(problem(a), {})[c] = a
        largest = max(load(p) for p in problems.values())
        # Longest first over whole problems: no share exceeds another by more than the largest problem.
        self.assertLessEqual(max(loads) - min(loads), largest + 1e-9, loads)
        # A problem's cases stay in one share (none is more than a share), so its inputs and reference
        # are made once; and it is not a split by count: the biggest problems are spread out.
        owner = {}
        for i, s in enumerate(self.shards):
            for a in cases(s).values():
                self.assertEqual(owner.setdefault(problem(a), i), i, "problem %s in shards %d and %d" % (
                    problem(a)[:2], owner[problem(a)], i))
        big = sorted(problems, key=lambda p: load(problems[p]))[-SHARDS:]
        self.assertEqual({owner[p] for p in big}, set(range(SHARDS)))

    def test_a_dominant_case_gets_a_shard_to_itself(self):
        # Seven small cases and one whose model cost exceeds any two of them: a split by count
        # would give every shard two cases; by expected time the big one runs alone.
        y = os.path.join(self.tmp, "lopsided.yaml")
        with open(y, "w") as f:
            f.write(SWEEP.replace("[8, 16, 24, 32, 48, 64, 96]", "[8, 12, 16, 20, 24, 28, 32, 384]")
                    .replace("layout: {a: row, b: [row, col]}", "layout: {a: row, b: row}")
                    .replace("  - {m: 33, n: 17, k: 45}\n", "").replace("  - host_naive\n", ""))
        owner = None
        counts = []
        for i in range(SHARDS):
            out = os.path.join(self.tmp, "lopsided%d.h5" % i)
            p = run(y, "-q", "--shard", "%d/%d" % (i, SHARDS), "-o", out)
            self.assertEqual(p.returncode, 0, p.stderr)
            got = cases(out)
            counts.append(len(got))
            if any(a["sizes"] == "m=384,n=384,k=384" for a in got.values()):
                owner = i
        self.assertEqual(sum(counts), 8)
        self.assertEqual(counts[owner], 1, counts)

    def test_shares_are_deterministic(self):
        again = os.path.join(self.tmp, "shard2-again.h5")
        p = run(self.yaml, "-q", "--shard", "2/%d" % SHARDS, "-o", again)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(set(cases(again)), set(cases(self.shards[2])))

    def test_merged_cases_equal_a_single_run(self):
        self.assertEqual(self.merge.returncode, 0, self.merge.stderr)
        self.assertIn("32 cases of the experiment's 32", self.merge.stdout)
        self.assertEqual(summary_ids(self.merged), summary_ids(self.single))  # plan order
        one, merged = cases(self.single), cases(self.merged)
        self.assertEqual(set(one), set(merged))
        for c in one:
            for k in ("canonical", "status", "params", "sizes", "layouts", "seed", "flop"):
                self.assertEqual(merged[c][k], one[c][k], (c, k))

    def test_merged_samples_are_the_shards_samples(self):
        with h5py.File(self.merged, "r") as m:
            rows = {text(r["case_id"]): r for r in m["summary"][()]}
            for s in self.shards:
                with h5py.File(s, "r") as f:
                    for c in f["cases"]:
                        np.testing.assert_array_equal(m["cases"][c]["time_ms"][()], f["cases"][c]["time_ms"][()])
                        self.assertEqual(rows[c]["median_ms"], [r for r in f["summary"][()]
                                                                if text(r["case_id"]) == c][0]["median_ms"])

    def test_merged_file_keeps_each_shards_provenance(self):
        with h5py.File(self.merged, "r") as f:
            self.assertEqual(sorted(f["sessions"], key=int), [str(i) for i in range(SHARDS)])
            for k in range(SHARDS):
                s = f["sessions"][str(k)].attrs
                self.assertEqual(text(s["shard"]), "%d/%d" % (k, SHARDS))
                self.assertEqual(text(s["merged_from"]), self.shards[k])
                self.assertIn("--shard %d/%d" % (k, SHARDS), text(s["argv"]))
                self.assertIn("host", f["sessions"][str(k)]["env"].attrs)
            for k, s in enumerate(self.shards):
                for c in cases(s):
                    self.assertEqual(f["cases"][c].attrs["session"], k)
            self.assertEqual(text(f.attrs["merged_from"]).split("\n"), self.shards)
            self.assertEqual(text(f.attrs["schema"]), "tilelab/1.16")

    def test_merge_refuses_different_experiments_unless_forced(self):
        other_yaml = os.path.join(self.tmp, "other.yaml")
        with open(other_yaml, "w") as f:
            f.write(SWEEP.replace("seed: 11", "seed: 12"))
        other = os.path.join(self.tmp, "other.h5")
        self.assertEqual(run(other_yaml, "-q", "--shard", "0/8", "-o", other).returncode, 0)
        out = os.path.join(self.tmp, "mixed.h5")
        p = run("merge", out, self.shards[0], other)
        self.assertEqual(p.returncode, 2)
        self.assertIn("a different experiment", p.stderr)
        self.assertIn(other, p.stderr)
        self.assertFalse(os.path.exists(out))
        p = run("merge", out, "--force", self.shards[0], other)
        self.assertIn(p.returncode, (0, 1), p.stderr)
        with h5py.File(out, "r") as f:
            self.assertEqual(f.attrs["merge_forced"], 1)
            shas = {text(f["sessions"][k].attrs["config_sha256"]) for k in f["sessions"]}
            self.assertEqual(len(shas), 2)
        # The first input's cases in its plan's order, then those outside that plan as the other lists them.
        first = set(summary_ids(self.shards[0]))
        self.assertEqual(summary_ids(out), [c for c in summary_ids(self.single) if c in first] +
                         sorted(summary_ids(other)))

    def test_merge_refuses_overlaps_and_reports_missing_cases(self):
        out = os.path.join(self.tmp, "overlap.h5")
        p = run("merge", out, self.shards[0], self.single)
        self.assertEqual(p.returncode, 2)
        self.assertIn("the inputs overlap", p.stderr)
        self.assertFalse(os.path.exists(out))
        part = os.path.join(self.tmp, "part.h5")
        p = run("merge", part, *self.shards[:3])
        self.assertEqual(p.returncode, 1)
        n = len(cases(self.shards[3]))
        self.assertIn("%d cases of the experiment are in none of the files" % n, p.stderr)
        self.assertEqual(len(cases(part)), 32 - n)
        self.assertEqual(run("merge", part, *self.shards).returncode, 2)  # never overwritten

    def test_resume_skips_what_the_file_holds(self):
        out = os.path.join(self.tmp, "resume.h5")
        self.assertEqual(run(self.yaml, "-q", "--shard", "1/4", "-o", out).returncode, 0)
        before = cases(out)
        p = run(self.yaml, "--resume", "--shard", "1/4", "-o", out)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("%d of these %d cases are already in" % (len(before), len(before)), p.stderr)
        self.assertEqual(cases(out), before)
        # Another share into the same file is refused: it would make the shards overlap.
        for other in (["--shard", "2/4"], []):
            p = run(self.yaml, "-q", "--resume", "-o", out, *other)
            self.assertEqual(p.returncode, 2, other)
            self.assertIn("holds shard 1/4, not ", p.stderr)
        self.assertEqual(cases(out), before)
        # A whole run, killed and resumed as a whole run: every case, in two sessions.
        whole = os.path.join(self.tmp, "whole.h5")
        env = dict(os.environ, TILELAB_TEST_CRASH_AT="case_written:9")
        self.assertEqual(run(self.yaml, "-q", "-o", whole, env=env).returncode, -9)
        first = cases(whole)
        # Killed while a commit wrote its ninth case group (a commit takes every case queued): the file holds
        # the commits before it, fewer than nine cases.
        self.assertLess(len(first), 9)
        p = run(self.yaml, "-q", "--resume", "-o", whole)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(set(cases(whole)), set(cases(self.single)))
        with h5py.File(whole, "r") as f:
            self.assertEqual(sorted(f["sessions"]), ["0", "1"])
            self.assertEqual(f["sessions/1"].attrs["resumed"], 1)
            later = {c for c in f["cases"] if f["cases"][c].attrs["session"] == 1}
        self.assertEqual(later, set(cases(self.single)) - set(first))

    def test_skipped_cases_go_with_the_commit_before_them(self):
        # Three host cases, each followed by twelve cases of skinny that the plan skips (no small side of
        # at most SMAX 1; no GPU needed to say so): 39 cases. Each commit costs fsyncs and a swap; the
        # skipped cases ride with the commit before them, so the run makes fewer than 10 (one a case would
        # be 40, and the crash point would kill it), and still reports every case, each once.
        yaml = os.path.join(self.tmp, "skips.yaml")
        with open(yaml, "w") as f:
            f.write(SWEEP.replace("{mnk: [8, 16, 24, 32, 48, 64, 96]}\n  - {m: 33, n: 17, k: 45}", "{mnk: [16, 24, 32]}")
                    .replace("layout: {a: row, b: [row, col]}", "layout: {a: row, b: row}")
                    .replace("  - host_ikj", "  - {name: skinny, params: {SMAX: 1, LPT: [1, 2, 4], SLICES: [1, 4, 16, 64]}}"))
        out = os.path.join(self.tmp, "skips.h5")
        p = run(yaml, "-o", out, env=dict(os.environ, TILELAB_TEST_CRASH_AT="exchanged:10"))
        self.assertEqual(p.returncode, 0, p.stderr)
        got = cases(out)
        self.assertEqual(len(got), 39)
        self.assertEqual(sorted(a["status"] for a in got.values()).count("skipped"), 36)
        reported = [int(line.split("/39")[0].strip("[ ")) for line in p.stderr.splitlines()
                    if line.startswith("[") and "/39" in line]
        self.assertEqual(reported, list(range(1, 40)), p.stderr)  # each case once, in order
        # The progress lines' columns are as wide as the run's widest text (skinny's params, host_naive's none):
        # each status begins at one place.
        at = {re.search(r" (ok|skipped) ", l).start() for l in p.stderr.splitlines() if l.startswith("[")}
        self.assertEqual(len(at), 1, p.stderr)

    def test_a_burst_of_cases_in_one_commit(self):
        # Three host cases, each followed by 102 skipped ones: the writer takes each burst in one commit, and the
        # copy that missed it is made afresh from the file rather than written case by case (64 or more cases
        # behind, the file at most 32 KB for each); every case is in the file once, and a resume finds nothing
        # left to run.
        yaml = os.path.join(self.tmp, "burst.yaml")
        slices = ", ".join(str(i) for i in range(1, 35))
        with open(yaml, "w") as f:
            f.write(SWEEP.replace("{mnk: [8, 16, 24, 32, 48, 64, 96]}\n  - {m: 33, n: 17, k: 45}", "{mnk: [16, 24, 32]}")
                    .replace("layout: {a: row, b: [row, col]}", "layout: {a: row, b: row}")
                    .replace("  - host_ikj", "  - {name: skinny, params: {SMAX: 1, LPT: [1, 2, 4], SLICES: [%s]}}" % slices))
        out = os.path.join(self.tmp, "burst.h5")
        p = run(yaml, "-q", "-o", out)
        self.assertEqual(p.returncode, 0, p.stderr)
        with h5py.File(out, "r") as f:
            order = [r["case_id"].decode() if isinstance(r["case_id"], bytes) else r["case_id"] for r in f["summary"][()]]
            status = [f["cases"][c].attrs["status"] for c in order]
        self.assertEqual(len(order), 309)
        self.assertEqual(len(set(order)), 309)
        self.assertEqual(sum(st == "skipped" for st in status), 306)
        p = run(yaml, "--resume", "-o", out)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("309 of these 309 cases are already in", p.stderr)

    def test_one_writer_per_file(self):
        # A run that lasts about 1 s (two cases, 0.5 s of warm-up each); a second runner on its file is
        # refused, and neither disturbs the other.
        y = os.path.join(self.tmp, "slow.yaml")
        with open(y, "w") as f:
            f.write(SWEEP.replace("[8, 16, 24, 32, 48, 64, 96]", "[8]").replace("  - {m: 33, n: 17, k: 45}\n", "")
                    .replace("layout: {a: row, b: [row, col]}", "layout: {a: row, b: row}")
                    .replace("warmup: 1,", "warmup: 1, warmup_s: 0.5,"))
        out = os.path.join(self.tmp, "busy.h5")
        first = subprocess.Popen([RUNNER, y, "-q", "-o", out], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        while not os.path.exists(out):
            self.assertIsNone(first.poll())
        second = run(y, "-q", "--resume", "-o", out)
        self.assertEqual(second.returncode, 2, second.stderr)
        self.assertIn("another runner is writing this file", second.stderr)
        _, err = first.communicate(timeout=60)
        self.assertEqual(first.returncode, 0, err)
        self.assertEqual(len(cases(out)), 2)
        self.assertEqual([n for n in os.listdir(self.tmp) if n.startswith(".busy")], [])

    def test_resume_refuses_another_experiment_and_needs_a_file(self):
        other_yaml = os.path.join(self.tmp, "other2.yaml")
        with open(other_yaml, "w") as f:
            f.write(SWEEP.replace("seed: 11", "seed: 13"))
        p = run(other_yaml, "--resume", "-o", self.shards[0])
        self.assertEqual(p.returncode, 2)
        self.assertIn("was written by a different experiment", p.stderr)
        p = run(self.yaml, "--resume")
        self.assertEqual(p.returncode, 2)
        self.assertIn("--resume continues a file", p.stderr)

    def test_submit_dry_run_prints_the_scripts_and_writes_nothing(self):
        out = os.path.join(self.tmp, "sub", "x.h5")
        p = run("submit", self.yaml, "--shards", "4", "--partition", "gpu", "--gres", "gpu:1", "--time", "02:00:00",
                "--account", "proj-7", "--max-parallel", "2", "-o", out, "--dry-run")
        self.assertEqual(p.returncode, 0, p.stderr)
        for line in ("#SBATCH --array=0-3%2", "#SBATCH --gres=gpu:1", "#SBATCH --partition=gpu",
                     "#SBATCH --time=02:00:00", "#SBATCH --account=proj-7", "SLURM_ARRAY_TASK_ID",
                     "SLURM_ARRAY_TASK_COUNT", "--dependency=afterok:$array merge.sbatch",
                     "#SBATCH --kill-on-invalid-dep=yes", "--shard \"$i/$shards\" --resume -o",
                     "merge '%s'" % out, "'%s/shard-3.h5'" % out.replace(".h5", ".sweep")):
            self.assertIn(line, p.stdout)
        self.assertFalse(os.path.exists(os.path.dirname(out)))

    def test_submit_gpus_per_task_runs_each_shard_on_the_tasks_gpus(self):
        out = os.path.join(self.tmp, "sub2", "x.h5")
        p = run("submit", self.yaml, "--shards", "2", "--gpus-per-task", "4", "-o", out, "--dry-run")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("#SBATCH --gres=gpu:4", p.stdout)
        self.assertIn("\"$i.h5\" --devices all\n", p.stdout)
        p = run("submit", self.yaml, "--shards", "2", "--gpus-per-task", "2", "--gres", "gpu:h100:2", "-o", out,
                "--dry-run")
        self.assertIn("#SBATCH --gres=gpu:h100:2", p.stdout)
        self.assertNotIn("--gres=gpu:2", p.stdout)

    def test_submit_refuses_bad_values(self):
        for args, msg in ((["--shards", "0"], "--shards takes N, a whole number 1 .. 100000, not '0'"),
                          ([], "submit EXPERIMENT.yaml --shards N"),
                          (["--shards", "2", "--gpus-per-task", "0"], "--gpus-per-task takes G, a whole number 1 .. 64"),
                          (["--shards", "2", "--gpus-per-task", "2x"], "--gpus-per-task takes G, a whole number"),
                          (["--shards", "2", "--partition", "gpu\n#SBATCH --x"], "letters, digits"),
                          (["--shards", "2", "--time", "1 h"], "letters, digits")):
            p = run("submit", self.yaml, *args, "--dry-run")
            self.assertEqual(p.returncode, 2, args)
            self.assertIn(msg, p.stderr)
        bad = os.path.join(self.tmp, "bad.yaml")
        with open(bad, "w") as f:
            f.write(SWEEP.replace("seed: 11", "seed: eleven"))
        p = run("submit", bad, "--shards", "2", "--dry-run")
        self.assertEqual(p.returncode, 2)
        self.assertIn("bad.yaml:3:", p.stderr)

    def test_submit_scripts_never_run_a_path(self):
        # Paths that would be commands in an unquoted or double-quoted shell word: the scripts pass bash -n, and
        # running them (a fake sbatch, a fake runner) makes no file but what they should.
        home = tempfile.mkdtemp(dir=self.tmp)
        bin_dir = os.path.join(home, "bin")
        os.makedirs(bin_dir)
        with open(os.path.join(bin_dir, "sbatch"), "w") as f:
            f.write("#!/bin/sh\necho 4242\n")
        runner = os.path.join(home, "r$(touch${IFS}R)`touch${IFS}B`;touch${IFS}C")
        with open(runner, "w") as f:  # a runner that only says it ran
            f.write("#!/bin/sh\necho fake runner \"$@\"\n")
        for path in (os.path.join(bin_dir, "sbatch"), runner):
            os.chmod(path, 0o755)
        env = dict(os.environ, PATH=bin_dir + ":" + os.environ["PATH"])
        for i, name in enumerate(("inj$(touch${IFS}X)", "a`touch${IFS}Y`b", "c;touch${IFS}Z;d", "e&&touch${IFS}W",
                                  "f|touch${IFS}V", "g>U", "h$HOME$((1+1))")):
            with self.subTest(name=name):
                out = os.path.join(home, "s%d" % i, name + ".h5")
                p = subprocess.run([RUNNER, "submit", self.yaml, "--shards", "2", "--runner", runner, "-o", out],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=home)
                self.assertEqual(p.returncode, 0, p.stderr)
                sweep = out[:-3] + ".sweep"
                for script in ("array.sbatch", "merge.sbatch", "submit.sh"):
                    q = subprocess.run(["bash", "-n", os.path.join(sweep, script)], capture_output=True, text=True)
                    self.assertEqual(q.returncode, 0, script + q.stderr)
                q = subprocess.run(["sh", os.path.join(sweep, "submit.sh")], capture_output=True, text=True, env=env,
                                   cwd=home)
                self.assertEqual(q.returncode, 0, q.stderr)
                self.assertIn("result: %s (once job 4242 has run)" % out, q.stdout)
                for script in ("array.sbatch", "merge.sbatch"):
                    q = subprocess.run(["bash", os.path.join(sweep, script)], capture_output=True, text=True,
                                       env=dict(env, SLURM_ARRAY_TASK_ID="1", SLURM_ARRAY_TASK_COUNT="2"), cwd=home)
                    self.assertEqual(q.returncode, 0, script + q.stderr)
                    self.assertIn("fake runner", q.stdout)
                self.assertIn("-o %s/shard-1.h5" % sweep, subprocess.run(
                    ["bash", os.path.join(sweep, "array.sbatch")], capture_output=True, text=True, cwd=home,
                    env=dict(env, SLURM_ARRAY_TASK_ID="1", SLURM_ARRAY_TASK_COUNT="2")).stdout)
        made = sorted(n for n in os.listdir(home) if not n.startswith("s") and n not in ("bin", os.path.basename(runner)))
        self.assertEqual(made, [], "a path ran as a command")
        # What an #SBATCH line cannot hold, and control characters anywhere, are refused.
        for out, want in ((os.path.join(home, "a b.h5"), "which an #SBATCH line cannot hold"),
                          (os.path.join(home, "p%j.h5"), "which an #SBATCH line cannot hold"),
                          (os.path.join(home, "n\nx.h5"), "holds a control character")):
            p = subprocess.run([RUNNER, "submit", self.yaml, "--shards", "2", "-o", out, "--dry-run"],
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, 2, out)
            self.assertIn(want, p.stderr)
            self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)

    def test_one_file_one_writer_and_only_regular_files(self):
        d = tempfile.mkdtemp(dir=self.tmp)
        real = os.path.join(d, "real.h5")
        p = run(self.yaml, "-q", "-o", real)
        self.assertEqual(p.returncode, 0, p.stderr)
        os.symlink(real, os.path.join(d, "link.h5"))
        os.link(real, os.path.join(d, "hard.h5"))
        os.mkfifo(os.path.join(d, "fifo.h5"))
        os.mkfifo(os.path.join(d, "fifo.yaml"))
        for name, want in (("link.h5", "is a symbolic link"), ("hard.h5", "has other names (hard links)"),
                           ("fifo.h5", "is not a regular file")):
            p = subprocess.run([RUNNER, self.yaml, "-q", "--resume", "-o", os.path.join(d, name)], capture_output=True,
                               text=True, timeout=30)
            self.assertEqual(p.returncode, 2, name)
            self.assertIn(want, p.stderr)
        self.assertTrue(os.path.islink(os.path.join(d, "link.h5")), "the link was replaced")
        fifo = os.path.join(d, "fifo.h5")
        for args in (["rerun", fifo], ["merge", os.path.join(d, "m.h5"), fifo], ["extract", fifo, os.path.join(d, "x")],
                     ["validate", os.path.join(d, "fifo.yaml")]):
            p = subprocess.run([RUNNER, *args], capture_output=True, text=True, timeout=30)
            self.assertEqual(p.returncode, 2, args)
            self.assertIn("not a regular file", p.stderr)

    def test_bad_shard_arguments(self):
        for bad in ("4/4", "-1/4", "1/0", "a/b", "1/4x"):
            p = run(self.yaml, "--shard", bad, "-o", os.path.join(self.tmp, "bad.h5"))
            self.assertEqual(p.returncode, 2, bad)
            self.assertIn("--shard takes I/N", p.stderr)


if __name__ == "__main__":
    unittest.main()
