"""The result of :func:`rankstats.models.rank_tree`: :class:`RankTree`, its nodes and splits.

Tables are labelled pandas DataFrames (leaf × system worths, a tidy test table); prediction
routes each row of a covariate table to its leaf, and refuses, in one line naming the row and the
column, what the tree cannot place (a missing value, a level it never saw at that split, a
column it does not know).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from rankstats.errors import InvalidScoresError, preview

#: The columns of :meth:`RankTree.tests` (a node's own table: ``covariate`` to ``p_at_floor``).
TEST_COLUMNS = (
    "node",
    "n_units",
    "covariate",
    "test",
    "statistic",
    "df",
    "p_value",
    "p_adjusted",
    "p_at_floor",
    "split",
)


def p_cell(p: float, at_floor: bool = False) -> str:
    """A p-value as text: ``"0.0432"`` (four decimals; three significant digits below 0.0001:
    ``"1.94e-19"``), or at the simulation's floor ``"≤ 0.0003"``: the bound, rounded up."""
    if at_floor:
        return f"≤ {_rounded_up(p):.3g}"
    return f"{p:.4f}" if p >= 1e-4 else f"{p:.3g}"


def p_relation(p: float, at_floor: bool = False) -> str:
    """``"= 0.0432"`` or, at the simulation's floor, ``"≤ 0.0003"`` (after ``p`` in a sentence)."""
    return p_cell(p, True) if at_floor else f"= {p:.3g}"


def _rounded_up(x: float, digits: int = 3) -> float:
    """``x`` rounded up to ``digits`` significant digits (so that a bound stays a bound)."""
    if not x > 0 or not math.isfinite(x):
        return x
    unit = 10.0 ** (math.floor(math.log10(x)) - digits + 1)
    return math.ceil(round(x / unit, 9)) * unit


@dataclass(frozen=True)
class Split:
    """How a node divides its units: ``covariate <= threshold`` (numeric) or ``covariate in
    left_levels`` (categorical) go left, the rest right."""

    covariate: str
    numeric: bool
    threshold: float | None = None
    left_levels: tuple[str, ...] = ()
    right_levels: tuple[str, ...] = ()

    def rule(self, left: bool) -> str:
        """The condition of one side, as text (``"year <= 2019"``, ``"type in {a, b}"``)."""
        if self.numeric:
            return f"{self.covariate} {'<=' if left else '>'} {self.threshold:g}"
        levels = self.left_levels if left else self.right_levels
        return f"{self.covariate} in {{{', '.join(levels)}}}"

    def goes_left(self, values: pd.Series) -> np.ndarray:
        """Which of ``values`` go left (checked beforehand: no missing value, known levels)."""
        if self.numeric:
            return values.to_numpy(np.float64) <= self.threshold
        return values.astype(str).isin(self.left_levels).to_numpy()


@dataclass(frozen=True, eq=False)
class RankTreeNode:
    """One node of a :class:`RankTree`.

    Attributes
    ----------
    id, depth : int
        Node number (1 = root, numbered depth first) and depth (root 0).
    parent : int or None
    rule : str
        The condition that leads here from the parent (``""`` at the root).
    n_units, n_rankings : int
        Units (rankers, or tasks when instance rankings are clustered by task) and rankings.
    log_worth, se : pandas.Series
        Centred log-worths of the node's PL fit and their standard errors, one per system
        (NaN for a system not ranked in the node; all NaN when the MLE does not exist).
    log_likelihood : float
    tests : pandas.DataFrame
        covariate, test (``supLM`` / ``chi2``), statistic, df, p_value, p_adjusted (Bonferroni),
        p_at_floor (the simulated supLM statistic exceeded every null draw: p_value is the
        floor ``1 / (draws + 1)`` and p_adjusted its Bonferroni multiple, read as bounds ≤).
    split : Split or None
    children : tuple of int
    note : str
        Why the node is a leaf (no significant instability, too small, no MLE, depth), or ``""``.
    """

    id: int
    depth: int
    parent: int | None
    rule: str
    n_units: int
    n_rankings: int
    log_worth: pd.Series
    se: pd.Series
    log_likelihood: float
    tests: pd.DataFrame
    split: Split | None
    children: tuple[int, ...]
    note: str

    @property
    def is_leaf(self) -> bool:
        return self.split is None

    def __repr__(self) -> str:
        where = f" [{self.rule}]" if self.rule else ""
        what = f"split on {self.split.covariate}" if self.split else f"leaf: {self.note}"
        return (
            f"RankTreeNode({self.id}{where}, {self.n_units} units, {self.n_rankings} rankings, "
            f"{what})"
        )


@dataclass(frozen=True, eq=False)
class RankTree:
    """A Plackett–Luce model-based recursive partition (:func:`rankstats.models.rank_tree`).

    Attributes
    ----------
    nodes : tuple of RankTreeNode
        Depth first, the root first.
    systems : tuple of str
    unit : str
        What a unit is: ``"ranker"``, or ``"task"`` when instance rankings are clustered by task.
    covariates : dict
        Each covariate's kind: ``"numeric"`` or ``"categorical"``.
    alpha, trim : float
    min_size : int
    max_depth : int or None
    """

    nodes: tuple[RankTreeNode, ...]
    systems: tuple[str, ...]
    unit: str
    covariates: dict[str, str]
    alpha: float
    trim: float
    min_size: int
    max_depth: int | None

    def node(self, node_id: int) -> RankTreeNode:
        """The node numbered ``node_id``."""
        for node in self.nodes:
            if node.id == node_id:
                return node
        raise KeyError(f"no node {node_id}; nodes are {[n.id for n in self.nodes]}")

    def path(self, node_id: int) -> str:
        """The conditions from the root to a node, joined by ``" & "``."""
        rules = []
        node = self.node(node_id)
        while node.parent is not None:
            rules.append(node.rule)
            node = self.node(node.parent)
        return " & ".join(reversed(rules)) or "all"

    def worths(self) -> pd.DataFrame:
        """Centred log-worths, leaf × system (index: leaf node id)."""
        leaves = [n for n in self.nodes if n.is_leaf]
        return pd.DataFrame(
            [n.log_worth.to_numpy() for n in leaves],
            index=pd.Index([n.id for n in leaves], name="leaf"),
            columns=list(self.systems),
        )

    def leaves(self) -> pd.DataFrame:
        """One row per (leaf, system): leaf, rule (the path from the root), n_units,
        n_rankings, system, log_worth, se, rank (1 = largest worth in the leaf)."""
        rows = []
        for n in self.nodes:
            if not n.is_leaf:
                continue
            rank = n.log_worth.rank(ascending=False, method="average")
            for system in self.systems:
                where = (n.id, self.path(n.id), n.n_units, n.n_rankings)
                rows.append((*where, system, n.log_worth[system], n.se[system], rank[system]))
        columns = ["leaf", "rule", "n_units", "n_rankings", "system", "log_worth", "se", "rank"]
        return pd.DataFrame(rows, columns=columns)

    def tests(self) -> pd.DataFrame:
        """Every node's instability tests: node, n_units, covariate, test, statistic, df,
        p_value, p_adjusted, p_at_floor, split (the covariate split on, if any).

        ``p_at_floor`` is True where a simulated supLM p-value is the smallest the simulation
        can give, ``1 / (draws + 1)`` (no null draw reached the statistic): ``p_value`` and
        ``p_adjusted`` are then upper bounds, printed ``≤ 0.0003`` (:func:`p_cell`)."""
        frames = []
        for n in self.nodes:
            if n.tests.empty:
                continue
            frame = n.tests.copy()
            frame.insert(0, "node", n.id)
            frame.insert(1, "n_units", n.n_units)
            frame["split"] = frame["covariate"] == (n.split.covariate if n.split else None)
            frames.append(frame)
        if not frames:
            return pd.DataFrame(columns=list(TEST_COLUMNS))
        return pd.concat(frames, ignore_index=True)

    def predict(self, covariates: pd.DataFrame) -> pd.Series:
        """The leaf (node id) of each row of ``covariates`` (columns named as in the fit).

        Raises
        ------
        InvalidScoresError
            A column the tree was not fitted with, a missing column that a split needs, a
            missing value where a split reads it, a non-numeric value of a numeric covariate, or
            a level that the split never saw; the message names the row and the column.
        """
        if not isinstance(covariates, pd.DataFrame):
            raise TypeError(f"covariates must be a DataFrame, not {type(covariates).__name__}")
        unknown = [str(c) for c in covariates.columns if str(c) not in self.covariates]
        if unknown:
            raise InvalidScoresError(
                f"covariate column(s) {preview(map(repr, unknown))} unknown to the tree; it was "
                f"fitted with {preview(map(repr, self.covariates))}"
            )
        frame = covariates.rename(columns=str)
        leaf = np.full(len(frame), self.nodes[0].id, dtype=np.int64)
        for node in self.nodes:
            if node.split is None:
                continue
            here = leaf == node.id
            if not here.any():
                continue
            name = node.split.covariate
            if name not in frame.columns:
                raise InvalidScoresError(
                    f"covariate column {name!r} is missing; the tree splits on it (node {node.id})"
                )
            values = frame[name][here]
            _check_values(values, node.split, node.id)
            left = node.split.goes_left(values)
            leaf[np.flatnonzero(here)] = np.where(left, node.children[0], node.children[1])
        return pd.Series(leaf, index=covariates.index, name="leaf")

    def plot(self, width: float | None = None) -> Any:
        """The tree with each leaf's log-worths and 95% Wald intervals (a matplotlib Figure)."""
        # Imported here so that a tree without figures does not import matplotlib.
        from rankstats.models import rank_tree_figure

        leaves = [n for n in self.nodes if n.is_leaf]
        return rank_tree_figure.tree_figure(
            nodes=[(n.id, n.parent, n.rule, n.n_units, *_split_test(n)) for n in self.nodes],
            leaves=[(n.id, n.log_worth.to_numpy(), n.se.to_numpy()) for n in leaves],
            systems=self.systems,
            unit=self.unit,
            width=width,
        )

    def __repr__(self) -> str:
        n_leaves = sum(n.is_leaf for n in self.nodes)
        lines = [
            f"RankTree({len(self.systems)} systems, {self.nodes[0].n_units} {self.unit}s, "
            f"{n_leaves} leaves; alpha={self.alpha:g}, trim={self.trim:g}, "
            f"min_size={self.min_size})"
        ]
        for n in self.nodes:
            indent = "  " * (n.depth + 1)
            head = f"{indent}[{n.id}] {n.rule or 'root'}: {n.n_units} {self.unit}s"
            if n.split is not None:
                best = n.tests.loc[n.tests["covariate"] == n.split.covariate].iloc[0]
                p = p_relation(best["p_adjusted"], bool(best["p_at_floor"]))
                lines.append(
                    f"{head}; split on {n.split.covariate} ({best['test']} = "
                    f"{best['statistic']:.4g}, adjusted p {p})"
                )
            else:
                top = n.log_worth.dropna().sort_values(ascending=False).index[:3]
                best = f"; best: {', '.join(top)}" if len(top) else ""
                lines.append(f"{head}; leaf ({n.note}){best}")
        return "\n".join(lines)


def _split_test(node: RankTreeNode) -> tuple[str, str]:
    """The covariate an inner node splits on and its adjusted p-value as ``"p = 0.0043"`` or
    ``"p ≤ 0.0003"`` (``""``, ``""``: a leaf)."""
    if node.split is None:
        return "", ""
    row = node.tests.loc[node.tests["covariate"] == node.split.covariate].iloc[0]
    shown = p_relation(float(row["p_adjusted"]), bool(row["p_at_floor"]))
    return node.split.covariate, "p " + shown


def _check_values(values: pd.Series, split: Split, node_id: int) -> None:
    """Refuse missing values, non-numbers of a numeric split and unseen levels (one line)."""
    name = split.covariate
    missing = values.isna().to_numpy()
    if missing.any():
        row = values.index[np.flatnonzero(missing)[0]]
        raise InvalidScoresError(
            f"row {row!r}: covariate {name!r} is missing; the tree splits on it (node {node_id})"
        )
    if split.numeric:
        numbers = pd.to_numeric(values, errors="coerce")
        bad = numbers.isna().to_numpy()
        if bad.any() or values.dtype == bool:
            at = int(np.flatnonzero(bad)[0]) if bad.any() else 0
            raise InvalidScoresError(
                f"row {values.index[at]!r}: covariate {name!r} = {values.iloc[at]!r} is not a "
                f"number; the tree splits on it at {split.threshold:g} (node {node_id})"
            )
        return
    known = set(split.left_levels) | set(split.right_levels)
    text = values.astype(str)
    unseen = ~text.isin(known).to_numpy()
    if unseen.any():
        at = int(np.flatnonzero(unseen)[0])
        raise InvalidScoresError(
            f"row {values.index[at]!r}: covariate {name!r} = {text.iloc[at]!r} is a level that "
            f"node {node_id} never saw; its levels: {preview(sorted(known))}"
        )
