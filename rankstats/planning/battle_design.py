r"""What a battle power simulation draws: a battle log design and the rating model behind it.

A :class:`BattleDesign` is the model that :func:`rankstats.fit_battles` fits (Bradley & Terry
1952; Davidson 1970 ties; Agresti 2002, §10.6.1 order effect): model ``i`` has log-worth
:math:`\theta_i` (Elo rating :math:`R_i = 400\log_{10}(e)\,\theta_i + c`), the model shown first
gains :math:`\eta` and ties have log parameter :math:`\lambda`
(:mod:`rankstats.battles.outcomes`).  A simulated log holds ``n_battles`` battles spread over the
ordered pairs by the allocation:

- ``"uniform"`` — each battle an ordered pair drawn uniformly (Chatbot Arena's random pairing;
  :func:`rankstats.simulate_battles`): the counts per pair are multinomial;
- ``"balanced"`` — every ordered pair the same number of battles (``n_battles // (N(N−1))``,
  the remainder one more for the first pairs in row order);
- ``"star"`` — every battle against the ``baseline`` model, the opponent uniform and either one
  shown first with probability ½ (arena-hard-auto's design, with position swaps);
- a matrix of weights per ordered pair (rows shown first), e.g. the counts of a pilot log
  (:meth:`BattleDesign.from_fit`): multinomial with those probabilities.

The ratings are ``ratings`` (Elo points) or ``elo_step · (0 .. N−1)`` (model ``N`` best), centred.
"""

from __future__ import annotations

import dataclasses
import warnings
from dataclasses import dataclass, field

import numpy as np

from rankstats._util.renamed import renamed_parameters
from rankstats.battles.fitting import ELO_SCALE, BattleFit
from rankstats.battles.log import Battles
from rankstats.battles.outcomes import outcome_probabilities
from rankstats.errors import DataWarning
from rankstats.simulate.argument_checks import check_count, is_real, require

ALLOCATIONS = ("uniform", "balanced", "star")
#: How the simulated logs are fitted: Davidson ties when the log holds ties (``"auto"``, the
#: default of :func:`rankstats.fit_battles`), always, or ties as half wins.
FIT_TIES = ("auto", "davidson", "half")
#: The design's fields that :func:`rankstats.sample_size` can vary: a size, or the effect.
BATTLE_SIZES = ("n_battles",)
BATTLE_EFFECTS = ("elo_step",)


@dataclass(frozen=True, eq=False)
class BattleDesign:
    r"""A battle log design and its rating model, for power simulations (:func:`rankstats.power`).

    Parameters
    ----------
    n_models : int
        Models (at least 2).
    n_battles : int
        Battles per simulated log.
    elo_step : float
        Elo points between models next to each other in the default ratings
        ``elo_step · (0 .. N−1)`` (model ``N`` best; 0: no differences, the tests' size).
    ratings : sequence of float, optional
        One Elo rating per model, replacing the default (only differences matter).
    models : sequence of str, optional
        Names of the models (default ``model01 ..``).
    allocation : {"uniform", "balanced", "star"} or array (N, N)
        How battles are spread over the ordered pairs (module docstring); an array gives a
        non-negative weight per ordered pair, rows shown first (diagonal 0).
    baseline : str, optional
        The star design's baseline (default: the first model).
    order_effect : float
        :math:`\eta`, the log advantage of the model shown first (0: none).
    tie : float, optional
        :math:`\lambda = \log\nu`, Davidson's log tie parameter (None: no ties; 0 gives
        P(tie) = 1/3 between equal models).
    fit_ties : {"auto", "davidson", "half"}
        How each simulated log is fitted (:data:`FIT_TIES`; ``fit_battles(ties=)``).
    fit_order : bool, optional
        ``fit_battles(order_effect=)`` for each simulated log: None estimates the order effect
        when the log identifies it (:mod:`rankstats.battles.design`).
    pilot_battles : int, optional
        Battles of the pilot log the design was fitted on (:meth:`from_fit`): more battles are
        an extrapolation of the fitted model, and the results say so.
    """

    n_models: int = 10
    n_battles: int = 5000
    elo_step: float = 20.0
    ratings: tuple[float, ...] | None = None
    models: tuple[str, ...] | None = None
    allocation: str | np.ndarray = "uniform"
    baseline: str | None = None
    order_effect: float = 0.0
    tie: float | None = None
    fit_ties: str = "auto"
    fit_order: bool | None = None
    pilot_battles: int | None = None
    _names: tuple[str, ...] = field(init=False, repr=False)
    _weights: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        check_count("n_models", self.n_models, 2)
        check_count("n_battles", self.n_battles, 1)
        require(
            is_real(self.elo_step) and np.isfinite(self.elo_step) and self.elo_step >= 0,
            f"elo_step must be a finite number ≥ 0, got {self.elo_step!r}",
        )
        require(
            is_real(self.order_effect) and np.isfinite(self.order_effect),
            f"order_effect must be a finite number, got {self.order_effect!r}",
        )
        require(
            self.tie is None or (is_real(self.tie) and np.isfinite(self.tie)),
            f"tie must be a finite number (log ν) or None, got {self.tie!r}",
        )
        require(
            self.fit_ties in FIT_TIES,
            f"fit_ties must be one of {', '.join(FIT_TIES)}, not {self.fit_ties!r}",
        )
        require(
            self.fit_order in (None, True, False),
            f"fit_order must be None, True or False, not {self.fit_order!r}",
        )
        if self.pilot_battles is not None:
            check_count("pilot_battles", self.pilot_battles, 1)
        n = self.n_models
        if self.ratings is not None:
            ratings = tuple(float(v) for v in np.asarray(self.ratings, dtype=float).ravel())
            require(
                len(ratings) == n and bool(np.all(np.isfinite(ratings))),
                f"ratings must be {n} finite numbers (one per model), got {len(ratings)}",
            )
            object.__setattr__(self, "ratings", ratings)
        names = self.models
        if names is None:
            names = tuple(f"model{k:02d}" for k in range(1, n + 1))
        else:
            names = tuple(str(s) for s in names)
            require(
                len(names) == n and len(set(names)) == n,
                f"models must be {n} distinct names, got {len(names)}",
            )
            object.__setattr__(self, "models", names)
        object.__setattr__(self, "_names", names)
        object.__setattr__(self, "_weights", self._allocation_weights())

    def _allocation_weights(self) -> np.ndarray:
        """Probability (random allocations) or share (balanced) of each ordered pair, (N, N)."""
        n = self.n_models
        off = ~np.eye(n, dtype=bool)
        allocation = self.allocation
        if isinstance(allocation, str):
            require(
                allocation in ALLOCATIONS,
                f"allocation must be one of {', '.join(ALLOCATIONS)} or an (N, N) array of "
                f"weights, not {allocation!r}",
            )
            require(
                self.baseline is None or allocation == "star",
                "baseline applies to the star allocation only",
            )
            if allocation != "star":
                return off / off.sum()
            base = 0 if self.baseline is None else self.index(self.baseline)
            weights = np.zeros((n, n))
            weights[base, :] = weights[:, base] = 1.0
            weights[base, base] = 0.0
            return weights / weights.sum()
        weights = np.asarray(allocation, dtype=np.float64)
        require(
            weights.shape == (n, n)
            and bool(np.all(np.isfinite(weights)))
            and bool(np.all(weights >= 0))
            and not np.any(np.diag(weights)),
            f"allocation weights must be a ({n}, {n}) array of finite numbers ≥ 0 with a zero "
            "diagonal (rows shown first)",
        )
        require(weights.sum() > 0, "allocation weights must not all be 0")
        require(self.baseline is None, "baseline applies to the star allocation only")
        object.__setattr__(self, "allocation", weights)
        return weights / weights.sum()

    # ---------------------------------------------------------------- the model
    @property
    def names(self) -> tuple[str, ...]:
        """The models' names, in the order of :attr:`mu`."""
        return self._names

    @property
    def n_systems(self) -> int:
        """The models are the systems of :mod:`rankstats.planning.power_result`."""
        return self.n_models

    @property
    def mu(self) -> np.ndarray:
        r"""The centred log-worths :math:`\theta_i`, shape ``(N,)``."""
        if self.ratings is not None:
            theta = np.asarray(self.ratings, dtype=np.float64) / ELO_SCALE
        else:
            theta = self.elo_step * np.arange(self.n_models, dtype=np.float64) / ELO_SCALE
        return theta - theta.mean()

    @property
    def truth(self) -> tuple[str, ...]:
        """The models best first."""
        return tuple(self._names[i] for i in np.argsort(-self.mu, kind="stable"))

    def index(self, model: str) -> int:
        """Position of a model; ValueError naming the known ones."""
        try:
            return self._names.index(str(model))
        except ValueError:
            raise ValueError(
                f"unknown model {model!r}; models are {', '.join(self._names[:20])}"
            ) from None

    def pair_support(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(first, second, weight)`` of the ordered pairs that can hold battles."""
        first, second = np.nonzero(self._weights > 0)
        return first, second, self._weights[first, second]

    def cell_probabilities(self, first: np.ndarray, second: np.ndarray) -> np.ndarray:
        """``(P, 3)``: P(first wins), P(second wins), P(tie) of each ordered pair."""
        theta = self.mu
        pa, pb, pt = outcome_probabilities(
            theta[first] + self.order_effect, theta[second], self.tie
        )
        return np.stack([pa, pb, pt], axis=1)

    def win_probability(self, a: str, b: str) -> float:
        """P(``a`` beats ``b``) in one battle, a tie counting half, the order at random."""
        i, j = self.index(a), self.index(b)
        both = self.cell_probabilities(np.array([i, j]), np.array([j, i]))
        return float(0.5 * (both[0, 0] + both[1, 1]) + 0.25 * (both[0, 2] + both[1, 2]))

    @renamed_parameters(replications="n_replications", rng="seed")
    def draw(self, n_replications: int, seed: int | np.random.Generator | None) -> np.ndarray:
        """``n_replications`` logs as counts ``(R, P, 3)`` on :meth:`pair_support`'s pairs (wins
        of the first, wins of the second, ties)."""
        check_count("n_replications", n_replications, 1)
        rng = np.random.default_rng(seed)  # a Generator is used as it is
        first, second, weight = self.pair_support()
        cells = self.cell_probabilities(first, second)
        if isinstance(self.allocation, str) and self.allocation == "balanced":
            per_pair = np.full(len(first), self.n_battles // len(first), dtype=np.int64)
            per_pair[: self.n_battles % len(first)] += 1
            counts = rng.multinomial(per_pair, cells, size=(n_replications, len(first)))
            return counts.astype(np.int64)
        flat = (weight[:, None] * cells).ravel()
        counts = rng.multinomial(self.n_battles, flat / flat.sum(), size=n_replications)
        return counts.reshape(n_replications, len(first), 3).astype(np.int64)

    # ---------------------------------------------------------------- construction
    @classmethod
    def from_fit(
        cls, fit: BattleFit, battles: Battles | None = None, **fields: object
    ) -> BattleDesign:
        """The design of a fitted battle model: its ratings, order effect and tie parameter,
        the pilot log's allocation over the ordered pairs (``battles``; uniform without) and
        size (``n_battles`` unless given), fitted the way the pilot was.

        The fitted ratings are estimates: the power is that of a world where they are true.
        """
        if not isinstance(fit, BattleFit):
            raise TypeError(f"fit must be a rs.BattleFit, not {type(fit).__name__}")
        if fit.covariate_names:
            raise ValueError(
                "the power simulations draw battles without covariates: make the design from "
                "the pilot fitted without them (rs.fit_battles(battles, covariates=False))"
            )
        n = fit.n_models
        pilot = int(fit.n_battles.sum()) // 2
        values: dict[str, object] = {
            "n_models": n,
            "n_battles": pilot,
            "ratings": tuple(float(v) for v in ELO_SCALE * fit.log_worth),
            "models": fit.models,
            "order_effect": fit.log_order or 0.0,
            "tie": fit.log_tie,
            "fit_ties": "davidson" if fit.ties else "half",
            "fit_order": fit.order_effect,
            "pilot_battles": pilot,
        }
        if battles is not None:
            if battles.cluster is not None:
                warnings.warn(
                    f"the pilot's battles come in clusters ({battles.cluster}), the simulated "
                    "logs' battles are independent: the power is that of independent battles, "
                    "higher than with as many correlated ones",
                    DataWarning,
                    stacklevel=2,
                )
            if tuple(battles.models) != tuple(fit.models):
                raise ValueError("battles must be the log the fit was made on (its models differ)")
            weights = np.zeros((n, n))
            total = battles.wins_a + battles.wins_b + battles.ties + battles.both_bad
            np.add.at(weights, (battles.item_a, battles.item_b), total)
            values["allocation"] = weights
            values["n_battles"] = values["pilot_battles"] = int(total.sum())
        values.update(fields)
        return cls(**values)  # type: ignore[arg-type]

    def replace(self, **changes: object) -> BattleDesign:
        """A copy with some fields changed (checked again)."""
        return dataclasses.replace(self, **changes)

    # ---------------------------------------------------------------- words
    def effect(self) -> str:
        """The rating model, e.g. ``"Elo step 20, order effect +14 Elo, ties (log ν = 0)"``."""
        if self.ratings is None:
            parts = [f"Elo step {self.elo_step:g}"]
        else:
            spread = max(self.ratings) - min(self.ratings)
            parts = [f"ratings given (spread {spread:.0f} Elo)"]
        if self.order_effect:
            parts.append(f"order effect {ELO_SCALE * self.order_effect:+.0f} Elo")
        parts.append("no ties" if self.tie is None else f"ties (log ν = {self.tie:.3g})")
        kind = self.allocation if isinstance(self.allocation, str) else "given"
        parts.append(f"{kind} allocation over the pairs")
        if self.pilot_battles is not None:
            parts.append(f"fitted on a pilot of {self.pilot_battles:,} battles")
        return ", ".join(parts)

    def setting(self) -> str:
        """The sizes for a sentence: ``"With 5,000 battles among 10 models (…)"``."""
        return f"With {self.n_battles:,} battles among {self.n_models} models ({self.effect()})"

    def describe(self) -> str:
        """One line: sizes and the rating model."""
        return f"{self.n_models} models, {self.n_battles:,} battles; {self.effect()}"

    def extrapolation(self, brief: bool = False) -> str | None:
        """Beyond the pilot log, in words (None: nothing); ``brief`` for a sentence."""
        if self.pilot_battles is None or self.n_battles <= self.pilot_battles:
            return None
        if brief:
            return f"extrapolated from a pilot of {self.pilot_battles:,} battles"
        return (
            f"extrapolated beyond the pilot: {self.n_battles:,} battles (the pilot had "
            f"{self.pilot_battles:,}); the fitted Bradley–Terry model carries this size, the "
            "pilot does not check it"
        )
