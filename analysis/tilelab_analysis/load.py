"""Result files into a pandas DataFrame, one row per case, raw samples reachable.

A result file is untrusted input (it travels between machines): every file is checked against the
schema and against itself before it is read (as the runner's h5check.c does), and anything wrong is a
SchemaError "FILE: what is wrong", never a traceback."""
import functools
import hashlib
import os
import pickle
import re
import selectors
import signal

import h5py
import numpy as np
import pandas as pd

from . import schema
from .metrics import add_metrics

SUPPORTED_MAJOR = 1


class SchemaError(ValueError):
    """A file that is not a tilelab result file this package can read (damaged, edited, another
    schema major, not HDF5, not a file): its message is "FILE: what is wrong"."""


def resolve_path(path):
    """Paths as the user typed them: under `bazel run`, relative to where it was run."""
    base = os.environ.get("BUILD_WORKING_DIRECTORY")
    return path if os.path.isabs(path) or not base else os.path.join(base, path)


def _text(v):
    if isinstance(v, bytes):
        return v.decode()
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, np.generic):
        return v.item()
    return v


def _check_schema(path, f):
    schema = _text(f.attrs.get("schema", ""))
    if not isinstance(schema, str) or not schema.startswith("tilelab/"):
        raise SchemaError("%s: not a tilelab result file (no schema attribute 'tilelab/N')" % path)
    try:
        major = int(schema.split("/", 1)[1].split(".")[0])
    except ValueError:
        raise SchemaError("%s: unreadable schema version %r" % (path, schema)) from None
    if major != SUPPORTED_MAJOR:
        raise SchemaError("%s: schema %s, this analysis reads tilelab/%d; use the tilelab version that wrote it"
                          % (path, schema, SUPPORTED_MAJOR))
    return schema


# What the schema's table (runner/store/schema.c, through the generated schema.py) says a reader checks.
STATUSES = schema.STATUSES
ROOT_STRINGS = tuple(f[1] for f in schema.FIELDS if f[0] == "root" and f[6] == "must")
SUMMARY_FIELDS = tuple(f[1] for f in schema.FIELDS if f[0] == "summary" and f[6] == "must")
# Datasets of one value a sample besides time_ms (the telemetry), and the case attributes checked where present.
PER_SAMPLE = tuple(f[1] for f in schema.FIELDS if f[0] == "data" and f[2].endswith("[reps]") and f[1] != "time_ms")
BOUNDED = tuple(f for f in schema.FIELDS if f[0] == "case" and f[6] == "ifthere")
# The value a case without it gets, for attributes added after tilelab/1.0 that the frame always has.
DEFAULTS = {f[1]: f[10] for f in schema.FIELDS if f[0] == "case" and f[10] is not None}


def _str(attrs, name):
    """Attribute name of attrs (an object's .attrs, or a dict of _read_attrs) if it is a string, else None."""
    v = _text(attrs.get(name))
    return v if isinstance(v, str) else None


def _attr_str(obj, name):
    return _str(obj.attrs, name)


def _read_attrs(obj):
    """Every attribute of obj, {name: value as h5py reads it} (h5py raises what READ_ERRORS holds on one it
    cannot read). HDF5 takes some 50 microseconds an attribute here (a case has some 55): each is read
    once, by the check, and the reader takes them from the check."""
    return dict(obj.attrs.items())


TYPED = {}  # group -> ((name, type), ...): the schema's attributes of that group, checked where present
for _f in schema.FIELDS:
    if _f[0] in ("root", "env", "session", "case") and "<" not in _f[1] and _f[2] in ("string", "int64", "float64",
                                                                                          "int64[n]"):
        TYPED.setdefault(_f[0], []).append((_f[1], _f[2]))
_WANT = {"string": "a string", "int64": "an integer", "float64": "a number", "int64[n]": "an array of integers"}


def _held(v):
    """What attribute value v (as h5py reads it) is, as the runner says it: "an array of 1500 strings"."""
    def kind(x):
        x = x.dtype if isinstance(x, np.ndarray) else x
        if isinstance(x, np.dtype):
            return {"U": "string", "S": "string", "O": "string", "i": "integer", "u": "integer", "f": "float"}.get(
                x.kind, "value of another type")
        return ("string" if isinstance(x, (str, bytes)) else "integer" if isinstance(x, (int, np.integer))
                else "float" if isinstance(x, (float, np.floating)) else "value of another type")
    k = kind(v)
    if isinstance(v, np.ndarray) and v.size != 1:
        return "an array of %d %ss" % (v.size, k)
    return ("an " if k[0] in "aeiou" else "a ") + k


def _typed(v, kind):
    """Whether attribute value v holds one value of the schema's type kind (int64[n]: integers in one dimension)."""
    if kind == "int64[n]":
        return isinstance(v, (int, np.integer)) or (isinstance(v, np.ndarray) and v.ndim <= 1 and v.dtype.kind in "iu")
    if isinstance(v, np.ndarray):
        if v.size != 1 or v.ndim > 1:
            return False
        v = v.reshape(()).item() if v.dtype.kind != "O" else v.reshape(-1)[0]
    if kind == "string":
        return isinstance(v, (str, bytes))
    if kind == "int64":
        return isinstance(v, (int, np.integer)) and not isinstance(v, bool)
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)


def _check_types(path, where, attrs, group):
    """Every attribute of attrs (one object's, _read_attrs) that the schema names for group holds what its row
    says; SchemaError naming it, where (the object's path) and what it holds, as the runner's check does."""
    for name, kind in TYPED.get(group, ()):
        if name in attrs and not _typed(attrs[name], kind):
            raise SchemaError("%s: %s: the attribute '%s' is %s, not %s" % (path, where, name, _held(attrs[name]),
                                                                           _WANT[kind]))


def _samples(g, name):
    d = g.get(name)
    if not isinstance(d, h5py.Dataset) or d.ndim != 1:
        return None
    return d


def _within(v, kind, lo, hi):
    """Whether attribute value v is of the schema's type kind and within lo .. hi (a string: its length)."""
    if kind == "string":
        return isinstance(v, (str, bytes)) and lo <= len(v) <= hi
    if kind == "float64":
        return isinstance(v, (float, np.floating)) and lo <= v <= hi
    if kind == "int64":
        return isinstance(v, (int, np.integer)) and not isinstance(v, bool) and lo <= v <= hi
    return False


def _check_case(path, name, g, a, minor, nsessions, keep=None):
    """Case group g (a: its attributes, _read_attrs) against the schema: (status, samples). keep (a dict):
    the datasets it checked go into it, read (time_ms, the telemetry, counters), for the reader."""
    if not re.fullmatch(r"[0-9a-f]{16}", name):
        raise SchemaError("%s: /cases/%s: not a case id (16 hex digits)" % (path, name))
    if not isinstance(g, h5py.Group):
        raise SchemaError("%s: /cases/%s: not a group" % (path, name))
    canonical = _str(a, "canonical")
    if _str(a, "case_id") != name:
        raise SchemaError("%s: /cases/%s: its case_id attribute is missing or another id" % (path, name))
    if canonical is None or hashlib.sha256(canonical.encode()).hexdigest()[:16] != name:
        raise SchemaError("%s: /cases/%s: its id is not the hash of its canonical text (edited or damaged)"
                          % (path, name))
    if _str(a, "op") is None or _str(a, "variant") is None:
        raise SchemaError("%s: /cases/%s: its op or variant attribute is missing or not a string" % (path, name))
    status = _str(a, "status")
    if status not in STATUSES:
        raise SchemaError("%s: /cases/%s: its status is missing, not a string or not one of %s"
                          % (path, name, ", ".join(STATUSES)))
    if minor >= 1:
        session = _text(a.get("session"))
        if not isinstance(session, int) or isinstance(session, bool) or not 0 <= session < nsessions:
            raise SchemaError("%s: /cases/%s: its session is missing or names no /sessions group" % (path, name))
    links = set(g)  # each member looked up once: HDF5 takes some 100 microseconds a lookup here
    t = _samples(g, "time_ms") if "time_ms" in links else None
    if t is None or t.dtype.kind != "f" or t.dtype.itemsize != 8:
        raise SchemaError("%s: /cases/%s: time_ms is missing or not a 1-D float64 dataset" % (path, name))
    if status == "ok" and len(t) == 0:
        raise SchemaError("%s: /cases/%s: status ok but no samples in time_ms" % (path, name))
    if keep is not None:
        keep["time_ms"] = t[()]
    for k in PER_SAMPLE:
        if k not in links:
            continue
        d = _samples(g, k)
        if d is None or len(d) != len(t):
            raise SchemaError("%s: /cases/%s: %s has not one value per sample (%d)" % (path, name, k, len(t)))
        if keep is not None:
            keep[k] = d[()]
    if minor >= 3 and "counters" in links:
        c = g["counters"]
        if (not isinstance(c, h5py.Dataset) or c.ndim != 1 or c.dtype.names is None
                or any(k not in c.dtype.names for k in ("name", "value", "unit")) or c.dtype["value"].kind != "f"):
            raise SchemaError("%s: /cases/%s: counters is not a list of (name, value, unit)" % (path, name))
        if keep is not None:
            keep["counters"] = c[()]
    for f in BOUNDED:
        if f[1] in a and not _within(a[f[1]], f[2], f[7], f[8]):
            raise SchemaError("%s: /cases/%s: %s is not %s" % (path, name, f[1], f[9]))
    return status, len(t)


def _check_summary(path, f, cases, names):
    """/summary against /cases: names (every case id of /cases), cases ({case id: (status, samples)}: those
    of this part of the file, _part; the whole of /summary's rows is checked by each part, their status and
    count of samples by the part that has their case)."""
    s = f["summary"]
    if s.ndim != 1 or s.dtype.names is None or any(k not in s.dtype.names for k in SUMMARY_FIELDS):
        raise SchemaError("%s: /summary's rows are not tilelab's (a field is missing or of another type)" % path)
    if s.shape[0] != len(names):  # before reading them: a crafted extent is any size
        raise SchemaError("%s: /summary has %d rows for %d cases" % (path, s.shape[0], len(names)))
    rows = s[()]
    seen = set()
    for i, r in enumerate(rows):
        cid = _text(r["case_id"])
        if cid not in names:
            raise SchemaError("%s: /summary row %d names no case of /cases" % (path, i))
        if cid in seen:
            raise SchemaError("%s: /summary lists case %s twice" % (path, cid))
        seen.add(cid)
        if cid not in cases:
            continue
        status = _text(r["status"])
        if status != cases[cid][0]:
            raise SchemaError("%s: /summary says case %s is %s, /cases says %s" % (path, cid, status, cases[cid][0]))
        if int(r["reps"]) != cases[cid][1]:
            raise SchemaError("%s: /summary says case %s has %d samples, its time_ms has %d"
                              % (path, cid, int(r["reps"]), cases[cid][1]))


def _check_sources(path, f, attrs, part=(0, 1)):
    """tilelab/1.2: /sources/<sha256> hold bytes that hash to their names; every case's files are there.
    attrs: the cases of this part of the file (_part), which also hashes its share of /sources."""
    if "sources" in f and not isinstance(f["sources"], h5py.Group):
        raise SchemaError("%s: /sources is not a group" % path)
    names = sorted(f["sources"]) if "sources" in f else []
    for sha in _part(names, part):
        d = f["sources"][sha]
        if not isinstance(d, h5py.Dataset) or d.ndim != 1 or d.dtype.kind not in "ui" or d.dtype.itemsize != 1:
            raise SchemaError("%s: /sources/%s: not a dataset of bytes" % (path, sha))
        if hashlib.sha256(d[()].tobytes()).hexdigest() != sha:
            raise SchemaError("%s: /sources/%s: its bytes do not hash to its name: the file is damaged or was edited"
                              % (path, sha))
        if not _typed(d.attrs.get("paths"), "string"):
            raise SchemaError("%s: /sources/%s: %s" % (path, sha, "has no paths attribute" if "paths" not in d.attrs else
                                                       "its paths attribute is not one string (the file is damaged or "
                                                       "was edited)"))
    shas = set(names)
    for name, a in attrs.items():
        for line in (_str(a, "sources") or "").splitlines():
            if line.rpartition(" ")[2] not in shas:
                raise SchemaError("%s: /cases/%s: its source '%s' is not in /sources" % (path, name, line))


def _part(names, part):
    """Part k of n of the sorted list names (part = (k, n)): each n-th, from the k-th. A large file is
    checked and read by n children at once, each a part of its cases (load)."""
    k, n = part
    return names[k::n]


def _validate(path, f, attrs=None, data=None, part=(0, 1)):
    """The file against the schema (results/README.md) and against itself; SchemaError at the first problem.
    attrs, data (dicts): each case's attributes (_read_attrs) and datasets (_check_case's keep) go into
    them, by case id, for the reader. part (k, n): only the k-th of n parts of the cases (_part), and what
    hangs on them, is checked (and read); the n parts together check all of it."""
    schema = _check_schema(path, f)
    minor = int(schema.split(".", 1)[1]) if "." in schema and schema.split(".", 1)[1].isdigit() else 0
    root = {k: _attr_str(f, k) for k in ROOT_STRINGS}
    for k, v in root.items():
        if v is None:
            raise SchemaError("%s: the root attribute '%s' is missing or not a string" % (path, k))
    if hashlib.sha256(root["config_yaml"].encode()).hexdigest() != root["config_sha256"]:
        raise SchemaError("%s: config_sha256 is not the hash of config_yaml (the file was edited or damaged)" % path)
    for name, kind in (("env", h5py.Group), ("cases", h5py.Group), ("summary", h5py.Dataset)) + (
            (("sessions", h5py.Group),) if minor >= 1 else ()):
        if not isinstance(f.get(name), kind):
            raise SchemaError("%s: /%s is missing or not a %s" % (path, name, "group" if kind is h5py.Group else "dataset"))
    nsessions = len(f["sessions"]) if minor >= 1 else 0
    for k in range(nsessions):
        if not isinstance(f["sessions"].get(str(k)), h5py.Group):
            raise SchemaError("%s: /sessions/%d is missing or not a group" % (path, k))
    # Every attribute the tools read, in full: a value that crashes the HDF5 library does so here, in the
    # check's child (_in_children), not later in the caller.
    groups = [f, f["env"]] + [f["sessions"][str(k)] for k in range(nsessions)]
    groups += [g["env"] for g in groups[2:] if isinstance(g.get("env"), h5py.Group)]
    for g in groups:
        group = "root" if g.name == "/" else "env" if g.name.endswith("/env") else "session"
        _check_types(path, g.name, _read_attrs(g), group)
    attrs = {} if attrs is None else attrs
    names = sorted(f["cases"])
    groups = {name: f["cases"].get(name) for name in _part(names, part)}
    for name, g in groups.items():
        attrs[name] = _read_attrs(g) if isinstance(g, h5py.Group) else {}
    keep = (lambda name: None) if data is None else (lambda name: data.setdefault(name, {}))
    cases = {name: _check_case(path, name, g, attrs[name], minor, nsessions, keep(name)) for name, g in groups.items()}
    for name in groups:  # the rest of each case's attributes, as the schema says
        _check_types(path, "/cases/" + name, attrs[name], "case")
    _check_summary(path, f, cases, set(names))
    if minor >= 2:
        _check_sources(path, f, attrs, part)
    return schema


# What h5py and numpy raise on a file whose parts are not what the schema says.
READ_ERRORS = (KeyError, TypeError, ValueError, OSError, AttributeError, IndexError)


def _open_checked(path, attrs=None, data=None, part=(0, 1)):
    """The file open and checked, or SchemaError (attrs, data, part: as _validate's)."""
    if os.path.isdir(path):
        raise SchemaError("%s: a folder, not a result file" % path)
    if not os.path.exists(path):
        raise SchemaError("%s: no such file" % path)
    try:
        f = h5py.File(path, "r")
    except OSError as e:
        raise SchemaError("%s: not a readable HDF5 file (%s)" % (path, str(e).split("(")[0].strip())) from None
    try:
        _validate(path, f, attrs, data, part)
    except SchemaError:
        f.close()
        raise
    except READ_ERRORS as e:
        f.close()
        raise SchemaError("%s: not a consistent tilelab result file (%s)" % (path, e)) from None
    return f


def _probe_seconds(path):
    """How long the check and read of a file may take: far more than a real file of that size needs (a
    tuning shard of 400 MiB, 50000 cases, takes some 4 minutes on a busy 2-core machine)."""
    return 60 + 4 * (os.path.getsize(path) >> 20)


def _start_child(path, work):
    """Forks a child that runs work(path) (the file's check, maybe its reading too) under an alarm and
    sends back what it returns, pickled, or what was wrong: (pid, the pipe's read end, the limit)."""
    limit = _probe_seconds(path) if os.path.isfile(path) else 30
    r, w = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(r), os.close(w)
        raise
    if pid == 0:  # the child: check, say what is wrong, leave without any clean-up
        os.close(r)
        signal.alarm(limit)  # a crafted file can also make HDF5 loop
        code = 0
        try:
            out = b"R" + pickle.dumps(work(path), protocol=pickle.HIGHEST_PROTOCOL)
        except BaseException as e:  # noqa: BLE001 (a child must leave through os._exit)
            out = b"E" + str(e).encode(errors="replace")[:4000]
            code = 1
        try:
            view = memoryview(out)
            while view:
                view = view[os.write(w, view):]
        except OSError:
            code = 1
        os._exit(code)
    os.close(w)
    return pid, r, limit


def _finish_child(path, pid, data, limit):
    """What the child of _start_child sent (all of it, data), once it has ended; SchemaError for what was
    wrong with the file: a crash or a loop of the HDF5 library too."""
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGALRM:
        raise SchemaError("%s: reading it did not finish in %d s (damaged in a way that makes the HDF5 library loop); "
                          "not read" % (path, limit))
    if os.WIFSIGNALED(status):
        raise SchemaError("%s: damaged in a way that crashes the HDF5 library (%s while reading it); not read"
                          % (path, signal.Signals(os.WTERMSIG(status)).name))
    if os.WEXITSTATUS(status) != 0 or data[:1] != b"R":
        msg = data[1:].decode(errors="replace") if data[:1] == b"E" else ""
        raise SchemaError(msg if msg.startswith(path) else "%s: %s" % (path, msg or "cannot read it"))
    return pickle.loads(data[1:])


def _cpus():
    return len(os.sched_getaffinity(0))  # the CPUs this process may use


def _in_children(paths, work, jobs=None, done=None):
    """work(path) for each path, each in a forked child (a crafted file can crash the HDF5 library itself:
    1.10 follows some offsets unchecked; a crash there is a SchemaError here), up to jobs (default: the
    CPUs) at once: [what each returned], in the order of paths; the first file's SchemaError otherwise.
    work may also be a list, one function a path (several children may read parts of one file).
    done(i, result) is called as the child of paths[i] ends well."""
    works = work if isinstance(work, list) else [work] * len(paths)
    jobs = max(1, min(jobs or _cpus(), len(paths)))
    results, errors, running = {}, {}, {}
    todo = list(enumerate(paths))
    sel = selectors.DefaultSelector()
    try:
        while todo or running:
            while todo and len(running) < jobs:
                i, path = todo.pop(0)
                pid, r, limit = _start_child(path, works[i])
                running[r] = (i, path, pid, limit, [])
                sel.register(r, selectors.EVENT_READ)
            for key, _ in sel.select():
                i, path, pid, limit, chunks = running[key.fd]
                chunk = os.read(key.fd, 1 << 20)
                if chunk:
                    chunks.append(chunk)
                    continue
                sel.unregister(key.fd)
                os.close(key.fd)
                del running[key.fd]
                try:
                    results[i] = _finish_child(path, pid, b"".join(chunks), limit)
                except SchemaError as e:
                    errors[i] = e
                else:
                    if done:
                        done(i, results[i])
    finally:
        for fd, (_, _, pid, _, _) in running.items():  # interrupted: no child left behind
            os.close(fd)
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        sel.close()
    if errors:
        raise errors[min(errors)]
    return [results[i] for i in range(len(paths))]


def _probe(path):
    """The file's check, in a child (_in_children); SchemaError for what is wrong."""
    _in_children([path], lambda p: _open_checked(p).close())


class open_result:
    """`with open_result(path) as f:` an h5py.File of a checked tilelab result file; anything wrong with
    it, in the check or while the caller reads it, is a SchemaError naming the file."""

    def __init__(self, path):
        self.path = path

    def __enter__(self):
        _probe(self.path)
        self.f = _open_checked(self.path)
        return self.f

    def __exit__(self, kind, value, tb):
        self.f.close()
        if kind is not None and issubclass(kind, READ_ERRORS) and not issubclass(kind, SchemaError):
            raise SchemaError("%s: not a consistent tilelab result file (%s)" % (self.path, value)) from None
        return False


def load_meta(path):
    """The file's root attributes (provenance, config) and /env (machine), as dicts of str/numbers."""
    path = resolve_path(path)
    with open_result(path) as f:
        return _meta(f)


# The telemetry a case's row carries as <name>_samples (the reason bits stay in the file).
TELEMETRY = tuple(k for k in PER_SAMPLE if k != "throttle_reasons")
# tilelab/1.5: where a case's wall time went (case attributes t_<phase>_s), in the runner's order.
PHASES = schema.PHASES


def _meta(f):
    root = {k: _text(v) for k, v in f.attrs.items()}
    env = {k: _text(v) for k, v in f["env"].attrs.items()} if "env" in f else {}
    return root, env


def _read_cases(path, part=(0, 1)):
    """The file checked and read (in the child of _in_children), or part (k, n) of it (_part): its meta
    (_meta) and its cases' rows, each with its place in the file's run order (_rows)."""
    attrs, data = {}, {}
    f = _open_checked(path, attrs, data, part)
    try:
        return _rows(path, f, attrs, data)
    except READ_ERRORS as e:
        if isinstance(e, SchemaError):
            raise
        raise SchemaError("%s: not a consistent tilelab result file (%s)" % (path, e)) from None
    finally:
        f.close()


def _rows(path, f, attrs, data):
    """Its meta (_meta) and [(place, row)], a row per case of attrs, in the file's run order, from open file
    f checked into attrs and data: place, the case's rank in that order among all of the file's cases."""
    rows = []
    meta = _meta(f)
    search = meta[0].get("search", "")  # tilelab/1.15: the experiment's `search:`, "" without
    device = _text(f["env"].attrs.get("device_name", "")) if "env" in f else ""
    # tilelab/1.1: each case names its session, whose env says where it ran (a merged sweep may
    # span several machines).
    sessions = {}
    for k, g in (f["sessions"].items() if "sessions" in f else []):
        env = g["env"].attrs if "env" in g else {}
        sessions[int(k)] = (_text(env.get("device_name", "")) or "host", _text(env.get("host", "")))
    # Run order, from /summary; cases without a row (a run cut short) after them.
    order = [_text(c) for c in f["summary"]["case_id"][()]] if "summary" in f else []
    place = {n: i for i, n in enumerate(order)}
    for n in sorted(set(f["cases"]) - set(order)):
        place[n] = len(place)
    for name in sorted(attrs, key=place.get):
        d = data[name]
        a = {k: _text(v) for k, v in attrs[name].items()}
        a["file"] = path
        a["device"], a["host"] = sessions.get(a.get("session"), (device or "host", ""))
        a["samples"] = d["time_ms"]
        a["search_spec"] = search
        for t in TELEMETRY:
            a[t + "_samples"] = d.get(t)
        # tilelab/1.3: hardware counters of one run (name -> value; units beside).
        a["counters"], a["counter_units"] = {}, {}
        if "counters" not in d and "counters" in f["cases"][name]:  # in a file older than tilelab/1.3: unchecked
            d["counters"] = f["cases"][name]["counters"][()]
        if "counters" in d:
            for r in d["counters"]:
                a["counters"][_text(r["name"])] = float(r["value"])
                a["counter_units"][_text(r["name"])] = _text(r["unit"])
        for k, v in DEFAULTS.items():  # device_ordinal -2: not recorded (-1: no GPU)
            a.setdefault(k, v)
        rows.append((place[name], a))
    return meta, rows


def _split(paths, parts=None):
    """How many children read each file (load): parts (a number) each, or by default a share of the CPUs
    as large as a file is (one for every 16 MiB, at most the CPUs over the files)."""
    if parts is not None:
        return [max(1, int(parts))] * len(paths)
    share = max(1, _cpus() // max(1, len(paths)))
    return [max(1, min(share, (os.path.getsize(p) >> 24) if os.path.isfile(p) else 1)) for p in paths]


def load(paths, meta=None, progress=None, parts=None):
    """One row per case of one file or several (meta, a list: each file's load_meta is appended to it,
    from the same read: a large file is checked once, not again by load_meta; progress(path, cases):
    called as each file has been read, for a progress line; parts: children a file, as read_rows). Columns:
    the case attributes of the schema (results/README.md), plus file, device and host (of the case's
    session), samples (time_ms as a numpy array), the telemetry samples (<name>_samples, None without
    NVML), reps, median_ms, mean_ms, q1_ms, q3_ms, iqr_ms, min_ms, max_ms, gflops, gbs (from the median),
    counters (metric name -> value, {} without; tilelab/1.3), counter_units, counters_status, and the
    metrics of metrics.add_metrics (with the figures derived from the counters, counters.DERIVED)."""
    envs = {}
    rows = read_rows(paths, meta, progress, parts, envs)
    df = pd.DataFrame(rows)
    if df.empty:
        return df
    stats = [_stats(s) for s in df["samples"]]
    for k in ("reps", "median_ms", "mean_ms", "q1_ms", "q3_ms", "iqr_ms", "min_ms", "max_ms"):
        df[k] = [s[k] for s in stats]
    sec = df["median_ms"] * 1e-3
    df["gflops"] = df["flop"].astype(float) / sec / 1e9
    df["gbs"] = df["bytes"].astype(float) / sec / 1e9
    return add_metrics(df, envs)


def read_rows(paths, meta=None, progress=None, parts=None, envs=None):
    """The cases of one file or several, checked, as load's rows before its statistics: a dict a case
    (its attributes, only those it has, plus file, device, host, samples, the telemetry samples and
    counters), in the order of the files and each file's run order. meta and progress: as load's. Each
    file is checked and read in children (a crash of the HDF5 library on a crafted file is a SchemaError),
    several at once, a large file by several, each a part of its cases (parts: how many, by default
    _split's): a tuning sweep of 50000 cases takes minutes in one child. envs (a dict): each file's /env,
    by path."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    paths = [resolve_path(os.fspath(p)) for p in paths]
    counts = _split(paths, parts)
    tasks = [(j, (k, n)) for j, n in enumerate(counts) for k in range(n)]
    left, cases = list(counts), [0] * len(paths)

    def done(i, got):
        j = tasks[i][0]
        left[j] -= 1
        cases[j] += len(got[1])
        if progress and left[j] == 0:
            progress(paths[j], cases[j])
    got = _in_children([paths[j] for j, _ in tasks],
                       [functools.partial(_read_cases, part=part) for _, part in tasks], done=done)
    rows, metas = [], [None] * len(paths)
    for (j, _), (m, r) in zip(tasks, got):
        metas[j] = m
    for j, path in enumerate(paths):
        mine = [r for (i, _), (_, r) in zip(tasks, got) if i == j]
        rows.extend(a for _, a in sorted((x for r in mine for x in r), key=lambda x: x[0]))
        if envs is not None:
            envs[path] = metas[j][1]
    if meta is not None:
        meta.extend(metas)
    return rows


def _stats(s):
    if len(s) == 0:
        nan = float("nan")
        return dict(reps=0, median_ms=nan, mean_ms=nan, q1_ms=nan, q3_ms=nan, iqr_ms=nan, min_ms=nan, max_ms=nan)
    q1, med, q3 = np.percentile(s, [25, 50, 75])
    return dict(reps=len(s), median_ms=float(med), mean_ms=float(np.mean(s)), q1_ms=float(q1), q3_ms=float(q3),
                iqr_ms=float(q3 - q1), min_ms=float(np.min(s)), max_ms=float(np.max(s)))
