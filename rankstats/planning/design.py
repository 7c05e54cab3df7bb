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
from scipy import integrate, optimize, stats

from rankstats.core.mallows_sampling import sample_mallows
from rankstats.core.permutation_distances import DISTANCES
from rankstats.simulate.argument_checks import check_count, check_generator, require
from rankstats.simulate.gumbel_benchmark import check_correlation, gumbel_cubes
from rankstats.simulate.labels import system_names

#: Noise distributions of the scores around their locations.
NOISES = ("gumbel", "normal")
#: What a simulated score is: the score itself, or a binary outcome (1 when it is above 0).
OUTCOMES = ("score", "binary")
#: The design's fields that :func:`rankstats.sample_size` can vary.
SIZES = ("n_instances", "n_tasks")


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
    missing, missing_pattern, outliers, instance_types, round_to
        The simulator's corruptions (:func:`rankstats.simulate.gumbel`).
    noise : {"gumbel", "normal"}
        Gumbel noise (instance rankings are Plackett–Luce) or normal noise of standard deviation
        ``scale`` (Thurstone's case V; a pair's differences are then normal, the paired t-test's
        model).
    correlation : float
        Normal noise only: the correlation ρ of two systems' scores on the same instance (the
        instance's difficulty they share; ρ ≥ −1/(N−1)). It leaves the rankings of an instance
        unchanged in law only at ρ = 0: a pair's differences have standard deviation
        :math:`\text{scale}\sqrt{2(1-\rho)}`.
    scales : sequence of float, optional
        Normal noise only: each system's noise standard deviation, as a multiple of ``scale``
        (a design calibrated on a pilot, :func:`rankstats.calibrate`).
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
    missing: float = 0.0
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
    _names: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        check_generator(
            self.n_systems,
            self.n_tasks,
            self.n_instances,
            self.phi,
            self.scale,
            0,
            self.missing,
            self.missing_pattern,
            self.outliers,
            self.instance_types,
            self.round_to,
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
            scales = tuple(float(v) for v in np.asarray(self.scales, dtype=float).ravel())
            require(
                self.noise == "normal"
                and len(scales) == self.n_systems
                and all(np.isfinite(v) and v > 0 for v in scales),
                f"scales must be {self.n_systems} positive numbers (one per system), with "
                "normal noise",
            )
            object.__setattr__(self, "scales", scales)
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
        both_wrong = _both_below(
            -self.mu[i] / self.scale, -self.mu[j] / self.scale, self.correlation
        )
        p01 = (1 - acc[i]) - both_wrong
        p10 = (1 - acc[j]) - both_wrong
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
            rho = _correlation_for(agreement, -mu[top[0]], -mu[top[1]], len(acc))
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
        if self.noise == "normal":
            s = np.ones(self.n_systems) if self.scales is None else np.asarray(self.scales)
            sd = np.sqrt(s[a] ** 2 + s[b] ** 2 - 2 * self.correlation * s[a] * s[b])
            with np.errstate(divide="ignore", invalid="ignore"):
                return np.where(sd > 0, stats.norm.cdf(gap / sd), 0.5 + 0.5 * np.sign(gap))
        return 1.0 / (1.0 + np.exp(-gap))

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
            The design's sizes and corruptions (``n_tasks``, ``n_instances``, ``missing``, ...).
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

    def draw(self, replications: int, rng: np.random.Generator) -> np.ndarray:
        """``replications`` simulated score cubes, shape ``(R, N, T, K)`` (NaN = missing)."""
        check_count("replications", replications, 1)
        sampler = None
        if self.mallows is not None:
            distance, alpha = self.mallows
            rho = stats.rankdata(-self.mu, method="ordinal").astype(np.int64)

            def sampler(m: int, generator: np.random.Generator) -> np.ndarray:
                return sample_mallows(rho, alpha, distance, m, generator)

        return gumbel_cubes(
            replications,
            self.n_systems,
            self.n_tasks,
            self.n_instances,
            self.phi,
            self.scale,
            rng,
            missing=self.missing,
            missing_pattern=self.missing_pattern,
            outliers=self.outliers,
            instance_types=self.instance_types,
            round_to=self.round_to,
            locations=self.mu,
            noise=self.noise,
            correlation=self.correlation,
            binary=self.outcome == "binary",
            system_scales=None if self.scales is None else np.asarray(self.scales),
            rank_sampler=sampler,
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
        if self.missing:
            parts.append(f"{self.missing:.0%} missing ({self.missing_pattern})")
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


def _both_below(x: float, y: float, rho: float) -> float:
    """P(X < x, Y < y) for standard normals of correlation ρ (the bounds exactly at ρ = ±1)."""
    if rho >= 1 - 1e-12:
        return float(stats.norm.cdf(min(x, y)))
    if rho <= -1 + 1e-12:
        return float(max(0.0, stats.norm.cdf(x) + stats.norm.cdf(y) - 1))
    # ∫_{-∞}^{x} φ(u) Φ((y − ρu) / √(1 − ρ²)) du, to quad's precision (scipy's multivariate
    # normal CDF is a randomised integration with an absolute error near 1e-5).
    root = np.sqrt(1 - rho * rho)
    value, _ = integrate.quad(
        lambda u: stats.norm.pdf(u) * stats.norm.cdf((y - rho * u) / root),
        -np.inf,
        x,
        epsabs=1e-13,
        epsrel=1e-12,
    )
    return float(value)


def _correlation_for(agreement: float, x: float, y: float, n_systems: int) -> float:
    """The ρ at which two systems wrong below ``x`` and ``y`` agree on a share ``agreement``."""
    require(
        isinstance(agreement, int | float) and not isinstance(agreement, bool),
        f"agreement must be a number in (0, 1], got {agreement!r}",
    )
    px, py = stats.norm.cdf(x), stats.norm.cdf(y)

    def agree(rho: float) -> float:  # both right or both wrong; increasing in ρ
        both_wrong = _both_below(x, y, rho)
        return 1 - px - py + 2 * both_wrong

    low_rho = -1.0 / (n_systems - 1)
    low, high = agree(low_rho), agree(1.0)
    require(
        low - 1e-9 <= agreement <= high + 1e-9,
        f"agreement {agreement!r} is impossible for these accuracies: it can range from "
        f"{low:.4g} to {high:.4g} here",
    )
    if agreement <= low:
        return low_rho
    if agreement >= high:
        return 1.0
    return float(optimize.brentq(lambda r: agree(r) - agreement, low_rho, 1.0, xtol=1e-12))


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
