""":class:`SimulatedScores`: :class:`~rankstats.Scores` with the generating truth and parameters,
written atomically with a ``<name>.truth.json`` sidecar.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from rankstats._util.atomic import (
    check_output_file,
    output_file,
    refused,
)
from rankstats.core.scores import Scores
from rankstats.io.sources import PARQUET_SUFFIXES

#: File name extensions :meth:`SimulatedScores.to_csv` and :meth:`~SimulatedScores.to_parquet`
#: write.
CSV_SUFFIXES = (".csv", ".csv.gz", ".tsv")


@dataclass(frozen=True, eq=False, repr=False)
class SimulatedScores(Scores):
    """:class:`~rankstats.Scores` generated with a known truth.

    Attributes
    ----------
    truth : tuple of str
        Systems best first (the generating order).
    parameters : dict
        Every generating parameter and corruption, for the record (and the JSON sidecar).
    """

    truth: tuple[str, ...] = ()
    parameters: dict = field(default_factory=dict)

    def _grouped(self) -> pd.DataFrame:
        # Rows of one (task, instance) together: what streaming readers (rs.scan_scores) need.
        if not self.has_instances:
            return self.data
        return self.data.sort_values(["task", "instance"], kind="stable")

    def _write(self, path: str | Path, kind: str) -> tuple[Path, Path]:
        """Data file and ``<stem>.truth.json`` sidecar, each to a temporary name, then renamed.

        Both are complete before either replaces an earlier file, so an interrupted run leaves
        the earlier pair (or nothing), never a new table beside an old truth.
        """
        path = check_output_file(path, CSV_SUFFIXES + PARQUET_SUFFIXES, option="path")
        name = path.name.lower()
        suffixes = CSV_SUFFIXES if kind == "csv" else PARQUET_SUFFIXES
        if not name.endswith(suffixes):
            other = "to_parquet" if kind == "csv" else "to_csv"
            raise refused(
                "path",
                path,
                f": to_{kind} writes {', '.join(suffixes)} files; use {other} for {path.name!r}",
            )
        meta = path.with_name(path.name.split(".")[0] + ".truth.json")
        sidecar = json.dumps(
            {"truth": list(self.truth), "parameters": self.parameters}, indent=1, default=str
        )
        table = self._grouped()
        with output_file(meta) as tmp_meta, output_file(path) as tmp_data:
            if kind == "parquet":
                table.to_parquet(tmp_data, index=False)
            else:
                sep = "\t" if name.endswith(".tsv") else ","
                table.to_csv(tmp_data, index=False, sep=sep)
            tmp_meta.write_text(sidecar)
        return path, meta

    def to_csv(self, path: str | Path) -> tuple[Path, Path]:
        """Write the long table (``.csv``, ``.csv.gz`` or tab-separated ``.tsv``) and
        ``<name>.truth.json`` next to it, atomically.

        Raises
        ------
        OutputError
            ``path`` has another extension (``.parquet`` / ``.pq``: use :meth:`to_parquet`),
            is a directory or cannot be written.
        """
        return self._write(path, "csv")

    def to_parquet(self, path: str | Path) -> tuple[Path, Path]:
        """Write the long table (``.parquet`` or ``.pq``) and ``<name>.truth.json`` next to it,
        atomically.

        Raises
        ------
        OutputError
            ``path`` has another extension (``.csv``, ``.csv.gz``, ``.tsv``: use
            :meth:`to_csv`), is a directory or cannot be written.
        """
        return self._write(path, "parquet")

    def __repr__(self) -> str:
        base = super().__repr__()
        return f"Simulated{base[:-1]}; truth: {', '.join(self.truth[:3])}, ...)"
