"""A Gumbel benchmark too large for memory, written as partitioned Parquet / CSV files.

:func:`gumbel_files` draws the model of :func:`rankstats.simulate.gumbel` one part at a time and
writes the parts into a temporary directory renamed into place only after the last part, with
``rankstats-manifest.json`` (listing the parts and their rows) written last.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rankstats._util.arguments import random_seed
from rankstats._util.atomic import (
    check_output_dir,
    checkpoint,
    output_dir,
)
from rankstats._util.progress import meter
from rankstats._util.renamed import grouped_parameters
from rankstats.io.directories import MANIFEST  # written last by gumbel_files
from rankstats.simulate.argument_checks import check_count, check_generator, require
from rankstats.simulate.corruptions import CORRUPTION_KEYWORDS, Corruptions
from rankstats.simulate.labels import system_names, task_names

#: The corruptions of :func:`gumbel_files` by default: missing scores remove whole blocks.
FILE_CORRUPTIONS = Corruptions(missing_pattern="block")
#: The keywords of :func:`gumbel_files` that are now fields of :class:`Corruptions`.
FILE_KEYWORDS = {
    old: field
    for old, field in CORRUPTION_KEYWORDS.items()
    if field in ("missing_rate", "missing_pattern", "round_to")
}


@grouped_parameters(corruptions=(Corruptions, FILE_KEYWORDS))
def gumbel_files(
    directory: str | Path,
    n_systems: int = 20,
    n_tasks: int = 20,
    n_instances: int = 330_000,
    partitions: int = 40,
    phi: float = 0.5,
    scale: float = 1.0,
    seed: int = 0,
    *,
    corruptions: Corruptions = FILE_CORRUPTIONS,
    fmt: str = "parquet",
    progress: bool = False,
) -> tuple[list[Path], Path]:
    r"""Write a Gumbel benchmark too large for memory as partitioned files, one part at a time.

    The same generative model as :func:`gumbel` (score of system :math:`n` on every (task,
    instance) ~ Gumbel(φ n, scale), ``sysNN`` best), written as ``partitions`` files
    ``part-00000.parquet ...`` that each hold a contiguous range of the (task, instance) pairs,
    rows grouped by (task, instance) — what :func:`rankstats.scan_scores` streams. Memory is that
    of one part. Missing scores are left out of the files (no NaN rows):
    ``missing_pattern="block"`` removes whole (system, task) blocks, the same in every part, as in
    the missing-scores benchmark of Himmi et al. (2023); ``"cell"`` removes single scores.

    The parts are drawn from ``SeedSequence(seed).spawn(partitions)``, so a file is reproducible
    on its own; the numbers differ from :func:`gumbel` with the same seed (a different stream).

    The output is never half-written: the parts, ``truth.json`` and, last,
    ``rankstats-manifest.json`` (``{"complete": true, "files": [...], "rows": total rows,
    "generator": {parameters}}``) are written into a temporary directory beside ``directory``
    (``.<name>.partial-*``), which replaces ``directory`` as a whole only when everything is
    written.  An interrupted or failing run (Ctrl-C, a full disk) leaves ``directory`` as it was
    (absent, or the previous complete run) and no temporary directory.

    Parameters
    ----------
    directory : path
        A new or empty directory, or one an earlier rankstats run wrote (it is replaced); a
        non-empty directory rankstats did not write is refused before anything is generated.
    n_systems, n_tasks, n_instances : int
        ``20 × 20 × 330,000`` ≈ 132 million scores by default (the size of the benchmark of
        Himmi et al. 2023).
    partitions : int
        Number of files (each ≈ n_systems · n_tasks · n_instances / partitions rows), in
        ``[1, n_tasks · n_instances]``.
    phi, scale, seed
        As in :func:`gumbel`.
    corruptions : Corruptions, optional
        Missing scores and rounding (``missing_rate``, ``missing_pattern``, default
        ``"block"``, ``round_to``; the other corruptions of :func:`gumbel` are refused). Its
        fields were keywords of this function, still accepted for one release with a
        FutureWarning.
    fmt : {"parquet", "csv"}
    progress : bool
        A progress bar of the files written, with an ETA, on stderr when it is a terminal
        (:mod:`rankstats._util.progress`: nothing off a terminal or with ``RANKSTATS_QUIET=1``).

    Returns
    -------
    (list of Path, Path)
        The data files and the ``truth.json`` sidecar, in ``directory``.

    Raises
    ------
    ValueError
        An argument out of its range (named in the message), before anything is written.
    OutputError
        ``directory`` cannot be (re)placed: an existing file, a foreign non-empty directory, no
        permission.

    Examples
    --------
    >>> import tempfile, rankstats as rs
    >>> holes = rs.simulate.Corruptions(missing_rate=0.2, missing_pattern="block")
    >>> files, truth = rs.simulate.gumbel_files(tempfile.mkdtemp(), 5, 3, 100, partitions=4,
    ...                                          corruptions=holes, seed=1)
    >>> len(files), rs.aggregate(rs.scan_scores(files), "borda").order[0]
    (4, 'sys05')
    """
    random_seed("seed", seed)
    c = corruptions or FILE_CORRUPTIONS
    unsupported = [
        name
        for name in ("adversarial_tasks", "rescale", "outliers", "instance_types")
        if getattr(c, name) != getattr(FILE_CORRUPTIONS, name)
    ]
    require(not unsupported, f"gumbel_files draws no {', '.join(unsupported)}; use gumbel")
    check_generator(
        n_systems,
        n_tasks,
        n_instances,
        phi,
        scale,
        missing_rate=c.missing_rate,
        missing_pattern=c.missing_pattern,
        round_to=c.round_to,
    )
    check_count("partitions", partitions, 1, n_tasks * n_instances)
    require(fmt in ("parquet", "csv"), f"fmt must be 'parquet' or 'csv', not {fmt!r}")
    directory = check_output_dir(directory, option="directory")
    parameters = {
        "generator": "gumbel_files",
        "n_systems": n_systems,
        "n_tasks": n_tasks,
        "n_instances": n_instances,
        "partitions": partitions,
        "phi": phi,
        "scale": scale,
        "seed": seed,
        "missing_rate": c.missing_rate,
        "missing_pattern": c.missing_pattern,
        "round_to": c.round_to,
        "format": fmt,
    }
    seeds = np.random.SeedSequence(seed).spawn(partitions + 1)
    parts = _Parts.of(n_systems, n_tasks, n_instances, phi, scale, c, seeds[-1])
    bounds = np.linspace(0, n_tasks * n_instances, partitions + 1).round().astype(np.int64)
    names: list[str] = []
    rows = 0
    with (
        output_dir(directory, option="directory") as tmp,
        meter("simulate", total=partitions, unit="files", enabled=progress) as shown,
    ):
        for p in range(partitions):
            rng = np.random.default_rng(seeds[p])
            name = f"part-{p:05d}.{fmt}"
            rows += parts.write(tmp / name, np.arange(bounds[p], bounds[p + 1]), rng, fmt)
            names.append(name)
            checkpoint("simulate-part")
            shown.advance()
        (tmp / "truth.json").write_text(json.dumps(parts.truth(parameters), indent=1))
        # Last: its presence says every part above is complete.
        manifest = {"complete": True, "files": names, "rows": rows, "generator": parameters}
        (tmp / MANIFEST).write_text(json.dumps(manifest, indent=1))
    return [directory / name for name in names], directory / "truth.json"


@dataclass(frozen=True, eq=False)
class _Parts:
    """What every part of :func:`gumbel_files` shares: the systems' locations, the tasks, the
    missing (system, task) blocks (``(N, T)``, drawn once) and the corruptions."""

    systems: list[str]
    tasks: list[str]
    n_instances: int
    loc: np.ndarray
    scale: float
    blocks: np.ndarray
    corruptions: Corruptions

    @classmethod
    def of(
        cls,
        n_systems: int,
        n_tasks: int,
        n_instances: int,
        phi: float,
        scale: float,
        c: Corruptions,
        seed: np.random.SeedSequence,
    ) -> _Parts:
        blocks = np.zeros((n_systems, n_tasks), dtype=bool)
        if c.missing_pattern == "block" and c.missing_rate > 0:
            blocks = np.random.default_rng(seed).random((n_systems, n_tasks)) < c.missing_rate
        loc = phi * np.arange(1, n_systems + 1, dtype=np.float64)
        return cls(system_names(n_systems), task_names(n_tasks), n_instances, loc, scale, blocks, c)

    def write(self, path: Path, pair: np.ndarray, rng: np.random.Generator, fmt: str) -> int:
        """Draw the flattened (task, instance) pairs ``pair`` and write them to ``path``
        (rows grouped by instance, missing scores left out); the number of rows."""
        import pyarrow as pa
        import pyarrow.csv as pacsv
        import pyarrow.parquet as pq

        c = self.corruptions
        task, instance = np.divmod(pair, self.n_instances)
        # Rows: (task, instance) major, system minor — grouped by instance.
        score = rng.gumbel(loc=self.loc, scale=self.scale, size=(len(pair), len(self.systems)))
        if c.round_to is not None:
            score = np.round(score, c.round_to)
        keep = ~self.blocks[:, task].T
        if c.missing_pattern == "cell" and c.missing_rate > 0:
            keep &= rng.random(keep.shape) >= c.missing_rate
        row_pair, row_system = np.nonzero(keep)
        codes = {
            "system": (row_system, self.systems),
            "task": (task[row_pair], self.tasks),
        }
        table = pa.table(
            {
                **{
                    column: pa.DictionaryArray.from_arrays(
                        pa.array(index.astype(np.int16)), pa.array(labels, pa.string())
                    )
                    for column, (index, labels) in codes.items()
                },
                "instance": pa.array(instance[row_pair].astype(np.int32)),
                "score": pa.array(score[row_pair, row_system]),
            }
        )
        if fmt == "parquet":
            pq.write_table(table, path)
        else:
            pacsv.write_csv(table, path)
        return table.num_rows

    def truth(self, parameters: dict) -> dict:
        """``truth.json``: the true order (best first), the parameters and the missing blocks."""
        pairs = zip(*np.nonzero(self.blocks), strict=True)
        return {
            "truth": list(reversed(self.systems)),
            "parameters": parameters,
            "missing_blocks": [[self.systems[s], self.tasks[t]] for s, t in pairs],
        }
