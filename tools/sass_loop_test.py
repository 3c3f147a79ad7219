"""tools/sass_loop.py on SASS text in cuobjdump's layout: the loops it finds, what it counts in them, and
its refusals (exit 2 with the file named)."""
import os
import subprocess
import sys
import tempfile

TOOL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sass_loop.py")


def word(stall, reuse_bits=0):
    """The second 64-bit word of an instruction with this stall count in its control bits."""
    return "0x%016x" % ((stall << 41) | (reuse_bits << 58))


def instr(addr, text, stall):
    return ("        /*%04x*/                   %-40s /* 0x000000000000%04x */\n"
            "                                                                          /* %s */\n"
            % (addr, text, addr, word(stall)))


# Function k: a loop 0x0010 - 0x0090 (two FFMA, two shared loads between them, three after the second, a
# LEA waiting 3 cycles, the branch back waiting 5), and an outer loop 0x0000 - 0x00a0 around it; function
# j: no loop.
SASS = ("\tcode for sm_90\n\t\tFunction : k\n\t.headerflags\t@\"EF_CUDA_SM90\"\n"
        + instr(0x00, "MOV R1, c[0x0][0x28] ;", 1)
        + instr(0x10, "FFMA R2, R3.reuse, R4, R2 ;", 1)
        + instr(0x20, "LDS.128 R12, [R1] ;", 1)
        + instr(0x30, "LDS.128 R16, [R1+0x10] ;", 1)
        + instr(0x40, "FFMA R5, R3, R6.reuse, R5 ;", 1)
        + instr(0x50, "LDS.128 R20, [R1+0x20] ;", 1)
        + instr(0x60, "LDS.128 R24, [R1+0x30] ;", 1)
        + instr(0x70, "LDS R28, [R1+0x40] ;", 1)
        + instr(0x80, "LEA R7, R8, R9, 0x2 ;", 3)
        + instr(0x90, "@P0 BRA 0x10 ;", 5)
        + instr(0xa0, "@!P1 BRA 0x0 ;", 2)
        + instr(0xb0, "EXIT ;", 1)
        + "\t\t..........\n\n\t\tFunction : j\n"
        + instr(0x00, "EXIT ;", 1))


def run(*args):
    return subprocess.run([sys.executable, TOOL] + list(args), capture_output=True, text=True)


def main():
    failures = []

    def check(ok, what):
        print(("ok   " if ok else "FAIL ") + what)
        if not ok:
            failures.append(what)

    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "k.sass")
        with open(path, "w") as f:
            f.write(SASS)

        sys.path.insert(0, os.path.dirname(TOOL))
        import sass_loop

        fns = sass_loop.parse(SASS)
        check(list(fns) == ["k", "j"], "both functions found, in order: %s" % list(fns))
        check([i["stall"] for i in fns["k"]] == [1, 1, 1, 1, 1, 1, 1, 1, 3, 5, 2, 1], "stall counts read from the control bits")
        spans = sass_loop.loops(fns["k"])
        check(spans == [(0x10, 0x90), (0x0, 0xa0)], "both backward branches, innermost first: %s" % spans)
        r = sass_loop.loop_report(fns["k"], 0x10, 0x90)
        check(r["bytes"] == 144 and r["instructions"] == 9, "inner loop: 144 bytes, 9 instructions: %s" % r)
        check(abs(r["ffma_share"] - 2 / 9) < 1e-9, "inner loop: 2 of its 9 instructions FFMA")
        check(abs(r["stall_per_instruction"] - 15 / 9) < 1e-9, "inner loop: (7 x 1 + 3 + 5) / 9 stall cycles")
        check(r["over_one"] == 2 and dict(r["over_one_by_op"]) == {"LEA": 1, "BRA": 1},
              "inner loop: the LEA and the branch wait more than a cycle")
        check(abs(r["reused_per_ffma"] - 1.0) < 1e-9, "inner loop: one reused operand a FFMA")
        check(r["shared_loads"] == 5 and r["clustered_loads"] == 3,
              "inner loop: 5 shared loads, the 3 after the second FFMA back to back (the 2 before it are not)")

        p = run(path, "--min-instructions", "1")
        check(p.returncode == 0 and "k: loop 0x0010 - 0x0090, 144 bytes, 9 instructions" in p.stdout
              and "k: loop 0x0000 - 0x00a0" in p.stdout and "j: no loop" in p.stdout
              and "shared loads 5, of them in runs of three or more between FFMAs 3" in p.stdout,
              "the report names every loop of k and says j has none:\n" + p.stdout + p.stderr)
        p = run(path)
        check(p.returncode == 0 and "k: no loop of 64 instructions or more" in p.stdout,
              "short loops left out by default")
        p = run(path, "--function", "nope")
        check(p.returncode == 2 and "no function nope" in p.stderr and "k, j" in p.stderr and path in p.stderr,
              "an unknown function: exit 2, the file and the functions it has named")
        bad = os.path.join(d, "bad.sass")
        with open(bad, "w") as f:
            f.write("\t\tFunction : k\n        /*0000*/   EXIT ;   /* 0x000000000000794d */\n")
        p = run(bad)
        check(p.returncode == 2 and bad in p.stderr and "second word" in p.stderr,
              "an instruction cut short: exit 2 naming the file and line: " + p.stderr.strip())
        empty = os.path.join(d, "empty.sass")
        open(empty, "w").close()
        p = run(empty)
        check(p.returncode == 2 and "no function" in p.stderr, "a file with no SASS: exit 2")
        p = run(os.path.join(d, "missing.sass"))
        check(p.returncode == 2 and "missing.sass" in p.stderr, "a missing file: exit 2 naming it")
        cubin = os.path.join(d, "k.cubin")
        with open(cubin, "wb") as f:
            f.write(b"tilelab-cubin/2\nkey 00\n\x7fELF\x02\x01\x01not really an elf")
        env = dict(os.environ, PATH="/nonexistent", TILELAB_SASS_TOOLS=os.path.join(d, "none"))
        p = subprocess.run([sys.executable, TOOL, cubin], capture_output=True, text=True, env=env)
        check(p.returncode == 2 and cubin in p.stderr and "no cuobjdump" in p.stderr,
              "a kernel-cache cubin without cuobjdump: exit 2, saying what is missing: " + p.stderr.strip())
        p = run("--help")
        check(p.returncode == 0 and "--function" in p.stdout, "--help")

    if failures:
        print("%d FAILED" % len(failures))
        return 1
    print("all passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
