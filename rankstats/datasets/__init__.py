"""Bundled real benchmarks: ``rs.load_dataset(name)`` and ``rs.list_datasets()``.

Every file's source is in ``rankstats/datasets/data/PROVENANCE.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import pandas as pd

from rankstats.scores import Scores


@dataclass(frozen=True)
class DatasetInfo:
    """What a bundled data set is and where it comes from."""

    name: str
    file: str
    level: str  # "task" (leaderboard) or "instance"
    description: str
    source: str


_LEADERBOARD = "task"
_INSTANCE = "instance"
_NLG_SOURCE = "instance-level data of Colombo et al. 2022 and Peyrard et al. 2021"

DATASETS: dict[str, DatasetInfo] = {
    info.name: info
    for info in [
        DatasetInfo(
            "glue",
            "glue.csv",
            _LEADERBOARD,
            "GLUE leaderboard: 105 systems × 14 tasks",
            "Colombo et al. 2022 (RankingNLPSystems)",
        ),
        DatasetInfo(
            "superglue",
            "superglue.csv",
            _LEADERBOARD,
            "SuperGLUE leaderboard: 24 systems × 14 tasks (with the human baseline)",
            "Colombo et al. 2022 (RankingNLPSystems)",
        ),
        DatasetInfo(
            "xtreme",
            "xtreme.csv",
            _LEADERBOARD,
            "XTREME leaderboard: 15 systems × 4 tasks",
            "MissingDataRanking (corrected copy)",
        ),
        DatasetInfo(
            "xtreme_missing",
            "xtreme_missing.csv",
            _LEADERBOARD,
            "XTREME with 7 scores removed (5 lack Classification, 2 lack QA)",
            "MissingDataRanking CLI example",
        ),
        DatasetInfo(
            "xtreme_table5",
            "xtreme_table5.csv",
            _LEADERBOARD,
            "10 systems × 4 tasks, 18 missing scores; M5 evaluated nowhere",
            "Himmi et al. 2023, Table 5",
        ),
        DatasetInfo(
            "tac08",
            "tac08.csv.gz",
            _INSTANCE,
            "TAC 2008 summarisation: 62 systems × 48 topics × 15 metrics",
            _NLG_SOURCE,
        ),
        DatasetInfo(
            "tac09",
            "tac09.csv.gz",
            _INSTANCE,
            "TAC 2009 summarisation: 59 systems × 44 topics × 15 metrics",
            _NLG_SOURCE,
        ),
        DatasetInfo(
            "tac11",
            "tac11.csv.gz",
            _INSTANCE,
            "TAC 2011 summarisation: 54 systems × 44 topics × 15 metrics",
            _NLG_SOURCE,
        ),
        DatasetInfo(
            "summeval",
            "summeval.csv.gz",
            _INSTANCE,
            "SummEval: 16 systems × 100 documents × 17 metrics",
            _NLG_SOURCE,
        ),
        DatasetInfo(
            "realsumm",
            "realsumm.csv.gz",
            _INSTANCE,
            "RealSumm: 25 systems × 100 documents × 15 metrics",
            _NLG_SOURCE,
        ),
        DatasetInfo(
            "dialogue_pc",
            "dialogue_pc.csv.gz",
            _INSTANCE,
            "USR PersonaChat: 4 systems × 60 contexts × 19 metrics",
            _NLG_SOURCE,
        ),
        DatasetInfo(
            "dialogue_tc",
            "dialogue_tc.csv.gz",
            _INSTANCE,
            "USR TopicalChat: 5 systems × 60 contexts × 19 metrics",
            _NLG_SOURCE,
        ),
        DatasetInfo(
            "flickr",
            "flickr.csv.gz",
            _INSTANCE,
            "Flickr captioning: 8 systems × 108 images × 14 metrics",
            _NLG_SOURCE,
        ),
    ]
}


def data_path(file: str) -> Path:
    """Path of a bundled data file (``rankstats/datasets/data/<file>``)."""
    return Path(str(resources.files("rankstats.datasets") / "data" / file))


def list_datasets() -> pd.DataFrame:
    """The bundled data sets: name, level, description, source.

    Examples
    --------
    >>> import rankstats as rs
    >>> "glue" in rs.list_datasets()["name"].tolist()
    True
    """
    return pd.DataFrame(
        [
            {"name": d.name, "level": d.level, "description": d.description, "source": d.source}
            for d in DATASETS.values()
        ]
    )


def load_dataset(name: str, tasks: list[str] | None = None) -> Scores:
    """Load a bundled benchmark as validated :class:`~rankstats.Scores`.

    Parameters
    ----------
    name : str
        One of :func:`list_datasets` (``glue``, ``superglue``, ``xtreme``, ``xtreme_missing``,
        ``xtreme_table5``, ``tac08``, ``tac09``, ``tac11``, ``summeval``, ``realsumm``,
        ``dialogue_pc``, ``dialogue_tc``, ``flickr``).
    tasks : list of str, optional
        Keep only these tasks (metrics, for the instance-level data sets).

    Examples
    --------
    >>> import rankstats as rs
    >>> rs.load_dataset("xtreme").n_systems
    15
    """
    key = name.lower()
    if key not in DATASETS:
        raise KeyError(f"unknown data set {name!r}; available: {', '.join(DATASETS)}")
    info = DATASETS[key]
    df = pd.read_csv(data_path(info.file))
    if info.level == _LEADERBOARD:
        scores = Scores.from_wide(df, system="system", name=key)
    else:
        scores = Scores.from_long(df, "system", "task", "instance", "score", name=key)
    return scores.select(tasks) if tasks is not None else scores
