#!/usr/bin/env python3
"""The loops of a kernel's SASS: how long their code is, what they issue, and what their instructions'
control bits ask of the warp scheduler.

usage: sass_loop.py SASS [--function NAME] [--min-instructions N]
  SASS: the text of `cuobjdump -sass` (tools/sass_mix.sh writes one), or a cubin: an ELF file, or an entry
  of the runner's kernel cache (~/.cache/tilelab/cubin/KEY.cubin: what a case ran, as NVRTC compiled it,
  which can differ from nvcc's code for the same source), disassembled with cuobjdump (on PATH, or where
  tools/sass_mix.sh fetches it).

A loop is the range from a backward branch's target to the branch. Per loop: its bytes (what the
instruction caches must hold: a GEMM main loop unrolled over several tiles can outgrow them, and Nsight
Compute then counts `no_instruction` stalls), its instruction mix, the stall cycles its control bits
code (at least 1 an instruction; more where ptxas waits out a fixed latency, which Nsight Compute counts
as `wait`), how many FFMA operands come from the operand reuse caches (`.reuse`) instead of the
register file, and how many shared-memory loads ptxas put back to back. Those are what tell two main loops of equal FFMA share apart (docs/gpu-runs.md,
2026-11-26: packed's loop and cuBLAS's at 4096^3).
"""
import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile

# Volta onwards: a 128-bit instruction, printed as two 64-bit words; the high word's bits 41 - 44 are
# the stall count of the control bits, bit 45 the yield flag.
STALL_SHIFT, STALL_MASK = 41, 0xF

INSTR = re.compile(r"^\s*/\*([0-9a-f]{4,})\*/\s+(?:(@!?U?P[0-9T]+)\s+)?([A-Z][A-Z0-9_.]*)([^;]*);\s*/\*\s*(0x[0-9a-f]{16})\s*\*/")
HIGH = re.compile(r"^\s*/\*\s*(0x[0-9a-f]{16})\s*\*/\s*$")
FUNCTION = re.compile(r"^\s*Function\s*:\s*(\S+)")


def parse(text):
    """{function: [instruction]}, each instruction a dict: addr, op (with modifiers), operands, stall."""
    functions, name, lines = collections.OrderedDict(), None, text.splitlines()
    for i, line in enumerate(lines):
        m = FUNCTION.match(line)
        if m:
            name = m.group(1)
            functions[name] = []
            continue
        m = INSTR.match(line)
        if not m or name is None:
            continue
        high = HIGH.match(lines[i + 1]) if i + 1 < len(lines) else None
        if not high:
            raise ValueError("line %d: an instruction without its second word (is this cuobjdump -sass text?)" % (i + 1))
        functions[name].append({
            "addr": int(m.group(1), 16),
            "op": m.group(3),
            "operands": m.group(4).strip(),
            "stall": (int(high.group(1), 16) >> STALL_SHIFT) & STALL_MASK,
        })
    return functions


def loops(instrs):
    """[(start, end)]: the address ranges of the backward branches, innermost first by size."""
    found = set()
    for ins in instrs:
        if ins["op"].split(".")[0] != "BRA":
            continue
        m = re.search(r"0x([0-9a-f]+)\s*$", ins["operands"])
        if m and int(m.group(1), 16) <= ins["addr"]:
            found.add((int(m.group(1), 16), ins["addr"]))
    return sorted(found, key=lambda r: (r[1] - r[0], r[0]))


def loop_report(instrs, start, end):
    body = [ins for ins in instrs if start <= ins["addr"] <= end]
    n = len(body)
    mix = collections.Counter(ins["op"] for ins in body)
    ffma = [ins for ins in body if ins["op"].split(".")[0] == "FFMA"]
    reused = sum(ins["operands"].count(".reuse") for ins in ffma)
    long_stalls = collections.Counter(ins["op"].split(".")[0] for ins in body if ins["stall"] > 1)
    # Shared-memory loads issued back to back, three or more with no FFMA between them: where ptxas
    # clusters a k-slice's fragment loads so, Nsight Compute counts dispatch stalls (packed at 4096^3:
    # 38 such loads of 102 and 0.44 dispatch stalls an instruction, 16 and 0.24, cuBLAS's loop 0 and 0.10).
    clustered, run = 0, 0
    for ins in body + [{"op": "FFMA"}]:
        if ins["op"].startswith("LDS"):
            run += 1
        elif ins["op"].startswith("FFMA"):
            clustered += run if run >= 3 else 0
            run = 0
    lds = sum(1 for ins in body if ins["op"].startswith("LDS"))
    return {
        "start": start,
        "end": end,
        "bytes": end + 16 - start,
        "instructions": n,
        "mix": mix.most_common(),
        "ffma_share": len(ffma) / n if n else 0.0,
        "stall_per_instruction": sum(ins["stall"] for ins in body) / n if n else 0.0,
        "over_one": sum(long_stalls.values()),
        "over_one_by_op": long_stalls.most_common(),
        "reused_per_ffma": reused / len(ffma) if ffma else 0.0,
        "shared_loads": lds,
        "clustered_loads": clustered,
    }


def describe(name, r, top=6):
    mix = ", ".join("%s %d" % kv for kv in r["mix"][:top])
    over = ", ".join("%s %d" % kv for kv in r["over_one_by_op"][:top]) or "none"
    return ("%s: loop 0x%04x - 0x%04x, %d bytes, %d instructions (%s), FFMA %.1f%%\n"
            "    coded stall %.3f cycles an instruction; over one cycle: %d (%s); reused FFMA operands %.2f a FFMA\n"
            "    shared loads %d, of them in runs of three or more between FFMAs %d"
            % (name, r["start"], r["end"], r["bytes"], r["instructions"], mix, 100.0 * r["ffma_share"],
               r["stall_per_instruction"], r["over_one"], over, r["reused_per_ffma"], r["shared_loads"],
               r["clustered_loads"]))


def cuobjdump():
    found = shutil.which("cuobjdump")
    if found:
        return found
    fetched = os.path.join(os.environ.get("TILELAB_SASS_TOOLS", os.path.expanduser("~/.cache/tilelab/sass-tools")),
                           "nvidia", "cu13", "bin", "cuobjdump")
    return fetched if os.access(fetched, os.X_OK) else None


def read_sass(path):
    """The SASS text of path: itself, or its cubin disassembled (a cache entry's header cut off first)."""
    data = sys.stdin.buffer.read() if path == "-" else open(path, "rb").read()
    elf = data.find(b"\x7fELF")
    if elf != 0 and not (elf > 0 and data.startswith(b"tilelab-cubin/")):
        return data.decode("utf-8", errors="replace")
    tool = cuobjdump()
    if not tool:
        raise ValueError("a cubin, and no cuobjdump to read it (tools/sass_mix.sh fetches one; or pass its SASS text)")
    with tempfile.TemporaryDirectory() as d:
        cubin = os.path.join(d, "k.cubin")
        with open(cubin, "wb") as f:
            f.write(data[elf:])
        p = subprocess.run([tool, "-sass", cubin], capture_output=True, text=True)
        if p.returncode != 0:
            raise ValueError("cuobjdump: " + (p.stderr.strip().splitlines() or ["failed"])[-1])
        return p.stdout


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 epilog="Prints each loop of each function of the SASS.")
    ap.add_argument("sass", help="cuobjdump -sass output, or a cubin (a kernel cache entry too); '-': standard input")
    ap.add_argument("--function", help="only this function (by its name in the SASS)")
    ap.add_argument("--min-instructions", type=int, default=64,
                    help="leave out loops shorter than this (default 64: address and copy loops)")
    args = ap.parse_args(argv)
    try:
        functions = parse(read_sass(args.sass))
    except (OSError, ValueError) as e:
        print("sass_loop: %s: %s" % (args.sass, e), file=sys.stderr)
        return 2
    if args.function:
        if args.function not in functions:
            print("sass_loop: %s: no function %s (it has: %s)" % (args.sass, args.function,
                                                                ", ".join(functions) or "none"), file=sys.stderr)
            return 2
        functions = {args.function: functions[args.function]}
    if not functions:
        print("sass_loop: %s: no function in it (is this cuobjdump -sass text?)" % args.sass, file=sys.stderr)
        return 2
    for name, instrs in functions.items():
        shown = 0
        for start, end in loops(instrs):
            r = loop_report(instrs, start, end)
            if r["instructions"] >= args.min_instructions:
                print(describe(name, r))
                shown += 1
        if not shown:
            print("%s: no loop" % name if not loops(instrs) else
                  "%s: no loop of %d instructions or more" % (name, args.min_instructions))
    return 0


if __name__ == "__main__":
    sys.exit(main())
