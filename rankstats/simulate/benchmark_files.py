"""A Gumbel benchmark too large for memory, written as partitioned Parquet / CSV files.

:func:`gumbel_files` draws the model of :func:`rankstats.simulate.gumbel` one part at a time and
writes the parts into a temporary directory renamed into place only after the last part, with
``rankstats-manifest.json`` (listing the parts and their rows) written last.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from rankstats._util.arguments import random_seed
from rankstats._util.atomic import (
    check_output_dir,
    checkpoint,
    output_dir,
)
from rankstats._util.progress import meter
from rankstats._util.renamed import renamed_parameters
from rankstats.io.directories import MANIFEST  # written last by gumbel_files
from rankstats.simulate.argument_checks import check_count, check_generator, require
from rankstats.simulate.labels import system_names, task_names


@renamed_parameters(missing="missing_rate")
def gumbel_files(
    directory: str | Path,
    n_systems: int = 20,
    n_tasks: int = 20,
    n_instances: int = 330_000,
    partitions: int = 40,
    phi: float = 0.5,
    scale: float = 1.0,
    seed: int = 0,
    missing_rate: float = 0.0,
    missing_pattern: str = "block",
    round_to: int | None = None,
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
    phi, scale, seed, missing_rate, missing_pattern, round_to
        As in :func:`gumbel`.
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
    >>> files, truth = rs.simulate.gumbel_files(tempfile.mkdtemp(), 5, 3, 100, partitions=4,
    ...                                          missing_rate=0.2, seed=1)
    >>> len(files), rs.aggregate(rs.scan_scores(files), "borda").order[0]
    (4, 'sys05')
    """
    random_seed("seed", seed)
    import pyarrow as pa
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    check_generator(
        n_systems,
        n_tasks,
        n_instances,
        phi,
        scale,
        missing_rate=missing_rate,
        missing_pattern=missing_pattern,
        round_to=round_to,
    )
    check_count("partitions", partitions, 1, n_tasks * n_instances)
    require(fmt in ("parquet", "csv"), f"fmt must be 'parquet' or 'csv', not {fmt!r}")
    directory = check_output_dir(directory, option="directory")
    systems, tasks = system_names(n_systems), task_names(n_tasks)
    parameters = {
        "generator": "gumbel_files",
        "n_systems": n_systems,
        "n_tasks": n_tasks,
        "n_instances": n_instances,
        "partitions": partitions,
        "phi": phi,
        "scale": scale,
        "seed": seed,
        "missing_rate": missing_rate,
        "missing_pattern": missing_pattern,
        "round_to": round_to,
        "format": fmt,
    }
    seeds = np.random.SeedSequence(seed).spawn(partitions + 1)
    blocks = np.zeros((n_systems, n_tasks), dtype=bool)
    if missing_pattern == "block" and missing_rate > 0:
        blocks = np.random.default_rng(seeds[-1]).random((n_systems, n_tasks)) < missing_rate
    loc = phi * np.arange(1, n_systems + 1, dtype=np.float64)
    system_dict = pa.array(systems, pa.string())
    task_dict = pa.array(tasks, pa.string())
    bounds = np.linspace(0, n_tasks * n_instances, partitions + 1).round().astype(np.int64)
    names: list[str] = []
    rows = 0
    with (
        output_dir(directory, option="directory") as tmp,
        meter("simulate", total=partitions, unit="files", enabled=progress) as shown,
    ):
        for p in range(partitions):
            rng = np.random.default_rng(seeds[p])
            pair = np.arange(bounds[p], bounds[p + 1])  # flattened (task, instance) index
            task, instance = np.divmod(pair, n_instances)
            # Rows: (task, instance) major, system minor — grouped by instance.
            score = rng.gumbel(loc=loc, scale=scale, size=(len(pair), n_systems))
            if round_to is not None:
                score = np.round(score, round_to)
            keep = ~blocks[:, task].T
            if missing_pattern == "cell" and missing_rate > 0:
                keep &= rng.random(keep.shape) >= missing_rate
            row_pair, row_system = np.nonzero(keep)
            table = pa.table(
                {
                    "system": pa.DictionaryArray.from_arrays(
                        pa.array(row_system.astype(np.int16)), system_dict
                    ),
                    "task": pa.DictionaryArray.from_arrays(
                        pa.array(task[row_pair].astype(np.int16)), task_dict
                    ),
                    "instance": pa.array(instance[row_pair].astype(np.int32)),
                    "score": pa.array(score[row_pair, row_system]),
                }
            )
            name = f"part-{p:05d}.{fmt}"
            if fmt == "parquet":
                pq.write_table(table, tmp / name)
            else:
                pacsv.write_csv(table, tmp / name)
            names.append(name)
            rows += table.num_rows
            checkpoint("simulate-part")
            shown.advance()
        missing_blocks = [[systems[s], tasks[t]] for s, t in zip(*np.nonzero(blocks), strict=True)]
        (tmp / "truth.json").write_text(
            json.dumps(
                {
                    "truth": list(reversed(systems)),
                    "parameters": parameters,
                    "missing_blocks": missing_blocks,
                },
                indent=1,
            )
        )
        # Last: its presence says every part above is complete.
        manifest = {"complete": True, "files": names, "rows": rows, "generator": parameters}
        (tmp / MANIFEST).write_text(json.dumps(manifest, indent=1))
    return [directory / name for name in names], directory / "truth.json"
