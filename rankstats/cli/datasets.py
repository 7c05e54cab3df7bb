"""``rankstats datasets``: list the bundled data sets."""

from __future__ import annotations

import argparse


def run(args: argparse.Namespace) -> int:
    from rankstats.cli._console import print_frame
    from rankstats.datasets import list_datasets

    print_frame(list_datasets(), name_width=70, text_width=70)
    return 0
