r"""Pairwise battles (Chatbot-Arena style): reading a log into its sufficient statistics.

A *battle* is one row: model ``a`` (shown first), model ``b`` (shown second) and the winner
(``a``, ``b``, ``tie`` or ``both-bad``).  Under the Bradley–Terry model with an order effect and
Davidson ties (:mod:`rankstats.battles_fit`), battles are exchangeable given the ordered pair, so
the **counts per ordered pair** — wins of ``a``, wins of ``b``, ties, both-bad ties — are
sufficient: a log of two million rows becomes a table of at most ``N(N−1)`` rows, and every fit
and bootstrap replicate costs O(pairs), not O(battles).

Winner spellings (:data:`WINNER_SPELLINGS`, case and surrounding spaces ignored): ``a`` /
``model_a``, ``b`` / ``model_b``, ``tie``, ``both-bad`` / ``both_bad`` / ``bothbad`` /
``tie (bothbad)`` (LMSYS's spellings).  "Both bad" is a tie in which neither answer was good; it
is counted separately and treated as a tie by the fit unless ``both_bad="drop"``.

Nothing is dropped silently: an unknown winner, a missing cell or a model playing itself is an
error naming the row (the file line for CSV files).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from rankstats.bt_mle import Pairs
from rankstats.errors import InvalidScoresError, preview

#: Outcome codes.
A, B, TIE, BOTH_BAD = 0, 1, 2, 3
OUTCOMES = ("a", "b", "tie", "both-bad")
#: Every accepted spelling of the winner (lower case, stripped) → outcome code: the one place
#: where LMSYS's ``model_a`` / ``tie (bothbad)`` are mapped.
WINNER_SPELLINGS: Mapping[str, int] = {
    "a": A,
    "model_a": A,
    "b": B,
    "model_b": B,
    "tie": TIE,
    "draw": TIE,
    "both-bad": BOTH_BAD,
    "both_bad": BOTH_BAD,
    "bothbad": BOTH_BAD,
    "tie (bothbad)": BOTH_BAD,
}
BOTH_BAD_OPTIONS = ("tie", "drop")
_JSON_SUFFIXES = (".jsonl", ".ndjson", ".json")


class InvalidBattlesError(InvalidScoresError):
    """A battle log cannot be used as given (unknown winner, missing cell, self-play)."""


@dataclass(frozen=True, eq=False, repr=False)
class Battles:
    """A battle log reduced to counts per ordered pair (``a`` shown first, ``b`` second).

    Attributes
    ----------
    models : tuple of str
        Model names, in order of first appearance (``model_a`` column first; category order
        for categorical columns).
    item_a, item_b : ndarray of int
        Indices (into ``models``) of the first- and second-shown model of each ordered pair.
    wins_a, wins_b, ties, both_bad : ndarray of int
        Battles of the pair won by ``a``, won by ``b``, tied, tied "both bad".
    source : str
        Where the battles came from (file name or ``"DataFrame"``).
    """

    models: tuple[str, ...]
    item_a: np.ndarray
    item_b: np.ndarray
    wins_a: np.ndarray
    wins_b: np.ndarray
    ties: np.ndarray
    both_bad: np.ndarray
    source: str = "DataFrame"

    @property
    def n_models(self) -> int:
        return len(self.models)

    @property
    def n_battles(self) -> int:
        return int(self.wins_a.sum() + self.wins_b.sum() + self.ties.sum() + self.both_bad.sum())

    def battles_per_model(self, both_bad: str = "tie") -> np.ndarray:
        """Number of battles each model played (both-bad ones excluded with ``"drop"``)."""
        total = self.wins_a + self.wins_b + self.ties
        if _check_both_bad(both_bad) == "tie":
            total = total + self.both_bad
        n = self.n_models
        return np.bincount(self.item_a, total, n) + np.bincount(self.item_b, total, n)

    def pairs(self, both_bad: str = "tie") -> Pairs:
        """The counts as :class:`rankstats.bt_mle.Pairs` (ordered: ``item1`` shown first).

        ``both_bad="tie"`` (default) adds both-bad battles to the ties; ``"drop"`` leaves them
        out.  Pairs without any remaining battle are removed.
        """
        ties = self.ties + (self.both_bad if _check_both_bad(both_bad) == "tie" else 0)
        keep = (self.wins_a + self.wins_b + ties) > 0
        return Pairs(
            self.n_models,
            self.item_a[keep],
            self.item_b[keep],
            self.wins_a[keep].astype(float),
            self.wins_b[keep].astype(float),
            ties[keep].astype(float),
        )

    def table(self) -> pd.DataFrame:
        """One row per ordered pair: ``model_a``, ``model_b``, ``wins_a``, ``wins_b``, ``ties``,
        ``both_bad``, ``n``."""
        names = np.asarray(self.models, dtype=object)
        return pd.DataFrame(
            {
                "model_a": names[self.item_a],
                "model_b": names[self.item_b],
                "wins_a": self.wins_a,
                "wins_b": self.wins_b,
                "ties": self.ties,
                "both_bad": self.both_bad,
                "n": self.wins_a + self.wins_b + self.ties + self.both_bad,
            }
        )

    def __repr__(self) -> str:
        n = max(self.n_battles, 1)
        share = [int(x.sum()) for x in (self.wins_a, self.wins_b, self.ties, self.both_bad)]
        return (
            f"Battles({self.n_battles:,} battles, {self.n_models} models, "
            f"{len(self.item_a):,} ordered pairs from {self.source}; first-shown wins "
            f"{share[0] / n:.1%}, second-shown wins {share[1] / n:.1%}, ties {share[2] / n:.1%}, "
            f"both-bad {share[3] / n:.1%} (both-bad counted as ties unless both_bad='drop'); "
            f"models: {preview(self.models, 5)})"
        )


def _check_both_bad(both_bad: str) -> str:
    if both_bad not in BOTH_BAD_OPTIONS:
        raise ValueError(f"both_bad must be one of {BOTH_BAD_OPTIONS}, not {both_bad!r}")
    return both_bad


# ---------------------------------------------------------------------------- reading
def read_battles(
    data: str | Path | pd.DataFrame,
    model_a: str = "model_a",
    model_b: str = "model_b",
    winner: str = "winner",
    sep: str | None = None,
    encoding: str = "utf-8",
) -> Battles:
    """Read a battle log (DataFrame, CSV / TSV, Parquet or JSON lines) into :class:`Battles`.

    Parameters
    ----------
    data : path or DataFrame
        One row per battle.  Files are read by rankstats' one reader (:mod:`rankstats._read`:
        CSV and Parquet, compression sniffed, every cell read as text); ``.jsonl`` /
        ``.ndjson`` (JSON lines) and ``.json`` (an array of records, as LMSYS publishes) by
        pandas.
    model_a, model_b, winner : str
        Column names: the model shown first, the model shown second, the winner
        (:data:`WINNER_SPELLINGS`).
    sep, encoding : str, optional
        Delimiter (default: sniffed) and encoding of a text file.

    Returns
    -------
    Battles
        The counts per ordered pair.

    Raises
    ------
    InvalidBattlesError
        A missing cell, an unknown winner or a model playing itself: the message names the
        first offending row (file line for text files) and the number of such rows.
    """
    columns = {"model_a": model_a, "model_b": model_b, "winner": winner}
    if isinstance(data, pd.DataFrame):
        _check_columns(list(data.columns), columns, "the DataFrame")
        frame, where, source = data, None, "DataFrame"
    else:
        frame, where, source = _read_file(Path(data), columns, sep, encoding)
    a_codes, a_names = _factorize(frame[model_a])
    b_codes, b_names = _factorize(frame[model_b])
    w_codes, w_names = _factorize(frame[winner])

    def row(positions: np.ndarray) -> str:
        first = int(positions[0])
        if where is not None:
            label = where([first])[0]
        elif isinstance(frame.index, pd.RangeIndex):
            label = f"row {first}"
        else:
            label = f"row {first} (index {frame.index[first]!r})"
        more = f" (and {len(positions) - 1:,} more rows)" if len(positions) > 1 else ""
        return label + more

    for codes, names, role in (
        (a_codes, a_names, model_a),
        (b_codes, b_names, model_b),
        (w_codes, w_names, winner),
    ):
        blank = np.array([not str(v).strip() for v in names], dtype=bool)
        missing = np.flatnonzero((codes < 0) | (blank[codes] if len(names) else False))
        if len(missing):
            raise InvalidBattlesError(
                f"{source}: {row(missing)}: missing value in column {role!r}; every battle "
                "needs both models and a winner (remove or complete such rows first)"
            )
    outcome_of = np.array(
        [WINNER_SPELLINGS.get(str(v).strip().lower(), -1) for v in w_names], dtype=np.int64
    )
    outcome = outcome_of[w_codes]
    bad = np.flatnonzero(outcome < 0)
    if len(bad):
        value = w_names[w_codes[bad[0]]]
        raise InvalidBattlesError(
            f"{source}: {row(bad)}: winner {value!r} in column {winner!r} is not one of "
            f"{', '.join(map(repr, WINNER_SPELLINGS))}"
        )
    names = pd.Index(pd.unique(np.concatenate([a_names, b_names])))
    ia = names.get_indexer(a_names)[a_codes]
    ib = names.get_indexer(b_names)[b_codes]
    self_play = np.flatnonzero(ia == ib)
    if len(self_play):
        raise InvalidBattlesError(
            f"{source}: {row(self_play)}: model {names[ia[self_play[0]]]!r} plays itself "
            f"(columns {model_a!r} and {model_b!r} name the same model)"
        )
    return _count(tuple(names), ia, ib, outcome, source)


def _check_columns(present: list[Any], columns: dict[str, str], what: str) -> None:
    missing = [f"{key}={name!r}" for key, name in columns.items() if name not in present]
    if missing:
        raise InvalidBattlesError(
            f"{what} has no column {', '.join(missing)}; its columns are "
            f"{preview(map(repr, present))} (name them with model_a=, model_b=, winner=; "
            "CLI: --model-a, --model-b, --winner)"
        )


def _read_file(path: Path, columns: dict[str, str], sep: str | None, encoding: str):
    """The three columns of a file as a DataFrame, and a function naming rows by file line."""
    from rankstats import _read

    if not path.exists():
        raise FileNotFoundError(f"no such battle file: {path}")
    if path.suffix.lower() in _JSON_SUFFIXES:
        lines = path.suffix.lower() != ".json"
        try:
            frame = pd.read_json(path, lines=lines, dtype=False)
        except ValueError as err:
            raise InvalidBattlesError(f"{path} is not readable as JSON: {err}") from None
        _check_columns(list(frame.columns), columns, str(path))

        def where(rows):
            return [f"line {r + 1}" if lines else f"record {r + 1}" for r in rows]

        return frame, where, path.name
    source = _read.inspect(path, sep=sep, encoding=encoding)
    _check_columns(list(source.columns), columns, str(path))
    names = list(dict.fromkeys(columns.values()))
    table = _read.read_table(source, columns=names, keys=names)
    frame = pd.DataFrame(
        {name: _read.keys_as_text(table.column(name)).to_pandas() for name in names}
    )
    return frame, (lambda rows: _read.locate(source, rows)), path.name


def _factorize(column: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """Codes (−1 = missing) and distinct values as text (a categorical's codes are reused)."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        codes = np.asarray(column.cat.codes, dtype=np.int64)
        names = np.asarray(column.cat.categories, dtype=object)
        used = np.bincount(codes[codes >= 0], minlength=len(names)) > 0
        if not used.all():  # unused categories are no models
            remap = np.cumsum(used) - 1
            codes = np.where(codes >= 0, remap[np.maximum(codes, 0)], -1)
            names = names[used]
    else:
        codes, names = pd.factorize(column, use_na_sentinel=True)
    return codes, np.array([str(v) for v in names], dtype=object)


def _count(
    models: tuple[str, ...], ia: np.ndarray, ib: np.ndarray, outcome: np.ndarray, source: str
) -> Battles:
    """Counts per ordered pair and outcome (one ``bincount``, or ``unique`` for many models)."""
    n = len(models)
    pair = ia.astype(np.int64) * n + ib
    if n * n <= 4_000_000:
        counts = np.bincount(pair * 4 + outcome, minlength=n * n * 4).reshape(n * n, 4)
        keys = np.flatnonzero(counts.sum(axis=1))
        counts = counts[keys]
    else:
        keys, inverse = np.unique(pair, return_inverse=True)
        counts = np.zeros((len(keys), 4), dtype=np.int64)
        np.add.at(counts, (inverse, outcome), 1)
    return Battles(
        models,
        (keys // n).astype(np.int64),
        (keys % n).astype(np.int64),
        *(np.ascontiguousarray(counts[:, k], dtype=np.int64) for k in range(4)),
        source=source,
    )


# ---------------------------------------------------------------------------- simulation
def simulate_battles(
    n_models: int = 20,
    n_battles: int = 10_000,
    order_effect: float = 0.1,
    tie: float = 0.5,
    both_bad: float = 0.3,
    spread: float = 1.0,
    seed: int | None = 0,
) -> tuple[pd.DataFrame, dict[str, Any]]:
    r"""A battle log drawn from the model of :func:`rankstats.battles_fit.fit_battles`.

    Log-worths :math:`\theta \sim N(0, \text{spread}^2)` (centred); each battle draws an ordered
    pair of distinct models uniformly, and its outcome from

    .. math:: P(a) = \frac{h\pi_a}{D},\; P(b) = \frac{\pi_b}{D},\;
              P(\text{tie}) = \frac{\nu\sqrt{h\pi_a\pi_b}}{D},\;
              D = h\pi_a + \pi_b + \nu\sqrt{h\pi_a\pi_b}

    with :math:`\log h` = ``order_effect`` and :math:`\log\nu` = ``tie`` (``None``: no ties).
    A share ``both_bad`` of the ties is labelled ``"tie (bothbad)"`` (LMSYS's spelling; the
    model does not distinguish them).  Vectorised: 2 million battles take well under a second.

    Returns
    -------
    (DataFrame, dict)
        Columns ``model_a``, ``model_b``, ``winner`` (``model_a`` / ``model_b`` / ``tie`` /
        ``tie (bothbad)``); the truth: ``log_worth`` (Series by model), ``order_effect``,
        ``tie``.
    """
    rng = np.random.default_rng(seed)
    theta = rng.normal(0.0, spread, n_models)
    theta -= theta.mean()
    models = np.array([f"model-{k:03d}" for k in range(n_models)], dtype=object)
    a = rng.integers(0, n_models, n_battles)
    b = (a + rng.integers(1, n_models, n_battles)) % n_models
    ta = theta[a] + order_effect
    tb = theta[b]
    pa, pb = np.exp(ta), np.exp(tb)
    pt = np.exp((tie if tie is not None else -np.inf) + 0.5 * (ta + tb))
    d = pa + pb + pt
    u = rng.random(n_battles) * d
    outcome = np.where(u < pa, A, np.where(u < pa + pb, B, TIE))
    is_tie = outcome == TIE
    outcome[is_tie & (rng.random(n_battles) < both_bad)] = BOTH_BAD
    labels = np.array(["model_a", "model_b", "tie", "tie (bothbad)"], dtype=object)
    frame = pd.DataFrame(
        {
            "model_a": pd.Categorical.from_codes(a, models),
            "model_b": pd.Categorical.from_codes(b, models),
            "winner": pd.Categorical.from_codes(outcome, labels),
        }
    )
    truth = {
        "log_worth": pd.Series(theta, index=list(models), name="log_worth"),
        "order_effect": float(order_effect),
        "tie": None if tie is None else float(tie),
    }
    return frame, truth
