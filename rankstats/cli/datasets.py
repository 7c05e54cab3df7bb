"""``rankstats datasets``: list the bundled data sets."""

from __future__ import annotations

import argparse

HELP = "list the bundled data sets"
EXAMPLE = "rankstats datasets"


def arguments(parser: argparse.ArgumentParser) -> None:
    pass


def run(args: argparse.Namespace) -> int:
    import pandas as pd

    from rankstats.datasets import list_datasets

    with pd.option_context("display.max_colwidth", 70, "display.width", 160):
        print(list_datasets().to_string(index=False))
    return 0
