"""`run --devices` on the host target with simulated devices (TILELAB_TEST_DEVICES): one result file
with every case of the plan, each naming its device, a problem's cases on one device; a worker killed
mid-sweep, and the run itself killed with -9, lose nothing and `--resume` finishes; bad device lists
are refused with exit 2."""
import fcntl
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import unittest

import h5py

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from host_files import cases, problem, summary_ids, text  # noqa: E402

RUNNER = os.path.abspath(os.path.join("runner", "runner"))

SWEEP = """name: devices
op: sgemm
seed: 3
layout: {a: row, b: [row, col]}
sizes:
  - {mnk: [8, 16, 24, 32, 48, 64]}
  - {m: 33, n: 17, k: 45}
variants:
  - host_naive
  - host_ikj
reference: host
measure: {warmup: 1, min_reps: 3, max_reps: 5, max_noise: 0.5, max_time_s: 0.2, l2_flush: false}
"""
NCASES = 28
# Slow enough to be killed in the middle: about 0.1 s a case.
SLOW = SWEEP.replace("[8, 16, 24, 32, 48, 64]", "[160, 168, 176, 184, 192, 200]").replace(
    "min_reps: 3, max_reps: 5", "min_reps: 8, max_reps: 8")
PROGRESS = re.compile(r"^sim\d \| \[\s*(\d+)/(\d+)")


def table(stdout):
    """The closing table's rows: variant, params, size, layout, dtype and status (the figures vary by run)."""
    rows = [l.split() for l in stdout.splitlines() if l.startswith("host_")]
    return [r[:5] + r[-1:] for r in rows]


class Devices(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        cls.yaml = cls.write("devices.yaml", SWEEP)
        cls.slow = cls.write("slow.yaml", SLOW)
        cls.single = os.path.join(cls.tmp, "single.h5")
        p = cls.run_([cls.yaml, "-q", "-o", cls.single])
        assert p.returncode == 0, p.stderr

    @classmethod
    def write(cls, name, body):
        path = os.path.join(cls.tmp, name)
        with open(path, "w") as f:
            f.write(body)
        return path

    @staticmethod
    def run_(args, devices=3, extra_env=None):
        env = dict(os.environ, TILELAB_TEST_DEVICES=str(devices), **(extra_env or {}))
        return subprocess.run([RUNNER, "run", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=env)

    def out(self, name):
        return os.path.join(self.tmp, name)

    def assert_complete(self, path, devices, single=None):
        """Every case of the plan, in plan order, once; each on one of devices, a problem on one."""
        single = single or self.single
        self.assertEqual(summary_ids(path), summary_ids(single))
        got = cases(path)
        self.assertEqual(set(got), set(cases(single)))
        for c, a in got.items():
            self.assertEqual(a["status"], "ok", c)
            self.assertIn(a["device_ordinal"], devices, c)
        self.assertFalse(os.path.exists(path + ".parts"), "the workers' files are left")
        return got

    def test_one_file_every_case_each_names_its_device(self):
        out = self.out("all.h5")
        p = self.run_([self.yaml, "--devices", "all", "-o", out])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("results: %s: %d of the %d cases (0 failed)" % (out, NCASES, NCASES), p.stdout)
        got = self.assert_complete(out, {0, 1, 2})
        self.assertEqual({a["device_ordinal"] for a in got.values()}, {0, 1, 2}, "every device got work")
        on = {}
        for a in got.values():  # a problem's inputs and reference are made on one device
            self.assertEqual(on.setdefault(problem(a), a["device_ordinal"]), a["device_ordinal"], problem(a))
        # Progress lines say which device they come from; the file keeps each worker's session.
        self.assertTrue(any(PROGRESS.match(l) for l in p.stderr.splitlines()), p.stderr)
        with h5py.File(out, "r") as f:
            argvs = [text(s.attrs["argv"]) for s in f["sessions"].values()]
        self.assertEqual(len(argvs), 3)
        self.assertTrue(all("--worker-cases" in a for a in argvs), argvs)
        # The samples are real runs: same cases, same verification as one process.
        one = cases(self.single)
        for c, a in got.items():
            for k in ("canonical", "params", "sizes", "layouts", "seed", "flop"):
                self.assertEqual(a[k], one[c][k], (c, k))

    def test_the_table_and_the_closing_lines_stay_whole_on_one_pipe(self):
        """stdout and stderr into one pipe (a job's log): a table over stdio's 4 KB buffer came out cut by the
        run's closing line on stderr."""
        many = self.write("many.yaml", SWEEP.replace("[8, 16, 24, 32, 48, 64]", str(list(range(8, 128, 8)))))
        env = dict(os.environ, TILELAB_TEST_DEVICES="2")
        p = subprocess.run([RUNNER, "run", many, "--devices", "all", "-q", "-o", self.out("many.h5")],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
        self.assertEqual(p.returncode, 0, p.stdout)
        rows = [l for l in p.stdout.splitlines() if l.startswith("host_")]
        self.assertGreater(sum(len(l) + 1 for l in rows), 4096)
        self.assertEqual(len(rows), 64)
        for l in rows:
            self.assertEqual(l.split()[-1], "ok", l)
        self.assertEqual(p.stdout.count("tilelab: "), len(re.findall(r"^(sim\d \| )?tilelab: ", p.stdout, re.M)),
                         p.stdout)

    def test_a_device_list(self):
        out = self.out("list.h5")
        p = self.run_([self.yaml, "--devices", "0,2", "-o", out, "-q"])
        self.assertEqual(p.returncode, 0, p.stderr)
        got = self.assert_complete(out, {0, 2})
        self.assertEqual({a["device_ordinal"] for a in got.values()}, {0, 2})

    def test_with_a_shard(self):
        out = self.out("shard.h5")
        p = self.run_([self.yaml, "--devices", "all", "--shard", "1/2", "-o", out, "-q"], devices=2)
        self.assertEqual(p.returncode, 0, p.stderr)
        alone = self.out("shard-alone.h5")
        self.assertEqual(self.run_([self.yaml, "--shard", "1/2", "-o", alone, "-q"]).returncode, 0)
        self.assertEqual(set(cases(out)), set(cases(alone)))
        with h5py.File(out, "r") as f:
            self.assertEqual({text(s.attrs["shard"]) for s in f["sessions"].values()}, {"1/2"})
        # Without -q each worker says what it runs: its cases, of the plan's, in the shard.
        p = self.run_([self.yaml, "--devices", "all", "--shard", "1/2", "-o", self.out("shard-loud.h5")], devices=2)
        self.assertEqual(p.returncode, 0, p.stderr)
        said = re.findall(r"^sim(\d) \| this device: (\d+) of the %d cases, shard 1/2$" % NCASES, p.stderr, re.M)
        self.assertEqual(sorted(d for d, _ in said), ["0", "1"], p.stderr)
        self.assertEqual(sum(int(n) for _, n in said), len(cases(alone)))

    def test_bad_device_lists_are_refused(self):
        for devices, want in (("5", "device 5 does not exist here (3 devices: 0 .. 2)"),
                              ("1,1", "device 1 is listed twice"), ("x", "takes `all` or device numbers"),
                              ("0,", "takes `all` or device numbers"), ("-1", "device -1 does not exist")):
            out = self.out("bad.h5")
            p = self.run_([self.yaml, "--devices", devices, "-o", out])
            self.assertEqual(p.returncode, 2, (devices, p.stderr))
            self.assertIn(want, p.stderr)
            self.assertFalse(os.path.exists(out))
        gpu = self.write("gpu.yaml", SWEEP.replace("host_naive", "naive"))
        p = self.run_([gpu, "--devices", "all", "-o", self.out("gpu.h5")])
        self.assertEqual(p.returncode, 2)
        self.assertIn("host-target cases only", p.stderr)

    def test_an_existing_file_is_never_overwritten(self):
        out = self.out("exists.h5")
        self.assertEqual(self.run_([self.yaml, "--devices", "all", "-o", out, "-q"]).returncode, 0)
        before = os.stat(out).st_mtime_ns
        p = self.run_([self.yaml, "--devices", "all", "-o", out])
        self.assertEqual(p.returncode, 2)
        self.assertIn("exists; result files are never overwritten", p.stderr)
        self.assertEqual(os.stat(out).st_mtime_ns, before)
        # --resume with nothing left to run keeps every case and says so.
        p = self.run_([self.yaml, "--devices", "all", "-o", out, "--resume"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("0 of the %d cases to run" % NCASES, p.stderr)
        self.assert_complete(out, {0, 1, 2})

    def test_parts_without_results_do_not_block_a_new_run(self):
        # Workers that stopped on bad input leave their case lists and no file: not a run to resume.
        out = self.out("stale.h5")
        os.makedirs(out + ".parts")
        with open(os.path.join(out + ".parts", "device-0.ids"), "w") as f:
            f.write("0123456789abcdef\n")
        p = self.run_([self.yaml, "--devices", "all", "-o", out, "-q"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assert_complete(out, {0, 1, 2})
        # The closing table of a run on one device: a row per case, in plan order, with its figures.
        self.assertEqual(table(p.stdout), table(self.run_([self.yaml, "-q", "-o", self.out("one.h5")]).stdout))
        self.assertEqual(len(table(p.stdout)), NCASES)
        self.assertNotIn("earlier sessions", p.stdout)

    def test_a_worker_killed_mid_sweep_loses_nothing(self):
        out = self.out("crash.h5")
        # The slow sweep: with cases of a few milliseconds a worker can finish its share before its
        # writer's first commit, which then holds every case and leaves nothing to resume.
        single = self.out("crash-single.h5")
        self.assertEqual(self.run_([self.slow, "-q", "-o", single]).returncode, 0)
        # Each worker kills itself (SIGKILL) right after its first commit (whose cases are in its file).
        p = self.run_([self.slow, "--devices", "all", "-o", out, "-q"],
                      extra_env={"TILELAB_TEST_CRASH_AT": "exchanged:1"})
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("was killed by signal 9; the cases it finished are kept", p.stderr)
        kept = cases(out)
        self.assertTrue(0 < len(kept) < NCASES, len(kept))
        with h5py.File(out, "r") as f:
            first_sessions = len(f["sessions"])
        self.assertIn("cases are missing; continue with --resume", p.stderr)
        p = self.run_([self.slow, "--devices", "all", "-o", out, "--resume", "-q"])
        self.assertEqual(p.returncode, 0, p.stderr)
        got = self.assert_complete(out, {0, 1, 2}, single)
        # Its table has the cases it ran; those of the first run are counted in a line.
        self.assertEqual(len(table(p.stdout)), NCASES - len(kept), p.stdout)
        self.assertIn("and %d cases from earlier sessions (0 failed)" % len(kept), p.stdout)
        for c in kept:  # the cases kept were not run again: they are still the first run's
            self.assertLess(got[c]["session"], first_sessions, c)
        self.assertTrue(any(a["session"] >= first_sessions for a in got.values()))

    def test_the_run_killed_with_9_loses_nothing(self):
        out = self.out("kill9.h5")
        env = dict(os.environ, TILELAB_TEST_DEVICES="2")
        proc = subprocess.Popen([RUNNER, "run", self.slow, "--devices", "all", "-o", out], stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True, env=env)
        done = 0
        for line in proc.stderr:
            if PROGRESS.match(line):
                done += 1
                if done == 3:
                    break
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        proc.stderr.close()
        parts = out + ".parts"
        self.assertTrue(os.path.isdir(parts))
        self.assertFalse(os.path.exists(out))
        # The workers die with the run: nobody holds their files' locks.
        for name in sorted(os.listdir(parts)):
            if not name.endswith(".lock"):
                continue
            for _ in range(100):
                with open(os.path.join(parts, name)) as f:
                    try:
                        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                        break
                    except BlockingIOError:
                        time.sleep(0.05)
            else:
                self.fail("a worker outlived the run (%s held)" % name)
        held = sum(len(cases(os.path.join(parts, n))) for n in os.listdir(parts) if n.endswith(".h5"))
        self.assertGreaterEqual(held, 1)
        # A run of one process into that file is told how to go on, and changes nothing.
        p = subprocess.run([RUNNER, "run", self.slow, "-o", out, "--resume"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn("continue it with --devices and --resume", p.stderr)
        p = self.run_([self.slow, "--devices", "all", "-o", out, "--resume"], devices=2)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("already in", p.stderr)
        got = cases(out)
        self.assertEqual(len(got), NCASES)
        self.assertTrue(all(a["status"] == "ok" for a in got.values()))
        self.assertFalse(os.path.exists(parts))


if __name__ == "__main__":
    unittest.main()
