r"""Model-based against distribution-free answers to "is system a better than system b?".

Two different quantities are compared, pair by pair:

- the **Hoeffding** estimate of :math:`P(a \text{ ranked above } b)` — the (imputed) frequency
  with which one ranking puts ``a`` above ``b``, with an interval that holds whatever the
  distribution of the rankings (:func:`rankstats.hoeffding`);
- a **model's** :math:`P(a \succ b)` — for Plackett–Luce and Bradley–Terry
  :math:`e^{\theta_a} / (e^{\theta_a} + e^{\theta_b})`, for Mallows the probability implied by
  the consensus and the dispersion — with the posterior's equal-tailed credible interval at the
  same level.

When the model is right the two estimate the same probability (for Plackett–Luce, the marginal
probability that ``a`` precedes ``b`` in a ranking *is* :math:`w_a / (w_a + w_b)`), and the
decisions should agree; a conflict (significant under both, opposite winners) or a large gap
between the estimates points at model misfit.  On the sushi data the empirical
P(fatty tuna above sea urchin) is 0.716 while the Plackett–Luce fit implies 0.782.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from rankstats._util.arguments import count, probability
from rankstats._util.renamed import renamed_parameters
from rankstats._util.text import mpl_text
from rankstats._util.user_frame import user_stacklevel
from rankstats.aggregation.hoeffding_intervals import (
    HoeffdingResult,
    as_hoeffding_result,
    hoeffding_test,
)
from rankstats.core.pair_probabilities import Pairwise
from rankstats.plotting.fonts import fitted_fonts
from rankstats.plotting.matrices import annotate_distances, distance_image, distance_legend
from rankstats.plotting.names import labels, shortened_note

_COLUMNS = [
    "system_a",
    "system_b",
    "method",
    "estimate",
    "low",
    "high",
    "prob_above",
    "significant",
    "winner",
    "distance",
]


@renamed_parameters(level="ci_prob")
@dataclass(frozen=True, eq=False, repr=False)
class Comparison:
    """The result of :func:`compare`.

    Attributes
    ----------
    table : pandas.DataFrame
        Tidy, one row per (pair, method) for the pairs with ``system_a`` ranked above
        ``system_b`` in :attr:`order`: ``system_a, system_b, method`` (``"hoeffding"`` or the
        model name), ``estimate`` of P(a above b), ``low``, ``high``, ``prob_above`` (posterior
        probability that P(a ≻ b) > ½; NaN for Hoeffding), ``significant``, ``winner``,
        ``distance`` (signed distance of the interval from ½).
    agreement : pandas.DataFrame
        Per model: pairs significant under both with the same winner, under Hoeffding only,
        under the model only, under neither, and conflicts (opposite winners).
    conflicts : pandas.DataFrame
        Pairs significant under both with opposite winners, the two estimates side by side.
    wide : pandas.DataFrame
        One row per pair, the methods side by side (conflicts first, then pairs where exactly one
        method is significant, then the rest).
    order : list of str
        Reference order of the systems (best first).
    ci_prob : float
        Mass of the models' credible intervals, the coverage of the Hoeffding intervals: the
        same for every method (``1 − δ``, or ``1 − δ/m`` after correction).
    delta, correction : float, str
        Of the Hoeffding intervals.
    intervals : HoeffdingResult
        The Hoeffding intervals compared (all ordered pairs, with their rank ranges).
    models : dict
        The fitted models compared, by method name (as in :attr:`methods`); their rank
        posteriors are :meth:`rank_posteriors`.
    """

    table: pd.DataFrame
    agreement: pd.DataFrame
    conflicts: pd.DataFrame
    wide: pd.DataFrame
    order: list[str]
    ci_prob: float
    delta: float
    correction: str
    intervals: HoeffdingResult | None = None
    models: dict[str, Any] = field(default_factory=dict)

    @property
    def methods(self) -> list[str]:
        return list(pd.unique(self.table["method"]))

    def matrix(self, method: str, value: str = "distance") -> pd.DataFrame:
        """Square matrix (ranked order) of one column for one method; antisymmetric fill."""
        sub = self.table[self.table["method"] == method]
        if sub.empty:
            raise KeyError(f"no method {method!r}; methods: {', '.join(self.methods)}")
        n = len(self.order)
        pos = {s: i for i, s in enumerate(self.order)}
        out = np.full((n, n), np.nan)
        a = sub["system_a"].map(pos).to_numpy()
        b = sub["system_b"].map(pos).to_numpy()
        v = sub[value].to_numpy(dtype=np.float64)
        out[a, b] = v
        out[b, a] = -v if value == "distance" else (1 - v if value == "estimate" else v)
        return pd.DataFrame(out, index=self.order, columns=self.order)

    def plot_matrix(self, model: str | None = None, annotate: bool | None = None) -> Figure:
        """Upper triangle: Hoeffding; lower triangle: ``model``'s posterior (signed distance of
        each interval from ½: red = row system significantly above the column system, blue =
        the reverse, grey = not significant; the legend under the figure names the colours
        drawn). Names longer than :data:`rankstats.plotting.names.NAME_WIDTH` characters are drawn
        as unique abbreviations; the title then says so and
        ``rs.plotting.name_key(comparison.order)`` is the key."""
        models = [m for m in self.methods if m != "hoeffding"]
        model = model or (models[0] if models else None)
        if model is None:
            raise ValueError("no model to compare with")
        upper = self.matrix("hoeffding").to_numpy()
        lower = self.matrix(model).to_numpy()
        n = len(self.order)
        tri = np.triu(np.ones((n, n), dtype=bool), k=1)
        values = np.where(tri, upper, np.where(tri.T, lower, np.nan))
        side = max(4.0, min(0.38 * n + 2.5, 30.0))
        fig = Figure(figsize=(side + 1.2, side + 0.6))
        ax = fig.add_subplot()
        image, flat = distance_image(ax, values)
        names = labels(self.order)  # unique: long names never cut into one label
        ax.set_xticks(range(n), names, rotation=90, fontsize=max(4, 9 - n // 20))
        ax.set_yticks(range(n), names, fontsize=max(4, 9 - n // 20))
        ax.plot([-0.5, n - 0.5], [-0.5, n - 0.5], color="black", lw=0.8)
        if annotate if annotate is not None else n <= 15:
            annotate_distances(ax, values)
        title = f"upper: Hoeffding; lower: {mpl_text(model)} posterior (level {self.ci_prob:.4g})"
        note = shortened_note(self.order)
        ax.set_title(title + ("\n" + note if note else ""), fontsize=9)
        if (values[np.isfinite(values)] != 0).any():
            cbar = fig.colorbar(image, ax=ax, shrink=0.8)
            cbar.set_label("signed distance of the interval from ½ (significant pairs)")
        height = distance_legend(fig, image, values, flat)
        with fitted_fonts(fig):
            fig.tight_layout(rect=(0.0, height / fig.get_figheight(), 1.0, 1.0))
        return fig

    @renamed_parameters(prob="ci_prob")
    def rank_posteriors(self, ci_prob: float = 0.95) -> dict[str, Any]:
        """The rank posterior (:meth:`rankstats.models.Fit.rank_posterior`) of every model
        compared, by method name: ``P(rank = r)``, ``P(best)``, expected ranks and equal-tailed
        credible rank intervals at ``ci_prob`` (0.95 by default, not the pairwise :attr:`ci_prob`).

        A model whose fit holds a single point (Mallows ``method="map"``) has no rank posterior:
        it is left out, and a ``UserWarning`` names it.
        """
        probability("ci_prob", ci_prob)
        out, skipped = self.rank_posteriors_and_skipped(ci_prob)
        if skipped:
            warnings.warn(
                "no rank posterior for " + "; ".join(f"{name} ({why})" for name, why in skipped),
                UserWarning,
                stacklevel=user_stacklevel(),
            )
        return out

    @renamed_parameters(prob="ci_prob")
    def rank_posteriors_and_skipped(
        self, ci_prob: float = 0.95
    ) -> tuple[dict[str, Any], list[tuple[str, str]]]:
        """:meth:`rank_posteriors` without the warning: the posteriors, and ``(name, reason)``
        for every model that has none (the report prints the reasons in its section)."""
        probability("ci_prob", ci_prob)
        out: dict[str, Any] = {}
        skipped = []
        for name, fit in self.models.items():
            try:
                out[name] = fit.rank_posterior(ci_prob=ci_prob)
            except (AttributeError, ValueError) as err:
                skipped.append((name, str(err)))
        return out, skipped

    def _uncertain_pairs(self) -> list[tuple[str, str]]:
        """Every pair, the most uncertain first (Hoeffding estimate closest to ½)."""
        hoef = self.table[self.table["method"] == "hoeffding"].copy()
        hoef["gap"] = (hoef["estimate"] - 0.5).abs()
        pairs = hoef.sort_values("gap", kind="stable")
        return list(zip(pairs["system_a"], pairs["system_b"], strict=True))

    def plot_forest(self, k: int | None = 15) -> Figure:
        """Intervals of every method for the ``k`` most uncertain pairs (Hoeffding estimate
        closest to ½; ``k=None``: every pair). The title says how many of the pairs are shown;
        :meth:`plot_forest_pages` draws them all, page by page. Long names are unique
        abbreviations, as in :meth:`plot_matrix` (key: ``rs.plotting.name_key(comparison.order)``,
        the same on every page)."""
        if k is not None:
            count("k", k, 1)
        keys = self._uncertain_pairs()
        total = len(keys)
        keys = keys if k is None else keys[: max(1, int(k))]
        what = (
            f"all {total} pairs, the most uncertain first"
            if len(keys) == total
            else f"the {len(keys)} most uncertain of {total} pairs"
        )
        return self._forest(keys, what)

    def plot_forest_pages(self, per_page: int = 40) -> list[Figure]:
        """:meth:`plot_forest` of every pair, ``per_page`` pairs per figure (the most uncertain
        first); each title gives its range ("pairs 41–80 of 120, page 2 of 3")."""
        if per_page < 1:
            raise ValueError(f"per_page must be at least 1, got {per_page}")
        keys = self._uncertain_pairs()
        total = len(keys)
        pages = max(1, -(-total // per_page))
        figures = []
        for page in range(pages):
            part = keys[page * per_page : (page + 1) * per_page]
            start = page * per_page + 1
            what = (
                f"all {total} pairs, the most uncertain first"
                if pages == 1
                else f"pairs {start}–{start + len(part) - 1} of {total} (most uncertain first), "
                f"page {page + 1} of {pages}"
            )
            figures.append(self._forest(part, what))
        return figures

    def _forest(self, keys: list[tuple[str, str]], what: str) -> Figure:
        methods = self.methods
        fig = Figure(figsize=(7, 0.45 * len(keys) * max(1, len(methods) / 2) + 1.5))
        ax = fig.add_subplot()
        offsets = np.linspace(-0.3, 0.3, len(methods)) if len(methods) > 1 else [0.0]
        indexed = self.table.set_index(["system_a", "system_b", "method"])
        for m, off in zip(methods, offsets, strict=True):
            rows = [indexed.loc[(a, b, m)] for a, b in keys]
            y = np.arange(len(keys)) + off
            est = np.array([r["estimate"] for r in rows])
            lo = np.array([r["low"] for r in rows])
            hi = np.array([r["high"] for r in rows])
            legend = mpl_text(m if not m.startswith("_") else " " + m)
            ax.errorbar(est, y, xerr=[est - lo, hi - est], fmt="o", ms=3, capsize=2, label=legend)
        ax.axvline(0.5, color="grey", lw=0.8, ls="--")
        short = dict(zip(self.order, labels(self.order), strict=True))  # one key for every page
        ax.set_yticks(range(len(keys)), [f"{short[a]} vs {short[b]}" for a, b in keys], fontsize=7)
        ax.invert_yaxis()
        ax.set_xlim(0, 1)
        ax.set_xlabel("P(a above b); dashed line: ½")
        ax.legend(fontsize=7, loc="lower right")
        note = shortened_note(self.order)
        ax.set_title(
            f"{what} (level {self.ci_prob:.4g})" + ("\n" + note if note else ""), fontsize=9
        )
        with fitted_fonts(fig):
            fig.tight_layout()
        return fig

    def __repr__(self) -> str:
        lines = [
            f"Comparison({len(self.order)} systems, level {self.ci_prob:.4g}, "
            f"{self.correction} correction)"
        ]
        for _, row in self.agreement.iterrows():
            lines.append(
                f"  {row['method']}: same winner {row['both_same']}, Hoeffding only "
                f"{row['hoeffding_only']}, model only {row['model_only']}, neither "
                f"{row['neither']}, conflicts {row['conflicts']}"
            )
        return "\n".join(lines)


def _model_name(fit: Any) -> str:
    from rankstats._util.method_names import fit_key

    return fit_key(fit)


def _intervals(
    pw: Pairwise | HoeffdingResult | pd.DataFrame,
    delta: float | None,
    correction: str | None,
    estimand: str | None,
    order: list[str] | None,
) -> HoeffdingResult:
    """The Hoeffding side: computed from ``pw``, or the given intervals (whose parameters must
    not contradict the explicit ones)."""
    if isinstance(pw, Pairwise):
        return hoeffding_test(
            pw,
            delta=0.05 if delta is None else delta,
            correction=correction or "holm",
            estimand=estimand or "imputed",
            order=order,
        )
    intervals = as_hoeffding_result(pw)
    given = {"delta": delta, "correction": correction, "estimand": estimand}
    clash = {k: v for k, v in given.items() if v is not None and v != getattr(intervals, k)}
    if clash:
        raise ValueError(
            "the intervals were computed with "
            + ", ".join(f"{k}={getattr(intervals, k)!r}" for k in clash)
            + ", not "
            + ", ".join(f"{k}={v!r}" for k, v in clash.items())
        )
    return intervals


def compare(
    pw: Pairwise | HoeffdingResult | pd.DataFrame,
    fits: Sequence[Any] | Any,
    delta: float | None = None,
    correction: str | None = None,
    estimand: str | None = None,
    order: Sequence[str] | None = None,
) -> Comparison:
    """Compare Hoeffding intervals with the posterior pairwise probabilities of fitted models.

    Parameters
    ----------
    pw : Pairwise, HoeffdingResult or pandas.DataFrame
        Pairwise statistics of the rankings the models were fitted to, or Hoeffding intervals
        already computed from them (:func:`rankstats.hoeffding_test` or
        :func:`rankstats.hoeffding`), which are then used as they are.
    fits : Fit or sequence of Fit
        Fitted models (``rs.models.PlackettLuce().fit(...)``, ``BradleyTerry``, ``Mallows``);
        each needs ``pairwise(ci_prob, order)``, ``order`` and ``systems``.
    delta, correction, estimand
        As in :func:`rankstats.hoeffding` (default ``0.05``, ``"holm"``, ``"imputed"``, or
        those of the given intervals; a value contradicting them raises ``ValueError``).  The
        credible intervals use the same level as the Hoeffding intervals: ``1 − δ``, or
        ``1 − δ/m`` over the ``m`` pairs after a correction (Holm's step-down has no interval of
        its own; the decisions of the posterior use this Bonferroni level).
    order : sequence of str, optional
        Reference order (default: the order of the given intervals, else the first model's).

    Returns
    -------
    Comparison

    Examples
    --------
    >>> import rankstats as rs
    >>> rk = rs.load_rankings("salad")
    >>> fit = rs.models.PlackettLuce().fit(rk, method="mle")
    >>> cmp = rs.compare(rs.pairwise(rk), [fit], delta=0.05)
    >>> int(cmp.agreement.loc[0, "conflicts"])
    0
    """
    if delta is not None:
        probability("delta", delta)
    given = None if isinstance(pw, Pairwise) else as_hoeffding_result(pw)
    fits = _checked_fits(set(pw.systems) if given is None else set(given.order), fits)
    if order is not None:
        order = list(order)
    else:
        order = list(fits[0].order if given is None else given.order)
    intervals = _intervals(pw if given is None else given, delta, correction, estimand, order)
    ci_prob = 1.0 - intervals.interval_level
    upper = _upper_pairs(order)
    parts = [upper(intervals.table).assign(method="hoeffding", prob_above=np.nan)]
    models: dict[str, Any] = {}
    for fit in fits:
        name = _model_name(fit)
        if name in models or name == "hoeffding":
            name = f"{name}_{len(models) + 1}"
        models[name] = fit
        parts.append(upper(fit.pairwise(ci_prob=ci_prob, order=order)).assign(method=name))
    table = pd.concat([p[_COLUMNS] for p in parts], ignore_index=True)
    wide, rows = _agreement(table, list(models))
    conflict_rows = wide[wide["status"] == "conflict"].reset_index(drop=True)
    return Comparison(
        table=table,
        agreement=pd.DataFrame(rows),
        conflicts=conflict_rows,
        wide=wide,
        order=order,
        ci_prob=ci_prob,
        delta=intervals.delta,
        correction=intervals.correction,
        intervals=intervals,
        models=models,
    )


def _checked_fits(systems: set[str], fits: Sequence[Any] | Any) -> list[Any]:
    """The fitted models as a list, each fitted to ``systems``."""
    fits = list(fits) if isinstance(fits, list | tuple) else [fits]
    if not fits:
        raise ValueError("give at least one fitted model")
    for fit in fits:
        if set(fit.systems) != systems:
            missing = sorted(systems ^ set(fit.systems))
            raise ValueError(
                f"model {_model_name(fit)!r} was fitted to other systems than the Pairwise "
                f"statistics (differences: {', '.join(missing[:8])})"
            )
    return fits


def _upper_pairs(order: Sequence[str]):
    """A function keeping the pairs of a table with ``system_a`` above ``system_b`` in
    ``order``, in that order."""
    pos = {s: i for i, s in enumerate(order)}

    def upper(frame: pd.DataFrame) -> pd.DataFrame:
        a = frame["system_a"].map(pos).to_numpy()
        b = frame["system_b"].map(pos).to_numpy()
        keep = np.flatnonzero(a < b)
        keep = keep[np.lexsort((b[keep], a[keep]))]
        return frame.iloc[keep].reset_index(drop=True)

    return upper


def _agreement(table: pd.DataFrame, names: list[str]) -> tuple[pd.DataFrame, list[dict]]:
    """One row per pair with every method's columns side by side and its ``status`` (conflicts
    first), and per model the counts of pairs each method calls significant."""
    values = ["estimate", "low", "high", "significant", "winner"]
    wide = None
    for method in ["hoeffding", *names]:
        part = table.loc[table["method"] == method, ["system_a", "system_b", *values]]
        part = part.rename(columns={v: f"{method}_{v}" for v in values})
        wide = part if wide is None else wide.merge(part, on=["system_a", "system_b"])
    h_sig = wide["hoeffding_significant"].astype(bool)
    h_win = wide["hoeffding_winner"]
    rows, status = [], np.zeros(len(wide), dtype=int)
    for name in names:
        m_sig = wide[f"{name}_significant"].astype(bool)
        both = h_sig & m_sig
        conflict = both & (h_win != wide[f"{name}_winner"])
        rows.append(
            {
                "method": name,
                "both_same": int((both & ~conflict).sum()),
                "hoeffding_only": int((h_sig & ~m_sig).sum()),
                "model_only": int((~h_sig & m_sig).sum()),
                "neither": int((~h_sig & ~m_sig).sum()),
                "conflicts": int(conflict.sum()),
            }
        )
        wide[f"{name}_gap"] = wide[f"{name}_estimate"] - wide["hoeffding_estimate"]
        status = np.maximum(status, np.where(conflict, 2, np.where(h_sig != m_sig, 1, 0)))
    wide["status"] = np.select([status == 2, status == 1], ["conflict", "one only"], "agree")
    wide = wide.iloc[np.lexsort((np.arange(len(wide)), -status))].reset_index(drop=True)
    return wide, rows
