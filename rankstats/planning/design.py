r"""What a power simulation draws: a benchmark design and the effect model that generates it.

A :class:`BenchmarkDesign` is the Gumbel simulator's parameters (:func:`rankstats.simulate.gumbel`):
``n_systems`` systems scored on ``n_tasks`` tasks of ``n_instances`` instances, the score of
system ``i`` on each (task, instance) drawn from :math:`\mathrm{Gumbel}(\mu_i, \text{scale})`,
so that each instance ranking is Plackett–Luce with log-worths :math:`\mu_i / \text{scale}`
(Colombo et al. 2022, Sec. 4.1), with the simulator's corruptions (missing scores and their
pattern, outliers, specialised instance types, rounding that creates ties). The locations are
``φ · (1 .. N)`` (the simulator's default, system ``N`` best) or given: the log-worths of a fitted
Plackett–Luce model are ``locations`` with ``scale=1``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy import stats

from rankstats._util.renamed import renamed_parameters
from rankstats.core.permutations.distances import DISTANCES
from rankstats.core.permutations.sampling import sample_mallows
from rankstats.planning.noise_probabilities import (
    both_below,
    correlation_for,
    laplace_difference_above,
)
from rankstats.simulate.argument_checks import check_count, check_generator, is_real, require
from rankstats.simulate.corruptions import Corruptions, ScoreModel
from rankstats.simulate.gumbel_benchmark import (
    NOISES,
    check_correlation,
    check_system_scales,
    gumbel_cubes,
)
from rankstats.simulate.labels import system_names

#: What a simulated score is: the score itself, or a binary outcome (1 when it is above 0).
OUTCOMES = ("score", "binary")
#: What each argument of :meth:`BenchmarkDesign.from_swap_effects` must be.
SWAP_RANGES = {"difference": "a finite number", "zeros": "a share in [0, 1)", "spread": "> 0"}
#: The design's fields that are the simulator's corruptions.
CORRUPTIONS = ("missing_rate", "missing_pattern", "outliers", "instance_types", "round_to")
#: The design's fields that :func:`rankstats.sample_size` can vary.
SIZES = ("n_instances", "n_tasks")


@renamed_parameters(missing="missing_rate")
@dataclass(frozen=True)
class BenchmarkDesign:
    r"""A benchmark design and its effect model, for power simulations.

    Parameters
    ----------
    n_systems, n_tasks : int
        Systems and tasks.
    n_instances : int
        Instances per task.
    phi : float
        Location step of the default locations ``φ · (1 .. N)`` (system ``N`` best).
    scale : float
        Gumbel scale: the pair ``(i, j)`` is won by ``i`` on an instance with probability
        :math:`1 / (1 + e^{-(\mu_i - \mu_j)/\text{scale}})` (the difference of two Gumbel
        variables is logistic).
    locations : sequence of float, optional
        One location per system, replacing ``φ · (1 .. N)`` (equal locations: no difference,
        the pair's rejection rate is the test's size).
    systems : sequence of str, optional
        Names of the systems (default ``sys01 ..``).
    missing_rate, missing_pattern, outliers, instance_types, round_to
        The simulator's corruptions (:func:`rankstats.simulate.gumbel`).
    noise : {"gumbel", "normal", "laplace"}
        Gumbel noise (instance rankings are Plackett–Luce), Laplace noise of scale ``scale``
        (heavy tails, as sentence-level metric differences: :meth:`from_swap_effects`) or
        normal noise of standard deviation
        ``scale`` (Thurstone's case V; a pair's differences are then normal, the paired t-test's
        model).
    correlation : float
        Normal noise only: the correlation ρ of two systems' scores on the same instance (the
        instance's difficulty they share; ρ ≥ −1/(N−1)). It leaves the rankings of an instance
        unchanged in law only at ρ = 0: a pair's differences have standard deviation
        :math:`\text{scale}\sqrt{2(1-\rho)}`.
    scales : sequence of float, optional
        Normal or Laplace noise: each system's noise scale, as a multiple of ``scale`` (a design
        calibrated on a pilot, :func:`rankstats.calibrate`; 0: a reference scored without
        noise, :meth:`from_swap_effects`).
    identical : float
        Share of instances on which every system produces the same output and so the same score
        (the first system's): identical translations, zero differences.
    task_effects : sequence of (float, float), optional
        ``(offset, scale)`` of the tasks of a pilot (:func:`rankstats.calibrate`): each
        simulated task takes the difficulty and units of one of them, drawn at random, its
        scores ``offset + scale · score``. Rank tests do not see them; the paired tests, the
        ROPE of the Bayesian test (in score units) and the mean aggregator σ^μ (with missing
        scores) do.
    mallows : (str, float), optional
        ``(distance, α)``: instead of scores, each block is a complete ranking drawn from the
        Mallows model with that distance and scale around the consensus given by ``locations``
        (higher = better; :meth:`from_fit` of a Mallows fit), scored as ``−rank``. Only the
        tests on ranks apply, and of the corruptions only missing scores.
    pilot : (int, int), optional
        ``(tasks, instances per task)`` of the pilot table the design was calibrated on: sizes
        beyond them are extrapolations of the calibrated model, and the results say so.
    outcome : {"score", "binary"}
        ``"binary"``: each score becomes an outcome, 1 (right) when it is above 0 — paired
        binary outcomes such as the accuracy of classifiers on a test set, tested by McNemar's
        test (see :meth:`from_accuracies`).
    """

    n_systems: int = 10
    n_tasks: int = 1
    n_instances: int = 100
    phi: float = 0.1
    scale: float = 1.0
    locations: tuple[float, ...] | None = None
    systems: tuple[str, ...] | None = None
    missing_rate: float = 0.0
    missing_pattern: str = "cell"
    outliers: tuple[float, float] | None = None
    instance_types: tuple[int, float] | None = None
    round_to: int | None = None
    noise: str = "gumbel"
    correlation: float = 0.0
    outcome: str = "score"
    scales: tuple[float, ...] | None = None
    pilot: tuple[int, int] | None = None
    mallows: tuple[str, float] | None = None
    identical: float = 0.0
    task_effects: tuple[tuple[float, float], ...] | None = None
    _names: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        check_generator(
            self.n_systems,
            self.n_tasks,
            self.n_instances,
            self.phi,
            self.scale,
            0,
            *(getattr(self, name) for name in CORRUPTIONS),
        )
        require(
            self.noise in NOISES, f"noise must be one of {', '.join(NOISES)}, not {self.noise!r}"
        )
        require(
            self.outcome in OUTCOMES,
            f"outcome must be one of {', '.join(OUTCOMES)}, not {self.outcome!r}",
        )
        check_correlation(self.correlation, self.n_systems, self.noise)
        if self.mallows is not None:
            _check_mallows(self)
        if self.pilot is not None:
            ok = isinstance(self.pilot, tuple) and len(self.pilot) == 2
            ok = ok and all(
                isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in self.pilot
            )
            require(
                ok, f"pilot must be (tasks, instances), two whole numbers ≥ 1, got {self.pilot!r}"
            )
        if self.scales is not None:
            scales = check_system_scales(self.scales, self.n_systems, self.noise)
            object.__setattr__(self, "scales", tuple(float(v) for v in scales))
        require(
            isinstance(self.identical, int | float)
            and not isinstance(self.identical, bool)
            and 0 <= self.identical < 1,
            f"identical must be a share in [0, 1), got {self.identical!r}",
        )
        if self.task_effects is not None:
            effects = np.asarray(self.task_effects, dtype=np.float64)
            require(
                effects.ndim == 2
                and effects.shape[1] == 2
                and len(effects) >= 1
                and bool(np.all(np.isfinite(effects)))
                and bool(np.all(effects[:, 1] > 0)),
                "task_effects must be (offset, scale) pairs of finite numbers, scales > 0",
            )
            require(
                self.outcome == "score",
                "task_effects apply to scores, not to binary outcomes",
            )
            effects = tuple((float(o), float(u)) for o, u in effects)
            object.__setattr__(self, "task_effects", effects)
        if self.locations is not None:
            locations = tuple(float(v) for v in np.asarray(self.locations, dtype=float).ravel())
            require(
                len(locations) == self.n_systems and bool(np.all(np.isfinite(locations))),
                f"locations must be {self.n_systems} finite numbers (one per system), got "
                f"{len(locations)}",
            )
            object.__setattr__(self, "locations", locations)
        names = self.systems
        if names is None:
            names = tuple(system_names(self.n_systems))
        else:
            names = tuple(str(s) for s in names)
            require(
                len(names) == self.n_systems and len(set(names)) == len(names),
                f"systems must be {self.n_systems} distinct names, got {len(names)}",
            )
            object.__setattr__(self, "systems", names)
        object.__setattr__(self, "_names", names)

    @property
    def names(self) -> tuple[str, ...]:
        """The systems' names, in the order of :attr:`mu`."""
        return self._names

    @property
    def mu(self) -> np.ndarray:
        r"""The locations :math:`\mu_i`, shape ``(N,)``."""
        if self.locations is not None:
            return np.asarray(self.locations, dtype=np.float64)
        return self.phi * np.arange(1, self.n_systems + 1, dtype=np.float64)

    @property
    def truth(self) -> tuple[str, ...]:
        """The systems best first (equal locations keep the systems' order)."""
        order = np.argsort(-self.mu, kind="stable")
        return tuple(self._names[i] for i in order)

    @property
    def accuracies(self) -> np.ndarray:
        r"""P(outcome 1) of each system for ``outcome="binary"`` with normal noise:
        :math:`\Phi(\mu_i / \text{scale})`."""
        if self.outcome != "binary" or self.noise != "normal":
            raise ValueError("accuracies are defined for binary outcomes of normal noise")
        return stats.norm.cdf(self.mu / self.scale)

    def discordance(self, a: str, b: str) -> tuple[float, float]:
        """``(p10, p01)``: P(``a`` right and ``b`` wrong), P(``a`` wrong and ``b`` right) on one
        instance, for binary outcomes of normal noise (a bivariate normal probability)."""
        acc = self.accuracies
        i, j = self.index(a), self.index(b)
        both_wrong = both_below(
            -self.mu[i] / self.scale, -self.mu[j] / self.scale, self.correlation
        )
        # Differences of probabilities: clipped at 0 (a rounding error below it is not a cell).
        p01 = max((1 - acc[i]) - both_wrong, 0.0)
        p10 = max((1 - acc[j]) - both_wrong, 0.0)
        return float(p10), float(p01)

    @classmethod
    def from_accuracies(
        cls,
        accuracies: Sequence[float],
        agreement: float | None = None,
        systems: Sequence[str] | None = None,
        **fields: object,
    ) -> BenchmarkDesign:
        r"""Paired binary outcomes (classifiers right or wrong on the same test items).

        System ``i`` is right on an item when a latent normal score
        :math:`\mu_i + \varepsilon_i` is above 0, :math:`\mu_i = \Phi^{-1}(\text{acc}_i)`,
        the :math:`\varepsilon` of one item equicorrelated with correlation ρ. ρ is chosen so
        that the two most accurate systems agree (both right or both wrong) on a share
        ``agreement`` of the items — the parameters of Card et al. (2020, Sec. 3): with two
        systems, accuracy, the difference Δacc and the agreement fix the 2 × 2 table, and with it
        the exact McNemar test's power. ``agreement=None`` takes ρ = 0 (independent errors).

        Raises
        ------
        ValueError
            An accuracy outside (0, 1), or an agreement the accuracies cannot have (the range
            is named: from ρ = −1/(N−1) to ρ = 1).
        """
        acc = np.asarray(accuracies, dtype=np.float64).ravel()
        require(
            len(acc) >= 2 and bool(np.all((acc > 0) & (acc < 1))),
            f"accuracies must be at least two numbers in (0, 1), got {list(accuracies)}",
        )
        for name in ("locations", "phi", "scale", "noise", "outcome", "correlation"):
            require(name not in fields, f"{name} follows from the accuracies and the agreement")
        mu = stats.norm.ppf(acc)
        rho = 0.0
        if agreement is not None:
            top = np.argsort(-acc, kind="stable")[:2]
            rho = correlation_for(agreement, -mu[top[0]], -mu[top[1]], len(acc))
        return cls(
            n_systems=len(acc),
            locations=tuple(float(v) for v in mu),
            systems=systems,
            scale=1.0,
            noise="normal",
            correlation=rho,
            outcome="binary",
            **fields,  # type: ignore[arg-type]
        )

    @classmethod
    def from_swap_effects(
        cls,
        difference: float,
        zeros: float,
        spread: float,
        n_instances: int,
        **fields: object,
    ) -> BenchmarkDesign:
        r"""Two systems whose per-instance differences are Card et al.'s (2020, Sec. 4) model
        of corpus-metric differences (e.g. BLEU): a share ``zeros`` (their :math:`P_0`) of
        identical outputs, the other differences Laplace.

        Card et al. draw the effect :math:`x_i` of swapping sentence ``i`` between two systems as
        0 with probability :math:`P_0`, else Laplace with mean :math:`-2\Delta / (N(1-P_0))` and
        scale :math:`b_0 / N`, the corpus difference being :math:`-\sum_i x_i / 2` (expected
        :math:`\Delta`). The per-instance differences :math:`d_i = -x_i / 2` are then 0 with
        probability :math:`P_0` and otherwise Laplace with location
        :math:`\Delta / (N (1 - P_0))` and scale :math:`b_0 / (2N)`: here the first system
        (``"baseline"``) scores 0 without noise, the second (``"candidate"``) that location
        plus Laplace noise, and the two agree on a share :math:`P_0` of the instances. The paired
        t-test is the large-sample form of their randomisation test (their :math:`P_0 = 0.13`,
        :math:`b_0 = 25.8`, :math:`N = 2000`, :math:`\Delta = 1`: power 0.756).

        Parameters
        ----------
        difference : float
            :math:`\Delta`, the expected corpus-level difference (candidate − baseline).
        zeros : float
            :math:`P_0`, the share of instances where the outputs are identical.
        spread : float
            :math:`b_0`, the Laplace scale of the swap effects times :math:`N`.
        n_instances : int
            :math:`N`, the test set's size (the scales are fixed at this size: the effects
            of a corpus metric shrink with the corpus).
        """
        for name, value, ok in (
            ("difference", difference, is_real(difference) and np.isfinite(difference)),
            ("zeros", zeros, is_real(zeros) and 0 <= zeros < 1),
            ("spread", spread, is_real(spread) and np.isfinite(spread) and spread > 0),
        ):
            require(ok, f"{name} must be {SWAP_RANGES[name]}, got {value!r}")
        check_count("n_instances", n_instances, 2)
        n = int(n_instances)
        return cls(
            n_systems=2,
            n_instances=n,
            locations=(0.0, float(difference) / (n * (1 - zeros))),
            systems=("baseline", "candidate"),
            noise="laplace",
            scale=float(spread) / (2 * n),
            scales=(0.0, 1.0),
            identical=float(zeros),
            **fields,  # type: ignore[arg-type]
        )

    def win_probability(self, a: str, b: str) -> float:
        r""":math:`P(x_a > x_b)` on one instance without corruptions:
        :math:`1 / (1 + e^{-\Delta/\text{scale}})` with Gumbel noise (the difference of two
        Gumbel variables is logistic), :math:`\Phi(\Delta / (\text{scale}\,
        \sqrt{s_a^2 + s_b^2 - 2\rho s_a s_b}))` with normal noise (``s`` the :attr:`scales`, 1
        without them; ρ the :attr:`correlation`), :math:`\Delta = \mu_a - \mu_b`."""
        i, j = self.index(a), self.index(b)
        return float(self.win_probabilities(np.array([i]), np.array([j]))[0])

    def win_probabilities(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """:meth:`win_probability` of the pairs ``(a[k], b[k])`` (system positions) at once: the
        one computation, also behind the calibration's checks."""
        if self.mallows is not None:
            raise ValueError(
                "a Mallows design's pair probabilities are those of the fit: fit.pairwise()"
            )
        gap = (self.mu[a] - self.mu[b]) / self.scale
        different = 1.0 - self.identical  # an identical output is a tie, not a win
        s = np.ones(self.n_systems) if self.scales is None else np.asarray(self.scales)
        if self.noise == "normal":
            sd = np.sqrt(s[a] ** 2 + s[b] ** 2 - 2 * self.correlation * s[a] * s[b])
            with np.errstate(divide="ignore", invalid="ignore"):
                win = np.where(sd > 0, stats.norm.cdf(gap / sd), 0.5 + 0.5 * np.sign(gap))
        elif self.noise == "laplace":
            win = laplace_difference_above(gap, s[a], s[b])
        else:
            win = 1.0 / (1.0 + np.exp(-gap))
        return different * win

    def index(self, system: str) -> int:
        """Position of ``system``; ValueError naming it and the systems when it is unknown."""
        try:
            return self._names.index(str(system))
        except ValueError:
            shown = ", ".join(self._names[:8]) + (" …" if len(self._names) > 8 else "")
            raise ValueError(f"unknown system {system!r}; the design's systems: {shown}") from None

    @classmethod
    def from_fit(cls, fit: object, **fields: object) -> BenchmarkDesign:
        r"""The design whose scores follow a fitted Plackett–Luce, Bradley–Terry or Mallows model.

        A Plackett–Luce ranking with log-worths :math:`\lambda_i` is the order of
        :math:`\lambda_i + g_i`, :math:`g_i` standard Gumbel (the Gumbel-max representation), so
        ``locations = λ`` with ``scale = 1`` and Gumbel noise draws instance rankings from the
        fitted model; every pair ``(i, j)`` is then won with probability
        :math:`1 / (1 + e^{-(\lambda_i - \lambda_j)})`, the Bradley–Terry probability, so a
        Bradley–Terry fit gives the same design for its pairs. The point estimate is used
        (the MLE, or the posterior mean of a NUTS fit): a plug-in, not averaged over the
        estimate's uncertainty.

        A Mallows fit gives rankings, not scores: its consensus (``fit.order``) and scale α
        (``α = nθ`` of a Kendall fit) make a design whose blocks are drawn from the fitted
        Mallows model (``mallows``), tested by the tests on ranks.

        Parameters
        ----------
        fit : rankstats.models.Fit
            A ``PlackettLuce``, ``BradleyTerry`` or ``Mallows`` fit.
        **fields
            The design's sizes and corruptions (``n_tasks``, ``missing_rate``, ...).
        """
        model = getattr(fit, "model", None)
        if model not in ("pl", "bt", "mallows"):
            raise ValueError(
                "from_fit takes a Plackett–Luce, Bradley–Terry or Mallows fit (rs.models."
                f"PlackettLuce(), BradleyTerry(), Mallows()); got {type(fit).__name__} of model "
                f"{model!r}"
            )
        for name in ("locations", "systems", "scale", "noise", "phi", "mallows"):
            if name in fields:
                raise ValueError(f"{name} comes from the fit; give the design's sizes only")
        if model == "mallows":
            order = list(fit.order)  # type: ignore[attr-defined]
            n = len(order)
            params = fit.parameters  # type: ignore[attr-defined]
            alpha = float(params.get("alpha", n * params["theta"]))
            return cls(
                n_systems=n,
                locations=tuple(float(n - k) for k in range(n)),  # the consensus, best first
                systems=tuple(str(s) for s in order),
                mallows=(str(fit.distance), alpha),  # type: ignore[attr-defined]
                **fields,  # type: ignore[arg-type]
            )
        worth = fit.worth  # type: ignore[attr-defined]
        return cls(
            n_systems=len(worth),
            locations=tuple(float(v) for v in worth.to_numpy()),
            systems=tuple(str(s) for s in worth.index),
            scale=1.0,
            noise="gumbel",
            **fields,  # type: ignore[arg-type]
        )

    def replace(self, **changes: object) -> BenchmarkDesign:
        """A copy with some fields changed (checked again)."""
        return dataclasses.replace(self, **changes)

    @renamed_parameters(replications="n_replications", rng="seed")
    def draw(self, n_replications: int, seed: int | np.random.Generator | None) -> np.ndarray:
        """``n_replications`` score cubes ``(R, N, T, K)`` (NaN = missing), drawn from ``seed``."""
        check_count("n_replications", n_replications, 1)
        sampler = None
        if self.mallows is not None:
            distance, alpha = self.mallows
            rho = stats.rankdata(-self.mu, method="ordinal").astype(np.int64)

            def sampler(m: int, generator: np.random.Generator) -> np.ndarray:
                return sample_mallows(rho, alpha, distance, m, generator)

        return gumbel_cubes(
            n_replications,
            self.n_systems,
            self.n_tasks,
            self.n_instances,
            self.phi,
            self.scale,
            seed,
            corruptions=Corruptions(**{name: getattr(self, name) for name in CORRUPTIONS}),
            model=ScoreModel(
                locations=self.mu,
                noise=self.noise,
                correlation=self.correlation,
                binary=self.outcome == "binary",
                system_scales=None if self.scales is None else np.asarray(self.scales),
                rank_sampler=sampler,
                identical=self.identical,
                task_effects=None if self.task_effects is None else np.asarray(self.task_effects),
            ),
        )

    def effect(self) -> str:
        """The effect model and corruptions, e.g. ``"Gumbel noise, φ = 0.1, scale 1"``."""
        parts = [
            f"{self.noise} noise"
            + (f" (correlation {self.correlation:.3g})" if self.correlation else ""),
            f"φ = {self.phi:g}" if self.locations is None else "locations given",
            *(["unequal scales"] if self.scales is not None else []),
            f"scale {self.scale:g}",
        ]
        if self.outcome == "binary":
            accuracy = ", ".join(f"{a:.3g}" for a in self.accuracies)
            parts = [f"binary outcomes, accuracies {accuracy}"]
            if self.correlation:
                parts.append(f"latent correlation {self.correlation:.3g}")
        if self.identical:
            parts.append(f"{self.identical:.0%} identical outputs")
        if self.task_effects is not None:
            parts.append(f"task difficulty and units of {len(self.task_effects)} task(s)")
        if self.missing_rate:
            parts.append(f"{self.missing_rate:.0%} missing ({self.missing_pattern})")
        if self.outliers:
            parts.append(f"outliers {self.outliers}")
        if self.instance_types:
            parts.append(f"instance types {self.instance_types}")
        if self.round_to is not None:
            parts.append(f"rounded to {self.round_to} decimals")
        if self.mallows is not None:
            parts = [f"Mallows rankings ({self.mallows[0]}, α = {self.mallows[1]:.3g})"]
        if self.pilot is not None:
            parts.append(
                f"calibrated on a pilot of {self.pilot[0]} task(s) × {self.pilot[1]} instances"
            )
        return ", ".join(parts)

    def extrapolation(self, brief: bool = False) -> str | None:
        """What goes beyond the pilot the design was calibrated on, in words (None: nothing);
        ``brief``: a few words for a sentence."""
        if self.pilot is None:
            return None
        tasks, instances = self.pilot
        beyond = []
        if self.n_tasks > tasks:
            beyond.append(f"{self.n_tasks} tasks (the pilot had {tasks})")
        if self.n_instances > instances:
            beyond.append(f"{self.n_instances:,} instances per task (the pilot had {instances:,})")
        if not beyond:
            return None
        if brief:
            return f"extrapolated from a pilot of {tasks} task(s) × {instances:,} instances"
        return (
            "extrapolated beyond the pilot: " + " and ".join(beyond) + "; the calibrated model "
            "(normal scores, one correlation) carries these sizes, the pilot does not check them"
        )

    def setting(self) -> str:
        """The sizes for a sentence: ``"With 100 instances in each of 1 task(s) and …"``."""
        return (
            f"With {self.n_instances:,} instances in each of {self.n_tasks} task(s) and "
            f"{self.n_systems} systems ({self.effect()})"
        )

    def describe(self) -> str:
        """One line: sizes, effect and corruptions."""
        return (
            f"{self.n_systems} systems × {self.n_tasks} task(s) × {self.n_instances} instances; "
            f"{self.effect()}"
        )


def _check_mallows(design: BenchmarkDesign) -> None:
    """A Mallows design: a distance, α ≥ 0, a consensus, and no score corruption."""
    distance, alpha = design.mallows
    require(
        distance in DISTANCES
        and isinstance(alpha, int | float)
        and np.isfinite(alpha)
        and alpha >= 0,
        f"mallows must be (distance in {', '.join(DISTANCES)}, α ≥ 0), got {design.mallows!r}",
    )
    require(design.locations is not None, "a Mallows design needs its consensus (locations)")
    scored = [
        name
        for name, value, default in (
            ("noise", design.noise, "gumbel"),
            ("correlation", design.correlation, 0.0),
            ("outcome", design.outcome, "score"),
            ("scales", design.scales, None),
            ("identical", design.identical, 0.0),
            ("task_effects", design.task_effects, None),
            ("outliers", design.outliers, None),
            ("instance_types", design.instance_types, None),
            ("round_to", design.round_to, None),
        )
        if value != default
    ]
    require(
        not scored,
        f"a Mallows design draws rankings, not scores: {', '.join(scored)} do not apply",
    )


def pair_indices(n: int) -> tuple[np.ndarray, np.ndarray]:
    """The unordered pairs ``(a, b)``, ``a < b``, in the order of the simulations' pair axis."""
    return np.triu_indices(n, 1)


def named_pair(design: BenchmarkDesign, pair: Sequence[str] | None) -> int | None:
    """Position of ``pair`` on the pair axis (None for no pair); ValueError naming a bad one."""
    if pair is None:
        return None
    require(
        isinstance(pair, Sequence) and not isinstance(pair, str) and len(pair) == 2,
        f"pair must be two system names, got {pair!r}",
    )
    a, b = (design.index(s) for s in pair)
    require(a != b, f"pair names one system twice: {pair[0]!r}")
    lo, hi = min(a, b), max(a, b)
    n = design.n_systems
    return lo * n - lo * (lo + 1) // 2 + (hi - lo - 1)
