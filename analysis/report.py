#!/usr/bin/env python3
"""bazel run //analysis:report -- --help"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from tilelab_analysis import cli, report  # noqa: E402

if __name__ == "__main__":
    cli.run(report.main)
