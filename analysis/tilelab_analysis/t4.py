"""Kernel Tuner's T4 results format (its schema/T4/1.0.0: results-schema.json and metadata-schema.json), so
tools that read T4 take tilelab's result files: a T4 result a case, its configuration the variant's params
(integers) with the variant and the problem (its size axes, layouts and dtype) beside them, since one tilelab
file may hold several variants and problems; the metadata file names the machine and the software.

Times in `times` are seconds; `runtimes` holds every timed sample of the case, in seconds. `measurements`
carry the median time (ms), the rate, and where measured the energy (J a run), the power (W) and the hardware
counters, each with its unit. `invalidity`: correct (ok), correctness (verify_failed), constraints (skipped:
a rule or the device ruled it out), runtime (error), timeout."""
import argparse
import json
import math
import sys

from . import cli
from .load import SchemaError, load, resolve_path

SCHEMA_VERSION = "1.0.0"
INVALIDITY = {"ok": "correct", "verify_failed": "correctness", "skipped": "constraints", "error": "runtime",
              "timeout": "timeout"}
# The phases of a case outside its timed runs (tilelab/1.5's t_<phase>_s), as T4's `framework` time.
FRAMEWORK = ("t_load_s", "t_inputs_s", "t_reference_s", "t_warmup_s", "t_loop_s", "t_telemetry_s",
             "t_counters_s", "t_trials_s", "t_energy_s")


def _num(v):
    """A JSON number, or None for a missing or not-finite one (JSON has no NaN)."""
    try:
        v = float(v)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def _params(text):
    out = {}
    for kv in str(text or "").split(","):
        if "=" in kv:
            k, v = kv.split("=", 1)
            try:
                out[k] = int(v)
            except ValueError:
                out[k] = v
    return out


def _result(r, created):
    config = _params(r["params"])
    config.update(variant=r["variant"], layouts=r["layouts"], dtype=r["dtype"])
    config.update({k: int(v) for k, v in _params(r["sizes"]).items() if isinstance(v, int)})
    times = {"compilation_time": _num(r.get("t_compile_s")) or 0.0,
             "runtimes": [float(x) * 1e-3 for x in r["samples"]],
             "framework": sum(_num(r.get(k)) or 0.0 for k in FRAMEWORK),
             "search_algorithm": 0.0,
             "validation": _num(r.get("t_verify_s")) or 0.0}
    m = [{"name": "time", "value": _num(r["median_ms"]), "unit": "ms"},
         {"name": r["rate_name"], "value": _num(r["rate"]), "unit": r["rate_name"]}]
    if _num(r.get("energy_j")) is not None:
        m += [{"name": "energy", "value": _num(r["energy_j"]), "unit": "J"},
              {"name": "power", "value": _num(r.get("energy_power_w")), "unit": "W"}]
    units = r.get("counter_units") or {}
    for name, value in (r.get("counters") or {}).items():
        m.append({"name": name, "value": _num(value), "unit": units.get(name, "")})
    out = {"timestamp": created, "configuration": config, "objectives": ["time"], "times": times,
           "invalidity": INVALIDITY.get(r["status"], "runtime"), "correctness": 1.0 if r["status"] == "ok" else 0.0,
           "measurements": [x for x in m if x["value"] is not None]}
    return out


def results(df, paths, metas):
    """The T4 results document of a frame (load of paths) and its files' metadata (load's meta)."""
    created = {resolve_path(p): str(root.get("created_utc", "")) for p, (root, _) in zip(paths, metas)}
    return {"schema_version": SCHEMA_VERSION,
            "results": [_result(r, created.get(r["file"], "")) for _, r in df.iterrows()]}


def metadata(metas):
    """The T4 metadata document: each file's /env as the machine's description, the software that ran."""
    envs = [env for _, env in metas]
    roots = [root for root, _ in metas]
    return {"schema_version": SCHEMA_VERSION,
            "metadata": {"hardware": {"hardware_description": [{k: v for k, v in e.items()} for e in envs],
                                      "operating_system": "Linux"},
                         "environment": {"device_query": {k: v for k, v in (envs[0] if envs else {}).items()},
                                         "requirements": sorted({"tilelab %s (%s)" % (r.get("tilelab_version", "?"),
                                                                                       r.get("git_commit", "?"))
                                                                 for r in roots})}}}


def main(argv=None):
    ap = argparse.ArgumentParser(prog="t4", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+", help="tilelab result files (.h5)")
    ap.add_argument("-o", "--output", required=True, help="the results file (.json); the metadata goes beside it "
                    "as <name>.metadata.json")
    args = ap.parse_args(argv)
    meta = []
    try:
        df = load(args.files, meta=meta)
    except (OSError, SchemaError) as e:
        print("t4: %s" % e, file=sys.stderr)
        return 2
    out = resolve_path(args.output)
    base = out[:-5] if out.endswith(".json") else out
    try:
        with open(out, "w") as f:
            json.dump(results(df, args.files, meta), f, indent=1, default=str)
        with open(base + ".metadata.json", "w") as f:
            json.dump(metadata(meta), f, indent=1, default=str)
    except OSError as e:
        print("t4: %s" % e, file=sys.stderr)
        return 2
    print("t4: %s (%d results) and %s" % (out, len(df), base + ".metadata.json"))
    return 0


def entry():
    """The installed command (pyproject.toml's scripts)."""
    cli.run(main)


if __name__ == "__main__":
    cli.run(main)
