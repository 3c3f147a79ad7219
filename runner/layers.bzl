"""The runner's layers, lowest first (runner/README.md says what each holds).

A layer's targets are visible only to the layers above it (and to the harnesses that link the runner's code
into programs of their own), so the build refuses a call that goes down-up. The search folder holds two
layers: its strategies (pure: a space of points, no plan, no file), which the experiment's reader names, and
the searches of a plan, which read result files.
"""

LAYERS = [
    ("util", "util"),
    ("strategies", "search"),
    ("measure", "measure"),
    ("ops", "ops"),
    ("config", "config"),
    ("plan", "plan"),
    ("jit", "jit"),
    ("exec", "exec"),
    ("store", "store"),
    ("search", "search"),
    ("run", "run"),
    ("fleet", "fleet"),
    ("cmd", "cmd"),
]

# Above every layer: the runner's binary, the test fixtures, and the harnesses outside runner/ that link its code.
HARNESSES = [
    "//runner:__pkg__",
    "//runner/testing:__pkg__",
    "//bench:__pkg__",
    "//fuzz:__pkg__",
]

def above(layer, also = []):
    """The visibility of a layer's targets: the packages of the layers above it, the harnesses, and also."""
    names = [name for name, _ in LAYERS]
    if layer not in names:
        fail("no layer '%s' in runner/layers.bzl" % layer)
    pkgs = {}
    for _, pkg in LAYERS[names.index(layer) + 1:]:
        pkgs["//runner/%s:__pkg__" % pkg] = True
    return sorted(pkgs.keys()) + HARNESSES + also

def layer_files():
    """The folder's C sources, its BUILD and its README, for the tests that read the code itself (tests/layout_test.py)."""
    native.filegroup(
        name = "c_files",
        srcs = native.glob(["*.c", "*.h", "*.cu"]) + ["BUILD", "README.md"],
        visibility = ["//runner:__pkg__"],
    )
