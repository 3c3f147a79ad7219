"""Bazel's test sharding for a unittest file: `from shards import load_tests` in the test module and
`shard_count` in its BUILD rule. Shard i of n runs the test methods i, i + n, ... in the order of their ids,
so that a file of slow tests spreads over the cores without a list of which goes where."""
import os
import unittest


def _flat(suite):
    for t in suite:
        if isinstance(t, unittest.TestSuite):
            yield from _flat(t)
        else:
            yield t


def load_tests(loader, tests, pattern):
    """unittest's load_tests protocol: this shard's share of the module's tests."""
    del loader, pattern
    index = int(os.environ.get("TEST_SHARD_INDEX", "0"))
    total = int(os.environ.get("TEST_TOTAL_SHARDS", "1"))
    if os.environ.get("TEST_SHARD_STATUS_FILE"):
        open(os.environ["TEST_SHARD_STATUS_FILE"], "w").close()  # tells Bazel the file shards
    everything = sorted(_flat(tests), key=lambda t: t.id())
    if total > 1 and len(everything) < total:
        raise RuntimeError("%d tests for %d shards" % (len(everything), total))
    return unittest.TestSuite(t for i, t in enumerate(everything) if i % total == index)
