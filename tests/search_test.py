"""`search:` end to end on the host target, without a GPU: copy's host_landscape_for_tests has four params
(2,013 points a problem that its rules allow) and a simulated time (TILELAB_TEST_HOST_TIMING) with one optimum
and a point that fails verification. A search runs its budget per problem and records each step; a run killed
with SIGKILL and resumed makes the same trace as one that was not; `search-replay` of the exhaustive sweep
proposes what the live search did; every strategy replays the same way twice; failed points are never the
best and points the rules leave out never run; `rerun` measures the points the search evaluated; shards and
`--devices` take whole problems; `objective: energy` reads the energy runs."""
import csv
import os
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

import h5py

from shards import load_tests  # noqa: F401 (unittest's protocol: this shard's tests)

RUNNER = os.path.abspath(os.path.join("runner", "runner"))
ENV = dict(os.environ, TILELAB_TEST_HOST_TIMING="1:0.02:11")

SPACE = """name: ls
op: copy
seed: 5
sizes: {n: [%(n)s]}
variants:
  - host_memcpy
  - name: host_landscape_for_tests
    params: {X: {range: [0, 7, 1]}, Y: {range: [0, 7, 1]}, Z: {range: [0, 7, 1]}, W: [0, 1, 2, 3]}
measure: {warmup: 1, min_reps: 3, max_reps: 3, l2_flush: false}
"""
SEARCH = "search: {strategy: %(strategy)s, budget: {cases: %(budget)d}, seed: 9}\n"


def text(v):
    return v.decode() if isinstance(v, bytes) else v


def run(*args, env=ENV, check=None):
    p = subprocess.run([RUNNER, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                       timeout=600)
    if check is not None:
        assert p.returncode in check, "%s: exit %d\n%s%s" % (args, p.returncode, p.stdout, p.stderr)
    return p


def kill_when(args, env, ready):
    """Starts the runner with args and kills it with SIGKILL once ready() (a look at its files) says so, or after
    two minutes, or when it ends first."""
    proc = subprocess.Popen([RUNNER, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    deadline = time.monotonic() + 120
    while proc.poll() is None and time.monotonic() < deadline:
        try:
            if ready():
                break
        except (OSError, KeyError):
            pass  # not there yet
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()


def trace(h5):
    """Per problem, the search's steps in order: (step, case_id, params, proposer, objective, best)."""
    out = {}
    with h5py.File(h5, "r") as f:
        for cid, g in f["cases"].items():
            a = g.attrs
            if "search_step" not in a:
                continue
            out.setdefault(text(a["sizes"]), []).append(
                (int(a["search_step"]), cid, text(a["params"]), text(a["search_proposer"]),
                 float(a["search_objective"]), float(a["search_best"])))
    return {k: sorted(v) for k, v in out.items()}


class Search(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))

    def yaml(self, name, n="4096, 8192", strategy="bayes", budget=40, extra="", small=False):
        """small: Z and W at three and two of their values (373 points a problem), for the replays of every point
        (bayes refits its model each step: 150 s for the 2,013 points of the whole space)."""
        path = os.path.join(self.tmp, name + ".yaml")
        space = SPACE % {"n": n}
        if small:
            space = space.replace("Z: {range: [0, 7, 1]}, W: [0, 1, 2, 3]", "Z: [0, 3, 7], W: [0, 3]")
        with open(path, "w") as f:
            f.write(space + (SEARCH % {"strategy": strategy, "budget": budget} if budget else "") + extra)
        return path

    def slow_yaml(self, name):
        """A genetic search of 30 a problem on bigger copies with more repetitions, so that a kill lands
        mid-search."""
        yaml = self.yaml(name, n="8388608, 4194304", strategy="genetic", budget=30)
        with open(yaml) as f:
            body = f.read().replace("min_reps: 3, max_reps: 3", "min_reps: 12, max_reps: 12")
        with open(yaml, "w") as f:
            f.write(body)
        return yaml

    def out(self, name):
        path = os.path.join(self.tmp, name + ".h5")
        if os.path.exists(path):
            os.remove(path)
        return path

    def test_a_search_runs_its_budget_per_problem_and_records_each_step(self):
        h5 = self.out("live")
        p = run("run", self.yaml("live"), "-o", h5, "-q", check=(0, 1))
        self.assertIn("search n=4096", p.stdout)
        t = trace(h5)
        self.assertEqual(sorted(t), ["n=4096", "n=8192"])
        with h5py.File(h5, "r") as f:
            self.assertEqual(text(f.attrs["search"]), "strategy=bayes;budget=cases:40;objective=time;better=lower;seed=9")
            cases = [dict(g.attrs) for g in f["cases"].values()]
        for sizes, steps in t.items():
            self.assertEqual([s[0] for s in steps], list(range(1, 41)), sizes)
            best = float("inf")
            for step, cid, params, proposer, objective, got in steps:
                self.assertTrue(proposer.startswith("bayes: "), proposer)
                if objective == objective:  # ok: not NaN
                    best = min(best, objective)
                self.assertEqual(got, best, "step %d of %s" % (step, sizes))
        # The baseline ran once a problem; no point the rules leave out ran; a failed point is never the best.
        self.assertEqual(sum(text(a["variant"]) == "host_memcpy" for a in cases), 2)
        for a in cases:
            if text(a["variant"]) != "host_landscape_for_tests":
                continue
            q = dict(kv.split("=") for kv in text(a["params"]).split(","))
            self.assertLessEqual(sum(int(v) for v in q.values()), 20, "a point outside the rules ran")
            if text(a["status"]) == "verify_failed":
                self.assertNotEqual(float(a["search_best"]), float(a["search_objective"]))
        failed = any(text(a["status"]) == "verify_failed" for a in cases)
        self.assertEqual(p.returncode, 1 if failed else 0)

    def test_a_run_killed_and_resumed_makes_the_same_trace(self):
        # Each kill once the file holds a number of the search's steps.
        yaml = self.slow_yaml("kill")
        whole = self.out("whole")
        run("run", yaml, "-o", whole, "-q", check=(0, 1))
        killed = self.out("killed")
        for steps in (8, 35):
            kill_when(["run", yaml, "-o", killed, "-q"] + (["--resume"] if os.path.exists(killed) else []), ENV,
                      lambda: sum(len(v) for v in trace(killed).values()) >= steps)
        self.assertTrue(os.path.exists(killed), "no file after the kills")
        partial = sum(len(v) for v in trace(killed).values())
        self.assertLess(partial, 60, "the kills came after the search was done")
        run("run", yaml, "-o", killed, "-q", "--resume", check=(0, 1))
        a, b = trace(whole), trace(killed)
        self.assertEqual({k: [s[:4] for s in v] for k, v in a.items()}, {k: [s[:4] for s in v] for k, v in b.items()})

    def test_replay_of_the_sweep_proposes_what_the_live_search_did(self):
        sweep = self.out("sweep")
        run("run", self.yaml("sweep", n="4096", budget=0, small=True), "-o", sweep, "-q", check=(1,))  # one fails
        live = self.out("live1")
        run("run", self.yaml("live1", n="4096", budget=40, small=True), "-o", live, "-q", check=(0, 1))
        csv_path = os.path.join(self.tmp, "replay.csv")
        p = run("search-replay", sweep, "--strategy", "bayes", "--budget", "40", "--seed", "9", "--trace", csv_path,
                check=(0,))
        self.assertIn("bayes", p.stdout)
        rows = [r for r in csv.DictReader(open(csv_path)) if r["step"] != "0"]
        live_steps = trace(live)["n=4096"]
        self.assertEqual([r["case_id"] for r in rows], [s[1] for s in live_steps])
        self.assertEqual([r["proposer"] for r in rows], [s[3] for s in live_steps])

        # Every strategy: the same trace twice, failed points never the best, points outside the rules never
        # proposed, the file's optimum found with the whole space as the budget.
        with h5py.File(sweep, "r") as f:
            failed = {cid for cid, g in f["cases"].items() if text(g.attrs["status"]) == "verify_failed"}
        self.assertTrue(failed)
        for strategy in ("random", "genetic", "local", "bayes"):
            texts = []
            for k in range(2):
                path = os.path.join(self.tmp, "%s%d.csv" % (strategy, k))
                run("search-replay", sweep, "--strategy", strategy, "--budget", "8%", "--seeds", "3", "--trace", path,
                    check=(0,))
                texts.append(open(path).read())
            self.assertEqual(texts[0], texts[1], strategy)
            for r in csv.DictReader(open(os.path.join(self.tmp, strategy + "0.csv"))):
                q = dict(kv.split("=") for kv in r["params"].split(","))
                self.assertLessEqual(sum(int(v) for v in q.values()), 20)
                if r["case_id"] in failed:
                    self.assertEqual(r["objective"], "nan")
                    self.assertNotEqual(r["best"], r["objective"])
            p = run("search-replay", sweep, "--strategy", strategy, "--budget", "100%", check=(0,))
            line = [l for l in p.stdout.splitlines() if " %s " % strategy in l][0]
            self.assertEqual(line.split()[-2:], ["1.0000", "1.0000"], line)

    def test_rerun_measures_the_points_the_search_evaluated(self):
        live = self.out("forrerun")
        run("run", self.yaml("forrerun", n="4096", budget=12), "-o", live, "-q", check=(0, 1))
        again = self.out("again")
        run("rerun", live, "-o", again, "-q", check=(0, 1))
        with h5py.File(live, "r") as f, h5py.File(again, "r") as g:
            self.assertEqual(sorted(f["cases"]), sorted(g["cases"]))

    def test_shards_and_devices_take_whole_problems(self):
        yaml = self.yaml("shards", budget=15)
        whole = self.out("one")
        first = run("run", yaml, "-o", whole, "-q", check=(0, 1))
        want = trace(whole)
        parts = []
        for i in range(2):
            part = self.out("shard%d" % i)
            run("run", yaml, "-o", part, "-q", "--shard", "%d/2" % i, check=(0, 1))
            parts.append(trace(part))
        self.assertEqual([len(t) for t in parts], [1, 1], "a problem's search split over shards")
        self.assertEqual({**parts[0], **parts[1]}, want)
        dev = self.out("devices")
        p = run("run", yaml, "-o", dev, "-q", "--devices", "all", env=dict(ENV, TILELAB_TEST_DEVICES="2"))
        self.assertEqual(trace(dev), want)
        # Done when the searches are: the cases they did not propose are not missing.
        self.assertEqual(p.returncode, first.returncode, p.stderr)
        self.assertNotIn("missing", p.stderr)
        self.assertNotIn("not finished", p.stderr)

    def test_devices_killed_and_resumed_on_fewer_devices_makes_the_same_trace(self):
        # Killed mid-search on two workers, resumed on one: the one worker now has both problems, and one of
        # them was evaluated so far in the other worker's file.
        yaml = self.slow_yaml("devkill")
        whole = self.out("devwhole")
        first = run("run", yaml, "-o", whole, "-q")
        killed = self.out("devkilled")
        parts = killed + ".parts"
        kill_when(["run", yaml, "-o", killed, "-q", "--devices", "all"], dict(ENV, TILELAB_TEST_DEVICES="2"),
                  lambda: min(sum(len(v) for v in trace(os.path.join(parts, "device-%d.h5" % k)).values())
                              for k in (0, 1)) >= 4)
        self.assertTrue(os.path.isdir(parts) and not os.path.exists(killed), "the kill came after the merge")
        p = run("run", yaml, "-o", killed, "-q", "--devices", "all", "--resume", env=dict(ENV, TILELAB_TEST_DEVICES="1"))
        self.assertEqual(p.returncode, first.returncode, p.stderr)
        a, b = trace(whole), trace(killed)
        self.assertEqual({k: [s[:4] for s in v] for k, v in a.items()}, {k: [s[:4] for s in v] for k, v in b.items()})

    def test_energy_as_the_objective(self):
        h5 = self.out("energy")
        yaml = self.yaml("energy", n="4096", budget=4, extra="")
        with open(yaml) as f:
            body = f.read().replace("budget: {cases: 4}", "budget: {cases: 4}, objective: energy")
        body = body.replace("l2_flush: false}", "l2_flush: false, energy_s: 0.25}")
        with open(yaml, "w") as f:
            f.write(body)
        run("run", yaml, "-o", h5, "-q", env=dict(ENV, TILELAB_TEST_HOST_ENERGY_W="100"), check=(0, 1))
        with h5py.File(h5, "r") as f:
            steps = [g.attrs for g in f["cases"].values() if "search_step" in g.attrs]
            self.assertEqual(len(steps), 4)
            for a in steps:
                if text(a["status"]) != "ok":
                    continue
                self.assertEqual(text(a["energy_status"]), "ok")
                self.assertGreater(float(a["energy_j"]), 0)
                self.assertGreater(int(a["energy_runs"]), 0)
                self.assertAlmostEqual(float(a["energy_power_w"]), 100, delta=40)
                self.assertEqual(float(a["search_objective"]), float(a["energy_j"]))
        # Without the counter (no GPU, no stand-in), the case says why and the search has no objective for it.
        h5b = self.out("energy_none")
        run("run", yaml, "-o", h5b, "-q", check=(0, 1))
        with h5py.File(h5b, "r") as f:
            a = [g.attrs for g in f["cases"].values() if "search_step" in g.attrs][0]
            self.assertEqual(text(a["energy_status"]), "unavailable")
            self.assertIn("no energy counter", text(a["energy_reason"]))

    def test_bad_replay_options(self):
        sweep = self.out("tiny")
        run("run", self.yaml("tiny", n="4096", budget=3), "-o", sweep, "-q", check=(0, 1))
        for args, want in [(("--budget", "0"), "--budget '0'"), (("--budget", "150%"), "--budget '150%'"),
                           (("--strategy", "annealing"), "--strategy 'annealing'"),
                           (("--objective", "speed"), "--objective 'speed'"), (("--seeds", "0"), "--seeds takes"),
                           (("--better", "higher"), "--better higher is for a counter"), (("--frobnicate",), "unknown or incomplete option '--frobnicate'"),
                           (("--seed", "18446744073709551616"), "--seed takes a number 0 .. 18446744073709551615"),
                           (("--seed", "-1"), "--seed takes a number"),
                           (("--budget", "100000"), "--budget 100000 cases is over the space"),
                           (("--objective", "dram__bytes_read.sum"), "none of its searches' points has a value of the "
                                                                     "objective")]:
            p = run("search-replay", sweep, *args)
            self.assertEqual(p.returncode, 2, args)
            self.assertIn(want, p.stderr)
        p = run("search-replay", os.path.join(self.tmp, "tiny.yaml"))
        self.assertEqual(p.returncode, 2)


if __name__ == "__main__":
    unittest.main()
