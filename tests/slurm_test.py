"""runner submit against a real Slurm (slurmctld + slurmd + munge on localhost, as set up in
../shared/notes/slurm-local.md): a host-target sweep in 4 shards whose first submission fails (every
task is killed mid-sweep: the failures show, the merge job is cancelled), and whose resubmission
resumes each shard and merges; the merged file's cases equal those of a single-process run.

Needs root and the packages of tools/setup.sh (slurm-wlm, munge); tag slurm, run by .ci/run."""
import os
import re
import shutil
import subprocess
import tempfile
import time
import unittest

import h5py

RUNNER = os.path.abspath(os.path.join("runner", "runner"))
# Bazel's test PATH has no sbin: the daemons and runuser live there.
os.environ["PATH"] = os.environ.get("PATH", "/usr/bin:/bin") + ":/usr/sbin:/sbin"
SWEEP = """name: slurm_sweep
op: sgemm
seed: 21
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


def sh(*args, **kw):
    return subprocess.run(args, capture_output=True, text=True, **kw)


class LocalSlurm:
    """A single-node Slurm in a temporary folder; munged in its Debian locations."""

    def __init__(self, root):
        self.root = root
        self.procs = []
        self.munged = None
        for tool in ("slurmctld", "slurmd", "munged", "mungekey", "sbatch", "sinfo", "squeue", "scontrol"):
            if not shutil.which(tool) and not os.path.exists("/usr/sbin/" + tool):
                raise RuntimeError("%s is missing: run tools/setup.sh (it installs slurm-wlm and munge)" % tool)
        if os.geteuid() != 0:
            raise RuntimeError("the Slurm test runs daemons as root")
        self.conf = os.path.join(root, "slurm.conf")
        self.env = dict(os.environ, SLURM_CONF=self.conf)

    def start(self):
        self.start_munge()
        for d in ("state", "spool", "log"):
            os.makedirs(os.path.join(self.root, d), exist_ok=True)
        cpus = os.cpu_count()
        with open("/proc/meminfo") as f:
            mem_mb = int(re.search(r"MemTotal:\s+(\d+)", f.read()).group(1)) // 1024 - 512
        r = self.root
        with open(self.conf, "w") as f:
            f.write("\n".join([
                "ClusterName=tilelab-test", "SlurmctldHost=localhost", "SlurmUser=root", "SlurmdUser=root",
                "AuthType=auth/munge", "StateSaveLocation=%s/state" % r, "SlurmdSpoolDir=%s/spool" % r,
                "SlurmctldPidFile=%s/slurmctld.pid" % r, "SlurmdPidFile=%s/slurmd.pid" % r,
                "SlurmctldLogFile=%s/log/slurmctld.log" % r, "SlurmdLogFile=%s/log/slurmd.log" % r,
                "ProctrackType=proctrack/linuxproc", "TaskPlugin=task/none", "JobAcctGatherType=jobacct_gather/none",
                "AccountingStorageType=accounting_storage/none", "JobCompType=jobcomp/none",
                "SelectType=select/cons_tres", "SelectTypeParameters=CR_Core", "MpiDefault=none",
                "ReturnToService=2", "MailProg=/bin/true", "SchedulerParameters=batch_sched_delay=0",
                "MinJobAge=600",
                "NodeName=localhost NodeAddr=127.0.0.1 CPUs=%d RealMemory=%d State=UNKNOWN" % (cpus, mem_mb),
                "PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP", ""]))
        self.procs.append(subprocess.Popen(["/usr/sbin/slurmctld", "-D", "-i"], env=self.env,
                                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        self.procs.append(subprocess.Popen(["/usr/sbin/slurmd", "-D", "-N", "localhost"], env=self.env,
                                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            p = sh("sinfo", "-h", "-N", "-o", "%t", env=self.env)
            if p.returncode == 0 and p.stdout.strip() == "idle":
                return
            time.sleep(0.5)
        raise RuntimeError("Slurm did not come up: " + self.logs())

    def start_munge(self):
        if sh("sh", "-c", "munge -n | unmunge").returncode == 0:
            return  # already running
        for d, mode in (("/etc/munge", 0o700), ("/var/lib/munge", 0o700), ("/var/log/munge", 0o700),
                        ("/run/munge", 0o755)):
            os.makedirs(d, exist_ok=True)
            os.chmod(d, mode)
            shutil.chown(d, "munge", "munge")
        if not os.path.exists("/etc/munge/munge.key"):
            subprocess.run(["/usr/sbin/mungekey", "--create"], check=True)
        shutil.chown("/etc/munge/munge.key", "munge", "munge")
        os.chmod("/etc/munge/munge.key", 0o400)
        subprocess.run(["runuser", "-u", "munge", "--", "/usr/sbin/munged"], check=True)
        with open("/run/munge/munged.pid") as f:
            self.munged = int(f.read())
        if sh("sh", "-c", "munge -n | unmunge").returncode != 0:
            raise RuntimeError("munged does not answer")

    def logs(self):
        out = []
        for name in ("slurmctld.log", "slurmd.log"):
            p = os.path.join(self.root, "log", name)
            if os.path.exists(p):
                with open(p) as f:
                    out.append(name + ":\n" + f.read()[-3000:])
        return "\n".join(out)

    def stop(self):
        sh("scontrol", "shutdown", env=self.env)
        for p in self.procs:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
        if self.munged:
            os.kill(self.munged, 15)
        shutil.rmtree(self.root, ignore_errors=True)

    def wait_gone(self, jobs, timeout=120):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            p = sh("squeue", "-h", "-j", ",".join(jobs), "-o", "%i %T %r", env=self.env)
            if p.returncode == 0 and not p.stdout.strip():
                return
            time.sleep(1)
        raise AssertionError("jobs %s still queued: %s\n%s" % (jobs, p.stdout, self.logs()))

    def states(self, job):
        p = sh("scontrol", "show", "job", job, env=self.env)
        return re.findall(r"JobState=(\w+)", p.stdout)


def submitted(stdout):
    m = re.search(r"submitted: array job (\d+) \((\d+) tasks\), merge job (\d+)", stdout)
    assert m, stdout
    return m.group(1), m.group(3)


def case_ids(path):
    with h5py.File(path, "r") as f:
        return set(f["cases"])


class Slurm(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        # slurmd's sockets live in its spool folder, and a Unix socket path has at most 108 bytes:
        # not under Bazel's long TEST_TMPDIR.
        cls.slurm = LocalSlurm(tempfile.mkdtemp(prefix="tl-slurm-", dir="/tmp"))
        cls.slurm.start()

    @classmethod
    def tearDownClass(cls):
        cls.slurm.stop()

    def test_sweep_fails_visibly_then_resumes_and_merges(self):
        yaml = os.path.join(self.tmp, "sweep.yaml")
        with open(yaml, "w") as f:
            f.write(SWEEP)
        single = os.path.join(self.tmp, "single.h5")
        self.assertEqual(sh(RUNNER, yaml, "-q", "-o", single).returncode, 0)

        # First submission: every task is killed (-9) in its second commit, which writes its second
        # case into the shadow after its first (the third write of a case): one case committed. (A commit
        # a case, TILELAB_TEST_COMMIT_EACH: the writer otherwise takes every case queued.)
        out = os.path.join(self.tmp, "sweep.h5")
        env = dict(self.slurm.env, TILELAB_TEST_CRASH_AT="case_written:3", TILELAB_TEST_COMMIT_EACH="1")
        p = sh(RUNNER, "submit", yaml, "--shards", str(SHARDS), "--max-parallel", "2", "-o", out, env=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        array, merge = submitted(p.stdout)
        self.assertIn("result: %s" % out, p.stdout)
        self.slurm.wait_gone([array, merge])
        states = self.slurm.states(array)
        self.assertEqual(states, ["FAILED"] * SHARDS, states)   # the failures show
        self.assertIn(self.slurm.states(merge)[0], ("CANCELLED", "FAILED"))  # no merge of a failed sweep
        self.assertFalse(os.path.exists(out))
        sweep = out[:-3] + ".sweep"
        for i in range(SHARDS):
            self.assertEqual(len(case_ids(os.path.join(sweep, "shard-%d.h5" % i))), 1)

        # The resubmission resumes every shard and merges.
        p = sh("sh", os.path.join(sweep, "submit.sh"), env=self.slurm.env)
        self.assertEqual(p.returncode, 0, p.stderr)
        array, merge = submitted(p.stdout)
        self.slurm.wait_gone([array, merge])
        self.assertEqual(self.slurm.states(array), ["COMPLETED"] * SHARDS)
        self.assertEqual(self.slurm.states(merge), ["COMPLETED"])
        self.assertEqual(case_ids(out), case_ids(single))
        with h5py.File(out, "r") as f:
            # Each shard ran in two sessions (killed, then resumed): eight, each with its shard.
            shards = sorted(f["sessions"][k].attrs["shard"] for k in f["sessions"])
            self.assertEqual(shards, sorted(["%d/%d" % (i, SHARDS) for i in range(SHARDS)] * 2))
            resumed = [f["sessions"][k].attrs["resumed"] for k in f["sessions"]]
            self.assertEqual(sorted(resumed), [0] * SHARDS + [1] * SHARDS)
        with open(os.path.join(sweep, "logs", "shard-1.out")) as f:
            log = f.read()
        self.assertIn("tilelab: shard 1/4 on", log)
        self.assertIn("resuming: 1 of these 8 cases", log)


if __name__ == "__main__":
    unittest.main()
