"""The house's dependencies run one way: no C module of the runner or the ops includes, through any
chain, a module that includes it back; no C file calls or reads, through any chain, a function or global
of a file that reaches it back; and no module of the analysis package imports, through any chain, one that
imports it back. A module is a .c/.h pair (runner/jit/jit.c and runner/jit/jit.h are one module) or a .py file. A
cycle makes a file impossible to read, build or test on its own: its room has no door.

The runner's folders are layers (runner/layers.bzl, lowest first): the build lets a layer's targets be used only
by the layers above it, which holds for headers; here no C file calls or reads a function or global of a layer
above its own either, and every source file is named in its folder's README, the folder's map."""
import ast
import fnmatch
import os
import re
import sys
import unittest

ROOT = os.environ.get("TEST_SRCDIR") and os.path.join(os.environ["TEST_SRCDIR"], os.environ.get("TEST_WORKSPACE", ""))
if not ROOT or not os.path.isdir(os.path.join(ROOT, "runner")):
    ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

def c_dirs():
    """runner and kernels, and every folder under them that holds C: a new op's folder is walked, not listed."""
    out = []
    for top in ("runner", "kernels"):
        for d, _, names in os.walk(os.path.join(ROOT, top)):
            if any(n.endswith((".c", ".h")) for n in names):
                out.append(os.path.relpath(d, ROOT))
    return sorted(out)


C_DIRS = c_dirs()
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
PY_IMPORT = re.compile(r"^\s*(?:from\s+\.(\w*)\s+import\s+([\w, ]+)|import\s+\.(\w+))", re.M)


def c_graph():
    """{module: modules it includes}, modules named 'runner/jit' for runner/jit/jit.c and runner/jit/jit.h."""
    graph = {}
    for d in C_DIRS:
        full = os.path.join(ROOT, d)
        if not os.path.isdir(full):
            continue
        for name in os.listdir(full):
            if not name.endswith((".c", ".h")):
                continue
            mod = "%s/%s" % (d, name.rsplit(".", 1)[0])
            with open(os.path.join(full, name), errors="replace") as f:
                text = f.read()
            deps = graph.setdefault(mod, set())
            for inc in INCLUDE.findall(text):
                if not inc.endswith(".h"):
                    continue
                target = inc[:-2] if "/" in inc else "%s/%s" % (d, inc[:-2])
                if target != mod:
                    deps.add(target)
    return {m: {t for t in deps if t in graph} for m, deps in graph.items()}


# A string or character literal, or a comment: one pass, so that "//" in a string or an apostrophe in a comment
# is taken for what it is.
TOKEN = re.compile(r'("(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\')|/\*.*?\*/|//[^\n]*', re.S)


def code_only(text):
    """text with each string and character literal emptied and each comment a space."""
    return TOKEN.sub(lambda m: '""' if m.group(1) else " ", text)
# A function defined with external linkage: a line that starts with its type (not static) and ends in "{".
DEFINED = re.compile(r"^(?!static\b|typedef\b|extern\b)[A-Za-z_][\w \t*]*?\b([a-z_]\w*)\s*\([^;{]*\)\s*\{", re.M)
# A global with external linkage: "type name = ..." or "type name[] = ..." at the start of a line.
GLOBAL = re.compile(r"^(?!static\b|typedef\b|extern\b)(?:const\s+)?[A-Za-z_][\w \t*]*?\b([a-z_]\w*)\s*(?:\[[^\]]*\])?\s*=",
                    re.M)
# A name used, not a field: not after "." or "->".
USED = re.compile(r"(?<![.\w>])([a-z_]\w*)\b")


def c_calls():
    """{C file: the other C files whose functions or globals it names}, over the runner's and the ops' code
    (tests and test fixtures aside). main is the program's entry, never called."""
    texts = {}
    for d in C_DIRS:
        for name in os.listdir(os.path.join(ROOT, d)):
            if name.endswith(".c") and not name.endswith("_test.c"):
                with open(os.path.join(ROOT, d, name), errors="replace") as f:
                    texts["%s/%s" % (d, name)] = code_only(f.read())
    owner = {}
    for path, text in sorted(texts.items()):
        for m in DEFINED.finditer(text):
            owner.setdefault(m.group(1), path)
        for m in GLOBAL.finditer(text):
            owner.setdefault(m.group(1), path)
    owner.pop("main", None)
    return {path: {owner[w] for w in set(USED.findall(text)) if owner.get(w, path) != path}
            for path, text in texts.items()}


LAYER_ROW = re.compile(r'^\s*\("(\w+)",\s*"(\w+)"\),', re.M)
LIBRARY = re.compile(r'cc_library\(\s*name = "(\w+)",(.*?)\n\)', re.S)
LIST = re.compile(r'^(\w+) = (\[[^\]]*\])', re.M)


def library_srcs(build, folder):
    """{library name: its .c files}, from a BUILD whose srcs are a list, a list's name, or a glob of the folder
    with excludes (lists and names of lists)."""
    lists = {name: ast.literal_eval(text) for name, text in LIST.findall(build)}
    files = sorted(os.listdir(os.path.join(ROOT, "runner", folder)))

    def value(expr):
        expr = expr.strip()
        if expr.startswith("glob("):
            m = re.match(r"glob\(\s*(\[[^\]]*\])\s*,?\s*(?:exclude\s*=\s*(.*?))?,?\s*\)$", expr, re.S)
            pats, exclude = ast.literal_eval(m.group(1)), value(m.group(2)) if m.group(2) else []
            return [f for f in files if any(fnmatch.fnmatch(f, p) for p in pats) and f not in exclude]
        return sum((lists[t.strip()] if t.strip() in lists else ast.literal_eval(t) for t in expr.split("+")), [])

    out = {}
    for name, body in LIBRARY.findall(build):
        m = re.search(r"^    srcs = (.*?),\n    \w+ =", body + "\n    end =", re.S | re.M)
        out[name] = [f for f in value(m.group(1)) if f.endswith(".c")] if m else []
    return out


def layers():
    """[(layer, folder)] lowest first, as runner/layers.bzl lists them."""
    with open(os.path.join(ROOT, "runner", "layers.bzl")) as f:
        return LAYER_ROW.findall(f.read())


def layer_rank():
    """{C file: its layer's rank}: a file's layer is that of the library in its folder's BUILD that builds it (a
    library named as a layer, else its folder's first layer). The kernels sit above ops and below the lookups
    over them (ops:shipped)."""
    rows = layers()
    rank, first = {}, {}
    for i, (layer, folder) in enumerate(rows):
        rank[layer] = 2 * i
        first.setdefault(folder, layer)
    out = {}
    for layer, folder in rows:
        if first[folder] != layer:
            continue
        with open(os.path.join(ROOT, "runner", folder, "BUILD")) as f:
            build = f.read()
        for name, srcs in library_srcs(build, folder).items():
            r = rank.get(name, rank[layer]) + (1.5 if name == "shipped" else 0)
            for src in srcs:
                out["runner/%s/%s" % (folder, src)] = r
    for d in C_DIRS:
        if d.startswith("kernels"):
            for name in os.listdir(os.path.join(ROOT, d)):
                if name.endswith(".c"):
                    out["%s/%s" % (d, name)] = rank["ops"] + 1
    return out


def py_graph(package):
    graph = {}
    for name in os.listdir(package):
        if not name.endswith(".py") or name == "__init__.py":
            continue
        with open(os.path.join(package, name)) as f:
            text = f.read()
        deps = set()
        for mod, names, plain in PY_IMPORT.findall(text):
            if mod:
                deps.add(mod)
            elif plain:
                deps.add(plain)
            else:  # from . import a, b
                deps.update(n.strip() for n in names.split(",") if n.strip())
        graph[name[:-3]] = deps
    return {m: {t for t in deps if t in graph and t != m} for m, deps in graph.items()}


def find_cycle(graph):
    """A list of modules that close a cycle, or None."""
    state, stack = {}, []

    def visit(m):
        state[m] = 1
        stack.append(m)
        for t in sorted(graph[m]):
            if state.get(t) == 1:
                return stack[stack.index(t):] + [t]
            if t not in state:
                c = visit(t)
                if c:
                    return c
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state:
            c = visit(m)
            if c:
                return c
    return None


class LayoutTest(unittest.TestCase):
    def test_finds_a_cycle_when_there_is_one(self):
        self.assertEqual(find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}), ["a", "b", "c", "a"])
        self.assertIsNone(find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}))

    def test_c_modules_include_one_way(self):
        graph = c_graph()
        self.assertIn("runner/jit/jit", graph)
        self.assertIn("runner/ops/registry", graph["runner/config/experiment"])
        cycle = find_cycle(graph)
        self.assertIsNone(cycle, "modules that include each other: %s" % " -> ".join(cycle or []))

    def test_c_files_call_one_way(self):
        graph = c_calls()
        self.assertIn("runner/ops/registry.c", graph["runner/plan/plan.c"])  # the graph sees calls
        self.assertIn("kernels/ops.c", graph["runner/ops/registry_lookup.c"])  # and globals read
        test_helpers = {p for p in graph if "fixture" in p or "test_" in os.path.basename(p) or "check" in p}
        cycle = find_cycle({p: deps - test_helpers for p, deps in graph.items() if p not in test_helpers})
        self.assertIsNone(cycle, "files that call each other: %s" % " -> ".join(cycle or []))

    def test_layers_call_down(self):
        rank = layer_rank()
        self.assertEqual(sorted(p for p in c_calls() if p.startswith("runner/") and p not in rank),
                         ["runner/main.c", "runner/testing/counters_fixture.c", "runner/testing/dop_fill_check.c",
                          "runner/testing/test_result.c"], "files of no layer")
        self.assertLess(rank["runner/util/util.c"], rank["runner/ops/registry.c"])
        self.assertLess(rank["kernels/ops.c"], rank["runner/ops/registry_lookup.c"])
        self.assertLess(rank["runner/search/search_strategy.c"], rank["runner/config/config.c"])
        self.assertLess(rank["runner/store/h5out.c"], rank["runner/search/search_driver.c"])
        up = ["%s calls %s" % (a, b) for a, deps in sorted(c_calls().items()) if a in rank
              for b in sorted(deps) if b in rank and rank[b] > rank[a]]
        self.assertEqual(up, [], "calls from a layer into one above it (runner/layers.bzl)")

    def test_the_layers_are_the_folders(self):
        folders = sorted(d for d in os.listdir(os.path.join(ROOT, "runner"))
                         if os.path.isdir(os.path.join(ROOT, "runner", d)))
        self.assertEqual(sorted({f for _, f in layers()} | {"testing"}), folders)
        with open(os.path.join(ROOT, "runner", "README.md")) as f:
            top = f.read()
        self.assertEqual([d for d in folders if "(%s/README.md)" % d not in top], [], "folders runner/README.md lacks")
        self.assertEqual(sorted(n for n in os.listdir(os.path.join(ROOT, "runner"))
                                if n.endswith((".c", ".h", ".cu"))), ["main.c"], "C outside the layers")

    def test_every_source_is_in_its_folders_readme(self):
        missing = []
        for d in sorted(os.listdir(os.path.join(ROOT, "runner"))):
            full = os.path.join(ROOT, "runner", d)
            if not os.path.isdir(full):
                continue
            with open(os.path.join(full, "README.md")) as f:
                readme = f.read()
            missing += ["runner/%s/%s" % (d, n) for n in sorted(os.listdir(full))
                        if n.endswith((".c", ".h", ".cu")) and "`%s`" % n not in readme]
        self.assertEqual(missing, [], "source files no folder README names")

    def test_a_files_functions_carry_its_name(self):
        # A function of runner/<layer>/name.c is name_..., or of its family (search_driver.c: search_...; jit_build.c:
        # jit_...). Three prefixes are the house's, short because every file uses them: tl_ (util.c), reg_ (the
        # registry, the kernels' contract) and sch_ (the schema's rows); cublas_lazy.c defines cuBLAS's own names.
        house = {"util.c": "tl_", "registry.c": "reg_", "registry_lookup.c": "reg_", "schema.c": "sch_",
                 "cublas_lazy.c": "cublas"}
        stray = []
        for d in C_DIRS:
            if not d.startswith("runner/"):
                continue
            for name in sorted(os.listdir(os.path.join(ROOT, d))):
                if not name.endswith(".c") or name.endswith("_test.c") or name == "main.c":
                    continue
                stem = name[:-2]
                allowed = (stem + "_", stem.split("_")[0] + "_", house.get(name, stem + "_"))
                with open(os.path.join(ROOT, d, name), errors="replace") as f:
                    text = code_only(f.read())
                stray += ["%s/%s: %s" % (d, name, m.group(1)) for m in DEFINED.finditer(text)
                          if m.group(1) != "main" and not m.group(1).startswith(allowed)]
        self.assertEqual(stray, [])

    def test_no_c_file_over_900_lines(self):
        # A file past 900 lines holds more than one concern: split it by concern (config.c and h5out.c were).
        long = []
        for d in C_DIRS:
            for name in sorted(os.listdir(os.path.join(ROOT, d))):
                if name.endswith((".c", ".h", ".cu", ".cuh")):
                    with open(os.path.join(ROOT, d, name), errors="replace") as f:
                        n = f.read().count("\n")
                    if n > 900:
                        long.append("%s/%s: %d lines" % (d, name, n))
        self.assertEqual(long, [])

    def test_analysis_modules_import_one_way(self):
        graph = py_graph(os.path.join(ROOT, "analysis", "tilelab_analysis"))
        self.assertIn("metrics", graph["load"])
        cycle = find_cycle(graph)
        self.assertIsNone(cycle, "modules that import each other: %s" % " -> ".join(cycle or []))


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
