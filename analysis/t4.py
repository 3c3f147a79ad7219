#!/usr/bin/env python3
"""bazel run //analysis:t4 -- --help"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from tilelab_analysis import cli, t4  # noqa: E402

if __name__ == "__main__":
    cli.run(t4.main)
