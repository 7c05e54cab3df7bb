"""Bundled real benchmarks: ``rs.load_dataset(name)`` and ``rs.list_datasets()``.

Every file's source is in ``rankstats/datasets/data/PROVENANCE.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pandas loads with the first data set: the CLI reads DATASETS without it
    import pandas as pd

    from rankstats.core.scores import Scores


@dataclass(frozen=True)
class DatasetInfo:
    """What a bundled data set is and where it comes from."""

    name: str
    file: str
    level: str  # "task" (leaderboard) or "instance"
    description: str
    source: str
    system: tuple[str, ...] = ("system",)  # the key column(s) of a leaderboard
    drop_columns: tuple[str, ...] = ()  # a leaderboard's columns that are not tasks


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
            "openclip",
            "openclip_results.csv",
            _LEADERBOARD,
            "open_clip zero-shot leaderboard: 121 CLIP models (name / pretrained) × 38 tasks, "
            "as published: FMoW's 31 exact zeros mark evaluations not run",
            "mlfoundations/open_clip docs/openclip_results.csv, 89fb801f (MIT)",
            system=("name", "pretrained"),
            drop_columns=("params (M)", "FLOPs (B)", "Average perf. on 38 datasets"),
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
    import pandas as pd

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
        ``xtreme_table5``, ``openclip``, ``tac08``, ``tac09``, ``tac11``, ``summeval``,
        ``realsumm``, ``dialogue_pc``, ``dialogue_tc``, ``flickr``).
    tasks : list of str, optional
        Keep only these tasks (metrics, for the instance-level data sets).

    Examples
    --------
    >>> import rankstats as rs
    >>> rs.load_dataset("xtreme").n_systems
    15
    """
    import pandas as pd

    from rankstats.core.scores import Scores

    key = name.lower()
    if key not in DATASETS:
        raise KeyError(f"unknown data set {name!r}; available: {', '.join(DATASETS)}")
    info = DATASETS[key]
    # keys are text (open_clip's ``pretrained`` holds names such as ``openai``)
    df = pd.read_csv(data_path(info.file), dtype={c: str for c in info.system})
    if info.level == _LEADERBOARD:
        system = info.system[0] if len(info.system) == 1 else list(info.system)
        drop = list(info.drop_columns) or None
        scores = Scores.from_wide(df, system=system, name=key, drop_columns=drop)
    else:
        scores = Scores.from_long(df, "system", "task", "instance", "score", name=key)
    return scores.select(tasks) if tasks is not None else scores


# ---------------------------------------------------------------------------- classic rankings
RANKINGS = {
    "salad": "32 complete rankings of 4 salad dressings A–D (Critchlow & Fligner 1991)",
    "sushi": "5000 complete rankings of 10 sushi (Kamishima 2003)",
    "nascar": "36 races of the 2002 NASCAR season: 43 of 87 drivers per race (Hunter 2004)",
    "potato_visual": "12 assessors rank 20 potatoes by visual inspection (Liu et al. 2019)",
    "potato_weighing": "12 assessors rank 20 potatoes after weighing them (Liu et al. 2019)",
}
PAIRED = {
    "pudding": "6 puddings, paired comparisons with ties (Davidson 1970)",
    "citations": "citations among 4 statistics journals (Stigler 1994; Agresti 2002)",
    "baseball": "1987 American League East home/away wins, 7 teams (Agresti 2002)",
    "beach": "60 assessors' pairwise preferences over 15 beaches (Vitelli et al. 2018)",
}
BATTLES = {
    "arena_bench_style": "arena_bench_style.csv.gz: 6,165 pseudo-battles of 7 LLMs on 300 "
    "questions (two answers' GPT-4 grades 1–10 compared: the higher grade wins), with each "
    "answer's length and markdown counts for style control (lmarena/arena-hard-auto, "
    "arena-bench-v1)",
    "arena_hard": "arena_hard_battles.jsonl: 2,136 LLM battles, 5 models, every battle against "
    "one baseline (a star design), questions judged 2–6 times (lmarena/arena-hard-auto)",
}


def battles_path(name: str) -> Path:
    """Path of a bundled battle log (``rankstats.read_battles(path, cluster="question_id")``)."""
    key = name.lower()
    if key not in BATTLES:
        raise KeyError(f"unknown battle log {name!r}; available: {', '.join(BATTLES)}")
    return data_path(BATTLES[key].split(":")[0])


def load_rankings(name: str):
    """Load a classic ranking data set as :class:`~rankstats.Rankings` (1 = best).

    ``salad``, ``sushi`` (complete rankings), ``nascar`` (sub-rankings: 43 of 87 drivers per
    race, driver names as systems), ``potato_visual``, ``potato_weighing``.

    Examples
    --------
    >>> import rankstats as rs
    >>> rs.load_rankings("nascar")
    Rankings(36 rankings of 87 systems, 50.6% not evaluated, 0 tied entries)
    """
    import pandas as pd

    from rankstats.core.rankings import Rankings

    key = name.lower()
    if key not in RANKINGS:
        raise KeyError(f"unknown ranking data set {name!r}; available: {', '.join(RANKINGS)}")
    if key == "nascar":
        drivers = pd.read_csv(data_path("rankings/nascar_drivers.csv"))
        names = dict(zip(drivers["driver_id"], drivers["driver"].astype(str), strict=True))
        races = pd.read_csv(data_path("rankings/nascar_orderings.csv"))
        orderings = [[names[d] for d in row if pd.notna(d)] for row in races.iloc[:, 1:].values]
        return Rankings.from_orderings(
            orderings, systems=list(names.values()), names=races["race"].tolist()
        )
    file = {"sushi": "sushi_rankings.csv"}.get(key, f"{key}.csv")
    df = pd.read_csv(data_path(f"rankings/{file}"))
    first = df.columns[0]
    if first in ("assessor",):
        df = df.set_index(first)
    return Rankings.from_rank_matrix(df)


#: Bundled assessors' pairwise preferences (:func:`load_preferences`).
PREFERENCES = {
    "beach": "60 assessors' pairwise preferences over 15 beaches (Vitelli et al. 2018; "
    "BayesMallows' beach_preferences)",
}


def load_preferences(name: str):
    """Load a bundled set of assessors' pairwise preferences as
    :class:`~rankstats.models.AssessorPreferences` (each assessor's transitive closure): the
    input of ``rs.models.Mallows().fit``.

    ``beach``: 60 assessors, 1,442 stated preferences over 15 beaches (BayesMallows'
    ``beach_preferences``; beaches named by their number).

    Examples
    --------
    >>> import rankstats as rs
    >>> rs.load_preferences("beach")
    AssessorPreferences(60 assessors, 15 systems, 1,442 stated preferences, 1,479 implied)
    """
    from rankstats.io.preference_files import read_preferences

    key = name.lower()
    if key not in PREFERENCES:
        raise KeyError(f"unknown preference data set {name!r}; available: {', '.join(PREFERENCES)}")
    return read_preferences(
        data_path("rankings/beach_preferences.csv"), preferred="top_item", other="bottom_item"
    )


def load_paired(name: str) -> pd.DataFrame:
    """Load classic paired-comparison data as ``item1, item2, wins1, wins2[, ties]``.

    ``pudding`` (with ties), ``citations`` (``wins1`` = journal1 cited by journal2, as in the
    source), ``baseball`` (home team first), ``beach`` (one row per stated preference).

    Examples
    --------
    >>> import rankstats as rs
    >>> rs.load_paired("pudding").head(2)
      item1 item2  wins1  wins2  ties
    0     1     2     19     22    16
    1     1     3     16     19    12
    """
    import pandas as pd

    key = name.lower()
    if key not in PAIRED:
        raise KeyError(f"unknown paired data set {name!r}; available: {', '.join(PAIRED)}")
    cols = ["item1", "item2", "wins1", "wins2"]
    if key == "pudding":
        df = pd.read_csv(data_path("rankings/pudding.csv"))
        out = df[["i", "j", "w_ij", "w_ji", "t_ij"]].set_axis([*cols, "ties"], axis=1)
    elif key == "citations":
        df = pd.read_csv(data_path("rankings/citations_binomial.csv"))
        out = df.set_axis(cols, axis=1)
    elif key == "baseball":
        df = pd.read_csv(data_path("rankings/baseball.csv"))
        out = df.set_axis(cols, axis=1)
    else:
        df = pd.read_csv(data_path("rankings/beach_preferences.csv"))
        out = pd.DataFrame(
            {"item1": df["top_item"], "item2": df["bottom_item"], "wins1": 1, "wins2": 0}
        )
    out = out.copy()
    out["item1"] = out["item1"].astype(str)
    out["item2"] = out["item2"].astype(str)
    return out
