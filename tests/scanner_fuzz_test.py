"""The include scanner against a real preprocessor: random sources made of the pieces that hide or reveal an
#include (comments, string and character literals, raw strings, digit separators, line splices, digraphs,
conditionals, macros) go through `runner validate`, which lists every file a variant's compile reads, and through
clang's preprocessor as C++17 (`-H` prints each file it opens, also when the source is an error later on). Every
header clang opens must be one validate listed, or validate must refuse the source. (NVRTC cannot open a file
itself in any case: runner/jit/sandbox_test.c; this is the scanner's own agreement with the language.)"""
import os
import random
import re
import shutil
import subprocess
import tempfile
import unittest

RUNNER = os.path.abspath(os.path.join("runner", "runner"))
HEADERS = ["h%d.h" % i for i in range(6)]

# Pieces; {h} is a header's name.
PIECES = [
    '#include "{h}"\n', "#include <{h}>\n", '#  include "{h}"\n', '# /* c */ include "{h}"\n',
    '#include /* c */ "{h}"\n', '%:include "{h}"\n', '%:  include "{h}"\n', '#\\\ninclude "{h}"\n',
    '#inc\\\nlude "{h}"\n', '#include "{h}" // tail\n', '#define INC "{h}"\n#include INC\n',
    '#if 0\n#include "{h}"\n#endif\n', "/*", "*/", "//", "/\\\n*", "*\\\n/", "/\\\n/", "\\\n", '"', "'", "'\"'",
    "'\\''", '"\\""', '"//"', '"/*"', "'/*'", "1'", "1'2", "0x1'f", "1'000'000", "0b1'0", "'a'", "u8'a'",
    'R"(', ')"', 'R"x(', ')x"', 'u8R"(', 'LR"y(', ')y"', 'L"', 'u"', "#define Q '\n", "#define S \"\n",
    "int a = 1;\n", "\n", " ", "\t", "??/\n", "#if 1\n", "#else\n", "#endif\n", "__has_include(\"{h}\")",
    "#error x\n", "#pragma once\n",
]


def sample(rng):
    parts = []
    for _ in range(rng.randint(3, 14)):
        parts.append(rng.choice(PIECES).replace("{h}", rng.choice(HEADERS)))
        parts.append(rng.choice(["", "", " ", "\n"]))
    return "".join(parts) + "\n"


class ScannerFuzz(unittest.TestCase):
    def test_every_file_the_preprocessor_opens_is_listed(self):
        clang = shutil.which("clang")
        self.assertIsNotNone(clang, "clang (tools/setup.sh installs it) is the preprocessor this test compares with")
        d = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        for h in HEADERS:
            open(os.path.join(d, h), "w").close()
        with open(os.path.join(d, "f.yaml"), "w") as f:
            f.write("name: f\nop: copy\nseed: 1\nsizes: {n: [1024]}\nvariants:\n"
                    "  - {name: k, source: k.cu, entry: k, block: [32], grid: [1]}\n")
        rng = random.Random(int(os.environ.get("FUZZ_SEED", "67")))
        n, listed_ok, refused, opened_any = int(os.environ.get("FUZZ_N", "120")), 0, 0, 0
        for i in range(n):
            src = sample(rng)
            with open(os.path.join(d, "k.cu"), "w") as f:
                f.write(src)
            v = subprocess.run([RUNNER, "validate", os.path.join(d, "f.yaml")], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, timeout=60)
            c = subprocess.run([clang, "-x", "c++", "-std=c++17", "-nostdinc", "-E", "-H", "-w", "k.cu", "-o",
                                os.devnull], cwd=d, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               timeout=60)
            opens = [os.path.basename(m) for m in re.findall(r"^\.+ (\S+)$", c.stderr, re.M)]
            # clang recovers from <h.h> not found by opening "h.h" beside the source; NVRTC does not (angle
            # includes are the toolkit's), so such opens are not the folder's.
            for r in re.findall(r"'(\S+)' file not found with <angled> include", c.stderr):
                if os.path.basename(r) in opens:
                    opens.remove(os.path.basename(r))
            opened = set(opens)
            opened_any += bool(opened)
            self.assertIn(v.returncode, (0, 2), "validate: %s\n--- source:\n%s" % (v.stderr, src))
            if v.returncode == 2:
                refused += 1
                continue
            listed_ok += 1
            m = re.search(r"\d+ files?: (.*)$", v.stdout, re.M)
            self.assertIsNotNone(m, v.stdout)
            listed = set(m.group(1).split())
            self.assertTrue(opened <= listed, "clang opened %s, validate listed %s, for the source:\n%r"
                            % (sorted(opened), sorted(listed), src))
        print("%d sources: %d listed (clang opened a header in %d of all), %d refused" % (n, listed_ok, opened_any,
                                                                                          refused))
        # The sample must exercise both outcomes, or it proves nothing.
        self.assertGreater(listed_ok, n // 10)
        self.assertGreater(opened_any, n // 10)


if __name__ == "__main__":
    unittest.main()
