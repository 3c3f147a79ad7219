#!/usr/bin/env python3
"""Writes a held-out tuning experiment: the candidates (variants) of a tuning experiment run on the
sizes, layouts and args of another experiment, so that `runner table-check TABLE --against HELD` can say
how the table's picks do on shapes it was not tuned on, without a GPU, for any change of the dispatch.

    python3 tools/held_out.py experiments/sgemm_dispatch_tune.yaml experiments/sgemm_random.yaml \\
        --drop skinny -o held.yaml
    runner run held.yaml -o held.h5
    python3 analysis/dispatch_table.py held.h5 -o docs/results/heldout_h100.table
    runner table-check kernels/sgemm/tuned_h100.table --against docs/results/heldout_h100.table

From SIZES.yaml: op, seed, dtype, data, args, layout and sizes; from TUNE.yaml: variants (less those
--drop names, or only those --keep names), reference and measure.

New candidates for a table without measuring its rows again (analysis/dispatch_table.py --add-to): the
tuning's own sizes, its new candidates and the library bar, and with --anchor the dispatching variant at
`trials: 1`, which at a problem the table measured runs its fastest row there:

    python3 tools/held_out.py experiments/sgemm_dispatch_tune.yaml experiments/sgemm_dispatch_tune.yaml \\
        --keep tf32x3 --keep cublas --anchor tuned -o add.yaml
    runner run add.yaml -o add.h5
    python3 analysis/dispatch_table.py add.h5 --add-to kernels/sgemm/tuned_h100.table -o new.table

With --keep cublas --anchor cublas, nothing is added: the library is the anchor (dispatch_table.py
--add-to --anchor cublas), and only the new candidates are compiled.

--keep NAME:TEXT keeps only the items of NAME whose lines have TEXT (e.g. tf32x3:SPLITK). The files are
read as text, a top-level key a line at column 0, so their comments and flow style stay as they are.
Exit 2, naming the file, on what it cannot use.
"""

import argparse
import os
import sys

FROM_SIZES = ("op", "seed", "dtype", "data", "args", "layout", "sizes")
FROM_TUNE = ("variants", "reference", "measure")


class Bad(Exception):
    pass


def blocks(path):
    """{top-level key: its lines (the key's own line first)} of a YAML file, in file order."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise Bad("%s: %s" % (path, e.strerror or e))
    out, key = {}, None
    for n, line in enumerate(lines, 1):
        if line[:1] not in ("", " ", "#", "\t"):
            key = line.split(":", 1)[0].strip()
            if ":" not in line or not key:
                raise Bad("%s:%d: a top-level line that is not `key: ...`" % (path, n))
            if key in out:
                raise Bad("%s:%d: %s appears twice" % (path, n, key))
            out[key] = [line]
        elif key is not None:
            out[key].append(line)
    return out


def variant_name(item):
    """The variant an item of the variants list names: `- name: X ...`, `- {name: X, ...}` or `- X`."""
    head = item[0].strip()[1:].strip().lstrip("{").strip()
    if head.startswith("name:"):
        return head[5:].split(",")[0].split("}")[0].split("#")[0].strip()
    return head.split("#")[0].strip()


def variants(lines, drop, path, keep=None, anchor=None):
    """The variants block with the items whose variant is in drop left out (comment lines too), or with
    keep only those whose variant is in keep; with anchor, `{name: ANCHOR, trials: 1}` after them."""
    head, items = lines[0], []
    if head.split(":", 1)[1].split("#")[0].strip():
        raise Bad("%s: variants: a block list (`variants:` and `  - ...` lines) is what this reads" % path)
    for line in lines[1:]:
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("- "):
            items.append([line])
        elif items:
            items[-1].append(line)
        else:
            raise Bad("%s: variants: '%s' before the first item" % (path, stripped))
    if keep:
        def takes(want, item):  # NAME, or NAME:TEXT (an item of NAME whose lines have TEXT)
            name, _, text = want.partition(":")
            return variant_name(item) == name and text in "\n".join(item)
        missing = sorted(w for w in keep if not any(takes(w, i) for i in items))
        if missing:
            raise Bad("%s: variants: no item of %s (--keep)" % (path, ", ".join(missing)))
        kept = [i for i in items if any(takes(w, i) for w in keep)]
    else:
        kept = [i for i in items if variant_name(i) not in drop]
    if not kept:
        raise Bad("%s: variants: nothing left after --drop %s" % (path, ",".join(sorted(drop))))
    # An anchor the file runs already (the library, kept: dispatch_table.py --anchor cublas) is not added.
    tail = ["  - {name: %s, trials: 1}  # the anchor: at a problem its table measured, the table's fastest row"
            % anchor] if anchor and not any(variant_name(i) == anchor for i in kept) else []
    return [head] + [line for i in kept for line in i] + tail


def held_out(tune, sizes, drop, keep=None, anchor=None):
    t, s = blocks(tune), blocks(sizes)
    for key in ("op", "sizes"):
        if key not in s:
            raise Bad("%s: no %s" % (sizes, key))
    if "variants" not in t:
        raise Bad("%s: no variants" % tune)
    if s["op"][0] != t.get("op", s["op"])[0]:
        raise Bad("%s and %s are of different ops" % (tune, sizes))
    name = s.get("name", ["name: held"])[0].split(":", 1)[1].split("#")[0].strip() or "held"
    vlines = variants(t["variants"], drop, tune, keep, anchor)
    runs = anchor and not any(line.startswith("  - {name: %s, trials: 1}" % anchor) for line in vlines)
    if anchor:
        out = ["name: %s_%s" % (name, "_".join(sorted(k.partition(":")[0] for k in keep) or ["candidates"])),
               "description: >-",
               "  %s of %s on the shapes of %s" % (", ".join(sorted(keep)) if keep else "The candidates",
                                                   os.path.basename(tune), os.path.basename(sizes)),
               "  against %s (tools/held_out.py): rows to add to a table with" % (
                   "%s, which it runs already" % anchor if runs else "%s with trials 1" % anchor),
               "  analysis/dispatch_table.py --add-to --anchor %s." % anchor]
    else:
        out = ["name: %s_candidates" % name,
               "description: >-",
               "  The candidates of %s on the shapes of %s (tools/held_out.py): a held-out"
               % (os.path.basename(tune), os.path.basename(sizes)),
               "  measurement for runner table-check --against."]
    for key in FROM_SIZES:
        out += s.get(key, [])
    for key in FROM_TUNE:
        if key == "variants":
            out += vlines
        else:
            out += t.get(key, [])
    return "\n".join(out) + "\n"


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("tune", help="the tuning experiment (its variants are the candidates)")
    ap.add_argument("sizes", help="the experiment whose sizes, layouts and args they run on")
    ap.add_argument("--drop", action="append", default=[], help="a variant to leave out (repeatable)")
    ap.add_argument("--keep", action="append", default=[],
                    help="keep only this variant's items, NAME or NAME:TEXT (those of its items with TEXT in them); "
                         "repeatable; not with --drop")
    ap.add_argument("--anchor", help="a dispatching variant to run with trials: 1 beside them (for --add-to); "
                    "a variant the file runs already (the library, kept: --anchor cublas) is not added")
    ap.add_argument("-o", "--output", help="the experiment file to write (default: standard output)")
    a = ap.parse_args(argv)
    if a.keep and a.drop:
        print("held_out: --keep and --drop do not go together", file=sys.stderr)
        return 2
    try:
        text = held_out(a.tune, a.sizes, set(a.drop), set(a.keep), a.anchor)
    except Bad as e:
        print("held_out: %s" % e, file=sys.stderr)
        return 2
    if a.output:
        with open(a.output, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
