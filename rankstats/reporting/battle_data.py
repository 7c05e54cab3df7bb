r"""Everything a battle report shows, read off one :class:`~rankstats.BattleFit`, once.

:func:`compute_battles` takes the fit and the log it was fitted on and keeps, unchanged, the
fit's own tables — :meth:`~rankstats.BattleFit.table` (the leaderboard),
:meth:`~rankstats.BattleFit.parameters` and the **one** :meth:`~rankstats.BattleFit.differences`
result (Wald tests, Holm) — and derives from that one result every mark of the outputs: the
† of a model significantly above the next one and the rank range (the ranks a model can take
without contradicting a significant difference), through the same function as the score report
(:func:`rankstats.aggregation.hoeffding_intervals.significance_marks`). The renderers
(:mod:`~rankstats.reporting.battle_pages`, :mod:`~rankstats.reporting.battle_methods`) only read
the frozen :class:`BattleReportData`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from rankstats.aggregation.hoeffding_intervals import significance_marks
from rankstats.battles.battle_fit import ELO_SCALE, BattleFit
from rankstats.battles.log import Battles

#: Prefix of the covariate rows of :meth:`BattleFit.parameters`.
COVARIATE_ROW = "covariate: "


@dataclass(frozen=True)
class LogSummary:
    """What the battle log holds, counted on the log (not on the fit).

    Attributes
    ----------
    source : str
        File name or ``"DataFrame"``.
    n_models, n_battles, n_pairs : int
        Models, battles in the log, ordered pairs played.
    n_fitted : int
        Battles the fit used (both-bad ones left out with ``both_bad="drop"``).
    first_wins, second_wins, ties, both_bad : int
        Battles won by the model shown first, by the model shown second, tied, tied "both bad".
    cluster : str or None
        The column grouping battles into clusters (prompts, questions).
    n_clusters : int or None
        Its number of values.
    """

    source: str
    n_models: int
    n_battles: int
    n_pairs: int
    n_fitted: int
    first_wins: int
    second_wins: int
    ties: int
    both_bad: int
    cluster: str | None
    n_clusters: int | None

    @property
    def first_share(self) -> float:
        """Share of the decisive battles won by the model shown first (0.5: no raw order
        effect; the design may still confound it with the ratings)."""
        decisive = self.first_wins + self.second_wins
        return self.first_wins / decisive if decisive else float("nan")


@dataclass(frozen=True, eq=False, repr=False)
class BattleReportData:
    """What a battle report shows, each table computed once.

    Attributes
    ----------
    fit : BattleFit
        The fit the report is about.
    name : str
        Title of the report.
    log : LogSummary
        The counts of the log.
    leaderboard : pandas.DataFrame
        :meth:`BattleFit.table` (best first) with the marks of :attr:`differences`:
        ``rank_low``, ``rank_high`` (rank range) and ``above_next`` (significantly above the
        next model).
    differences : pandas.DataFrame
        :meth:`BattleFit.differences` at :attr:`alpha`: every pair, the higher-rated first.
    parameters : pandas.DataFrame
        :meth:`BattleFit.parameters`.
    alpha : float
        Level of the tests of the differences.
    effects : pandas.DataFrame or None
        With covariates: one row per covariate: ``covariate``, ``estimate`` (γ, log-odds per
        standard deviation when standardised), ``elo`` and, per method, ``<method>_low`` /
        ``<method>_high`` (log-odds) and ``<method>_low_elo`` / ``<method>_high_elo``; ``sd``
        (the covariate's standard deviation over the battles fitted; 1 when not standardised).
    adjustment : pandas.DataFrame or None
        With covariates: ``model``, ``rating``, ``rank`` (at equal style), ``rating_unadjusted``,
        ``rank_unadjusted``, ``rank_change`` (``rank_unadjusted − rank``: positive moves up at
        equal style) and ``rating_change``, in the adjusted order.
    """

    fit: BattleFit
    name: str
    log: LogSummary
    leaderboard: pd.DataFrame
    differences: pd.DataFrame
    parameters: pd.DataFrame
    alpha: float
    effects: pd.DataFrame | None = None
    adjustment: pd.DataFrame | None = None

    @property
    def order(self) -> list[str]:
        """The models by rating, best first."""
        return self.leaderboard["model"].tolist()

    @property
    def posterior_problems(self) -> tuple[str, ...]:
        """The posterior's convergence problems, as the fit judged them (empty: none, or no
        posterior)."""
        return tuple(self.fit.info.get("posterior_problems") or ())

    @property
    def n_significant(self) -> int:
        return int(self.differences["significant"].sum())

    def __repr__(self) -> str:
        return (
            f"BattleReportData({self.name!r}, {self.log.n_models} models, "
            f"{self.log.n_battles} battles, {self.n_significant} of {len(self.differences)} "
            "differences significant)"
        )


def check_log(fit: BattleFit, battles: Battles) -> None:
    """Refuse a log that is not the one ``fit`` was fitted on (its counts would describe other
    battles than the ratings).

    Raises
    ------
    TypeError
        ``fit`` is not a BattleFit or ``battles`` not a Battles.
    ValueError
        Other models, other battle counts per model, or covariates the fit used that the log
        lacks.
    """
    if not isinstance(fit, BattleFit):
        raise TypeError(f"fit must be a BattleFit (rs.fit_battles), not {type(fit).__name__}")
    if not isinstance(battles, Battles):
        raise TypeError(
            f"battles must be the Battles the fit was fitted on (rs.read_battles), not "
            f"{type(battles).__name__}"
        )
    if tuple(battles.models) != tuple(fit.models):
        raise ValueError("battles is not the log of this fit: its models differ from the fit's")
    per_model = battles.battles_per_model(fit.info.get("both_bad", "tie"))
    if not np.array_equal(per_model, fit.n_battles):
        raise ValueError(
            "battles is not the log of this fit: its battles per model differ from the fit's"
        )
    missing = [c for c in fit.covariate_names if c not in battles.covariate_names]
    if missing:
        raise ValueError(f"battles lacks the fit's covariate(s) {missing}")


def compute_battles(
    fit: BattleFit, battles: Battles, title: str | None = None, alpha: float | None = None
) -> BattleReportData:
    """Everything :func:`rankstats.battle_report` shows, from ``fit`` and its log.

    ``alpha`` (default 1 − the fit's confidence) is the level of
    :meth:`BattleFit.differences`, called once here.
    """
    check_log(fit, battles)
    differences = fit.differences(alpha)
    alpha = 1.0 - fit.confidence_level if alpha is None else float(alpha)
    table = fit.table()
    marks = significance_marks(_winners(differences), table["model"].tolist())
    leaderboard = table.copy()
    for column in ("rank_low", "rank_high", "above_next"):
        leaderboard[column] = marks[column].to_numpy()
    parameters = fit.parameters()
    styled = bool(fit.covariate_names)
    return BattleReportData(
        fit=fit,
        name=title or (battles.source if battles.source != "DataFrame" else "battles"),
        log=_summary(fit, battles),
        leaderboard=leaderboard,
        differences=differences,
        parameters=parameters,
        alpha=alpha,
        effects=_effects(fit, parameters) if styled else None,
        adjustment=_adjustment(table) if styled else None,
    )


def _winners(differences: pd.DataFrame) -> pd.DataFrame:
    """The differences as the ordered-pair table :func:`significance_marks` reads: both orders
    of every pair, ``winner`` the higher-rated model where the test is significant."""
    won = differences["model_a"].where(differences["significant"], None)
    forward = pd.DataFrame(
        {"system_a": differences["model_a"], "system_b": differences["model_b"], "winner": won}
    )
    backward = pd.DataFrame(
        {"system_a": differences["model_b"], "system_b": differences["model_a"], "winner": won}
    )
    return pd.concat([forward, backward], ignore_index=True)


def _summary(fit: BattleFit, battles: Battles) -> LogSummary:
    both_bad = int(battles.both_bad.sum())
    dropped = both_bad if fit.info.get("both_bad") == "drop" else 0
    return LogSummary(
        source=battles.source,
        n_models=battles.n_models,
        n_battles=battles.n_battles,
        n_pairs=len(battles.item_a),
        n_fitted=battles.n_battles - dropped,
        first_wins=int(battles.wins_a.sum()),
        second_wins=int(battles.wins_b.sum()),
        ties=int(battles.ties.sum()),
        both_bad=both_bad,
        cluster=battles.cluster,
        n_clusters=battles.n_clusters,
    )


def _effects(fit: BattleFit, parameters: pd.DataFrame) -> pd.DataFrame:
    """The covariate rows of ``parameters``, also in Elo points (the scale of
    :meth:`BattleFit.plot_covariates`)."""
    rows = parameters[parameters["parameter"].str.startswith(COVARIATE_ROW)]
    out = pd.DataFrame({"covariate": list(fit.covariate_names)})
    out["estimate"] = rows["estimate"].to_numpy()
    out["elo"] = rows["elo"].to_numpy()
    for method in fit.methods:
        for side in ("low", "high"):
            values = rows[f"{method}_{side}"].to_numpy()
            out[f"{method}_{side}"] = values
            out[f"{method}_{side}_elo"] = ELO_SCALE * values
    scale = fit.info.get("covariate_scale", {})
    out["sd"] = [float(scale.get(name, 1.0)) for name in fit.covariate_names]
    return out


def _adjustment(table: pd.DataFrame) -> pd.DataFrame:
    """Adjusted beside unadjusted ratings and ranks, and the change (from :meth:`table`)."""
    out = table[["model", "rating", "rank", "rating_unadjusted", "rank_unadjusted"]].copy()
    out["rank_change"] = out["rank_unadjusted"] - out["rank"]
    out["rating_change"] = out["rating"] - out["rating_unadjusted"]
    return out.reset_index(drop=True)
