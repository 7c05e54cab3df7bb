"""``rankstats datasets``: list the bundled data sets."""

from __future__ import annotations

from rankstats.cli.options.datasets import Options


def run(options: Options) -> int:
    from rankstats.cli._console import print_frame
    from rankstats.datasets import list_datasets

    print_frame(list_datasets(), name_width=70, text_width=70)
    return 0
