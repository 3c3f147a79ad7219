"""The house's dependencies run one way: no C module of the runner or the ops includes, through any
chain, a module that includes it back; no C file calls or reads, through any chain, a function or global
of a file that reaches it back; and no module of the analysis package imports, through any chain, one that
imports it back. A module is a .c/.h pair (runner/jit.c and runner/jit.h are one module) or a .py file. A
cycle makes a file impossible to read, build or test on its own: its room has no door."""
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
    """{module: modules it includes}, modules named 'runner/jit' for runner/jit.c and runner/jit.h."""
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


COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
STRING = re.compile(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'')
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
                    texts["%s/%s" % (d, name)] = STRING.sub('""', COMMENT.sub(" ", f.read()))
    owner = {}
    for path, text in sorted(texts.items()):
        for m in DEFINED.finditer(text):
            owner.setdefault(m.group(1), path)
        for m in GLOBAL.finditer(text):
            owner.setdefault(m.group(1), path)
    owner.pop("main", None)
    return {path: {owner[w] for w in set(USED.findall(text)) if owner.get(w, path) != path}
            for path, text in texts.items()}


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
        self.assertIn("runner/jit", graph)
        self.assertIn("runner/registry", graph["runner/plan"] | graph["runner/config"])
        cycle = find_cycle(graph)
        self.assertIsNone(cycle, "modules that include each other: %s" % " -> ".join(cycle or []))

    def test_c_files_call_one_way(self):
        graph = c_calls()
        self.assertIn("runner/registry.c", graph["runner/plan.c"])  # the graph sees calls
        self.assertIn("kernels/ops.c", graph["runner/registry_lookup.c"])  # and globals read
        test_helpers = {p for p in graph if "fixture" in p or "test_" in os.path.basename(p) or "check" in p}
        cycle = find_cycle({p: deps - test_helpers for p, deps in graph.items() if p not in test_helpers})
        self.assertIsNone(cycle, "files that call each other: %s" % " -> ".join(cycle or []))

    def test_analysis_modules_import_one_way(self):
        graph = py_graph(os.path.join(ROOT, "analysis", "tilelab_analysis"))
        self.assertIn("metrics", graph["load"])
        cycle = find_cycle(graph)
        self.assertIsNone(cycle, "modules that import each other: %s" % " -> ".join(cycle or []))


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
