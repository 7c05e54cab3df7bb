r"""Analytic and exact power of the paired tests, and the sample sizes they imply (issue 26).

The tests are those of :mod:`rankstats.paired_analysis.paired_tests`, two-sided at level
:math:`\alpha`:

=======================  ==========================================================================
test                     power
=======================  ==========================================================================
paired t-test            noncentral t with :math:`n - 1` df and noncentrality :math:`d\sqrt n`
                         (:func:`paired_t_power`, :func:`paired_t_sample_size`,
                         :func:`minimum_detectable_effect`)
exact sign test          exact binomial sum over the rejection region (:func:`sign_test_power`,
                         :func:`sign_test_sample_size`)
exact McNemar test       the sign test on the discordant pairs, summed over their binomial count
                         (:func:`mcnemar_exact_power`)
Hoeffding decision       one pair on complete blocks without ties: a binomial sum over
                         :math:`2e^{-2n(\hat p - 1/2)^2} < \alpha` (:func:`hoeffding_pair_power`;
                         its own size: :func:`hoeffding_size`)
=======================  ==========================================================================

The sign test's p-value is the one of ``paired_tests.py``,
:math:`p(k) = \min(1, 2 F(\min(k, n - k)))` with :math:`F` the Binomial(n, ½) distribution
function (equal to ``scipy.stats.binomtest(k, n).pvalue`` at p = ½), and a test rejects when
:math:`p \le \alpha`. Every function takes arrays (broadcast together) and returns an array of
their common shape, a NumPy scalar for scalar arguments. These values are the reference the
simulation engine's power is checked against.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy import optimize, stats

_MAX_DOUBLINGS = 60  # the doubling search for n stops at 2**61 pairs: beyond, refuse


# --- argument checks -----------------------------------------------------------------------------


def _alpha(alpha: float) -> float:
    if not np.ndim(alpha) == 0 or not 0 < float(alpha) < 1:
        raise ValueError(f"alpha must be a number in (0, 1), got {alpha!r}")
    return float(alpha)


def _power(power: float) -> float:
    if not np.ndim(power) == 0 or not 0 < float(power) < 1:
        raise ValueError(f"power must be a number in (0, 1), got {power!r}")
    return float(power)


def _sizes(n: np.ndarray | int, name: str = "n") -> np.ndarray:
    arr = np.asarray(n)
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.number):
        raise ValueError(f"{name} must be whole numbers >= 2, got {n!r}")
    arr = arr.astype(np.float64)
    if not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)) or np.any(arr < 2):
        raise ValueError(f"{name} must be whole numbers >= 2, got {n!r}")
    return arr.astype(np.int64)


def _probabilities(p: np.ndarray | float, name: str) -> np.ndarray:
    arr = np.asarray(p, dtype=np.float64)
    if not np.all((arr >= 0) & (arr <= 1)):  # NaN fails both comparisons
        raise ValueError(f"{name} must be probabilities in [0, 1], got {p!r}")
    return arr


def _effects(effect: np.ndarray | float) -> np.ndarray:
    arr = np.asarray(effect, dtype=np.float64)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"effect must be finite, got {effect!r}")
    return arr


def _out(arr: np.ndarray) -> np.ndarray:
    return arr[()]  # a 0-d result becomes a NumPy scalar


# --- paired t-test -------------------------------------------------------------------------------


def paired_t_power(
    effect: np.ndarray | float, n: np.ndarray | int, alpha: float = 0.05
) -> np.ndarray:
    r"""Power of the two-sided paired t-test.

    With :math:`n` pairs whose differences are normal with standardised mean
    :math:`d = \mu_D / \sigma_D`, the statistic :math:`T = \bar D / (s_D / \sqrt n)` has the
    noncentral t distribution with :math:`\nu = n - 1` degrees of freedom and noncentrality
    :math:`\delta = d \sqrt n`, so

    .. math:: 1 - \beta = P(|T| > t) = 1 - F_{\nu,\delta}(t) + F_{\nu,\delta}(-t),
              \qquad t = t_{1 - \alpha/2,\, \nu}

    with :math:`F_{\nu,\delta}` the distribution function of ``scipy.stats.nct``. Under
    :math:`d = 0` this is exactly :math:`\alpha` (returned as such).

    Parameters
    ----------
    effect : array_like
        Standardised mean difference :math:`d` (Cohen's :math:`d_z`); its sign does not matter.
    n : array_like of int
        Number of pairs, at least 2; broadcast against ``effect``.
    alpha : float, default 0.05
        Level of the test.

    Returns
    -------
    numpy.ndarray
        Power, of the broadcast shape of ``effect`` and ``n``.

    References
    ----------
    Cohen, J. (1988). *Statistical Power Analysis for the Behavioral Sciences* (2nd ed.),
    chapter 2. Lawrence Erlbaum.
    """
    alpha = _alpha(alpha)
    d, size = np.broadcast_arrays(_effects(effect), _sizes(n))
    df = size - 1.0
    crit = stats.t.ppf(1 - alpha / 2, df)
    nc = np.abs(d) * np.sqrt(size)  # the power is symmetric in d: the far tail is then the lower
    far = stats.nct.cdf(-crit, df, nc)
    # scipy's nct returns NaN for the far tail at large noncentrality (one df, nc ~ 40), where it
    # is below P(T < 0) = Phi(-nc), negligible.
    far = np.where(np.isnan(far) & (stats.norm.sf(nc) < 1e-12), 0.0, far)
    power = stats.nct.sf(crit, df, nc) + far
    # nct at zero noncentrality carries rounding error; the null rejection rate is alpha by
    # construction of the critical value.
    return _out(np.where(nc == 0, alpha, np.clip(power, 0.0, 1.0)))


def _smallest_n(reaches: Callable[[np.ndarray], np.ndarray], shape: tuple[int, ...]) -> np.ndarray:
    """Smallest n >= 2 with ``reaches(n)`` true, for a monotone ``reaches``, element-wise.

    Doubling then integer bisection, both vectorised: a few dozen calls whatever the n.
    """
    lo = np.ones(shape, dtype=np.int64)  # n = 1 is never a valid answer
    hi = np.full(shape, 2, dtype=np.int64)
    for _ in range(_MAX_DOUBLINGS):
        ok = reaches(hi)
        if ok.all():
            break
        lo = np.where(ok, lo, hi)
        hi = np.where(ok, hi, 2 * hi)
    else:
        raise ValueError("effect is too small: the sample size exceeds 2**61 pairs")
    while np.any(hi - lo > 1):
        mid = (lo + hi) // 2
        ok = reaches(mid)
        hi = np.where(ok, mid, hi)
        lo = np.where(ok, lo, mid)
    return hi


def paired_t_sample_size(
    effect: np.ndarray | float, power: float = 0.8, alpha: float = 0.05
) -> np.ndarray:
    r"""Smallest number of pairs at which the two-sided paired t-test reaches a power.

    The power of :func:`paired_t_power` increases with :math:`n` for :math:`d \ne 0`, so the
    answer is :math:`\min\{n \ge 2 : 1 - \beta(d, n) \ge` ``power`` :math:`\}`, found by a
    vectorised doubling and integer bisection on the exact (noncentral t) power.

    Parameters
    ----------
    effect : array_like
        Standardised mean difference :math:`d`, not zero; its sign does not matter.
    power : float, default 0.8
        Target power, in (0, 1).
    alpha : float, default 0.05
        Level of the test.

    Returns
    -------
    numpy.ndarray of int
        Number of pairs, of the shape of ``effect``.

    References
    ----------
    Cohen, J. (1988). *Statistical Power Analysis for the Behavioral Sciences* (2nd ed.),
    chapter 2. For :math:`d = 0.5`, power 0.8 and :math:`\alpha = 0.05` this gives 34 pairs.
    """
    alpha, power = _alpha(alpha), _power(power)
    d = np.abs(_effects(effect))
    if np.any(d == 0):
        raise ValueError("effect must not be zero: no sample size detects a null effect")
    if power <= alpha:  # n = 2 already has power > alpha for any d != 0
        return _out(np.full(d.shape, 2, dtype=np.int64))
    return _out(_smallest_n(lambda m: paired_t_power(d, m, alpha) >= power, d.shape))


def minimum_detectable_effect(
    n: np.ndarray | int, power: float = 0.8, alpha: float = 0.05
) -> np.ndarray:
    r"""Smallest standardised effect the two-sided paired t-test detects with a given power.

    Solves :math:`1 - \beta(d, n) =` ``power`` for :math:`d > 0` with ``scipy.optimize.brentq``
    on :func:`paired_t_power` (increasing in :math:`d`), one root per ``n``. The bracket starts
    from twice the normal approximation :math:`(z_{1-\alpha/2} + z_{1-\beta}) / \sqrt n` and
    doubles until it holds the root.

    Parameters
    ----------
    n : array_like of int
        Number of pairs, at least 2.
    power : float, default 0.8
        Target power, in (``alpha``, 1).
    alpha : float, default 0.05
        Level of the test.

    Returns
    -------
    numpy.ndarray
        Effect :math:`d = \mu_D / \sigma_D`, of the shape of ``n``.

    References
    ----------
    Cohen, J. (1988). *Statistical Power Analysis for the Behavioral Sciences* (2nd ed.),
    chapter 2.
    """
    alpha, power = _alpha(alpha), _power(power)
    sizes = _sizes(n)
    if power <= alpha:
        raise ValueError(
            f"power must exceed alpha ({alpha}): a null effect already has power alpha"
        )
    z = stats.norm.ppf(1 - alpha / 2) + stats.norm.ppf(power)

    def solve(size: int) -> float:
        def gap(d: float) -> float:
            return float(paired_t_power(d, size, alpha)) - power

        upper = 2 * z / np.sqrt(size)
        while gap(upper) < 0:  # n = 2 (one df) needs far more than the normal approximation
            upper *= 2
        return optimize.brentq(gap, 0.0, upper, xtol=1e-12)

    # brentq solves one scalar equation: one root per distinct size.
    unique, inverse = np.unique(sizes, return_inverse=True)
    roots = np.array([solve(int(s)) for s in unique])
    return _out(roots[inverse].reshape(sizes.shape))


# --- exact sign test and McNemar -----------------------------------------------------------------


def _sign_lower_critical(m: np.ndarray, alpha: float) -> np.ndarray:
    r"""Largest k with :math:`2 F(k; m, ½) \le \alpha` (-1 when none), element-wise for m >= 0.

    The two-sided sign test on m decided pairs rejects exactly for :math:`k \le c` or
    :math:`k \ge m - c`: its p-value is symmetric and increasing in :math:`\min(k, m - k)`, and
    :math:`2F(k) \le \alpha < 1` forces :math:`k < m/2`. The p-value is computed as
    ``paired_tests.py`` computes it, so the decisions agree at the boundary.
    """
    m = np.asarray(m, dtype=np.int64)

    def rejects(k: np.ndarray) -> np.ndarray:
        return 2 * stats.binom.cdf(k, m, 0.5) <= alpha

    # binom.ppf lands on the boundary up to rounding; one step either way settles it.
    c = np.nan_to_num(stats.binom.ppf(alpha / 2, m, 0.5), nan=0.0).astype(np.int64)
    c = np.where(rejects(c), c, c - 1)
    c = np.where(rejects(c), c, c - 1)
    c = np.where(rejects(c + 1), c + 1, c)
    return np.maximum(c, -1)


def _sign_power_given(p: np.ndarray, m: np.ndarray, crit: np.ndarray) -> np.ndarray:
    """P(reject) when k ~ Binomial(m, p) and the region is k <= crit or k >= m - crit."""
    low = stats.binom.cdf(crit, m, p)
    high = stats.binom.sf(m - crit - 1, m, p)
    return np.where(crit >= 0, low + high, 0.0)


def sign_test_power(
    p_win: np.ndarray | float, n: np.ndarray | int, alpha: float = 0.05
) -> np.ndarray:
    r"""Exact power of the two-sided exact sign test (ties excluded).

    Among :math:`n` non-tied pairs the first system wins :math:`K \sim \mathrm{Binomial}(n,
    p_{win})`; the test rejects when :math:`p(K) = \min(1, 2F(\min(K, n - K))) \le \alpha`
    (:math:`F`: Binomial(n, ½) distribution function), so

    .. math:: 1 - \beta = \sum_{k=0}^{n} \binom{n}{k} p_{win}^k (1 - p_{win})^{n-k}
              \, 1[p(k) \le \alpha] = G(c_n) + 1 - G(n - c_n - 1)

    with :math:`G` the Binomial(n, :math:`p_{win}`) distribution function and :math:`c_n` the
    largest :math:`k` with :math:`2F(k) \le \alpha` (the rejection region, computed once per
    :math:`n`). The test is discrete, hence conservative (size :math:`\le \alpha`), and its
    power is not monotone in :math:`n` (a saw-tooth); see :func:`sign_test_sample_size`.

    Parameters
    ----------
    p_win : array_like
        Probability that the first system wins a non-tied pair, in [0, 1].
    n : array_like of int
        Number of non-tied pairs, at least 2; broadcast against ``p_win``.
    alpha : float, default 0.05
        Level of the test.

    Returns
    -------
    numpy.ndarray
        Power, of the broadcast shape of ``p_win`` and ``n``.

    References
    ----------
    Conover, W. J. (1999). *Practical Nonparametric Statistics* (3rd ed.), section 3.4 (the
    sign test). Wiley.
    """
    alpha = _alpha(alpha)
    p, size = np.broadcast_arrays(_probabilities(p_win, "p_win"), _sizes(n))
    crit = _sign_lower_critical(size, alpha)
    return _out(np.clip(_sign_power_given(p, size, crit), 0.0, 1.0))


def sign_test_sample_size(
    p_win: np.ndarray | float, power: float = 0.8, alpha: float = 0.05, max_n: int = 10_000
) -> np.ndarray:
    r"""Number of non-tied pairs from which the exact sign test keeps a power (up to ``max_n``).

    The exact test's power is a saw-tooth in :math:`n`: it can reach the target at some
    :math:`n` and drop below it at :math:`n + 1` (the rejection region grows by steps). This
    returns the *stable* size: the smallest :math:`n \ge 2` such that the power is at least
    ``power`` for every :math:`n' \in [n, \text{max\_n}]`. It is never smaller than the first
    :math:`n` reaching the target, and a plan with it cannot fall below the target by adding
    pairs (within the cap). The power is computed for every :math:`n` up to ``max_n`` at once.

    Parameters
    ----------
    p_win : array_like
        Probability that the first system wins a non-tied pair, in [0, 1], not ½.
    power : float, default 0.8
        Target power, in (0, 1).
    alpha : float, default 0.05
        Level of the test.
    max_n : int, default 10000
        Largest number of pairs examined.

    Returns
    -------
    numpy.ndarray of int
        Number of non-tied pairs, of the shape of ``p_win``.

    Raises
    ------
    ValueError
        If the power at ``max_n`` is still below the target.

    References
    ----------
    Chernick, M. R. and Liu, C. Y. (2002). The saw-toothed behavior of power versus sample size
    and software solutions: single binomial proportion using exact methods. *The American
    Statistician* 56(2), 149–155.
    """
    alpha, power = _alpha(alpha), _power(power)
    p = _probabilities(p_win, "p_win")
    max_n = int(_sizes(max_n, "max_n"))
    if np.any(p == 0.5):
        raise ValueError("p_win must not be 0.5: no sample size detects a null effect")
    sizes = np.arange(2, max_n + 1)
    crit = _sign_lower_critical(sizes, alpha)
    grid = _sign_power_given(p.reshape(-1, 1), sizes, crit)  # (settings, sizes)
    below = grid < power
    if np.any(below[:, -1]):
        raise ValueError(f"max_n ({max_n}) is too small: the power stays below {power} there")
    # The last size below the target (-1: none), per setting; the answer is the next one.
    last_below = np.where(below.any(axis=1), max_n - 2 - np.argmax(below[:, ::-1], axis=1), -1)
    return _out(sizes[last_below + 1].reshape(p.shape))


def mcnemar_exact_power(
    p10: np.ndarray | float,
    p01: np.ndarray | float,
    n: np.ndarray | int,
    alpha: float = 0.05,
) -> np.ndarray:
    r"""Exact power of the two-sided exact (conditional binomial) McNemar test.

    Each of :math:`n` pairs of binary outcomes is discordant one way with probability
    :math:`p_{10}`, the other way with :math:`p_{01}`. The discordant count is
    :math:`M \sim \mathrm{Binomial}(n, p_{10} + p_{01})` and, given :math:`M = m`, the count
    one way is :math:`B \sim \mathrm{Binomial}(m, \pi)`, :math:`\pi = p_{10} / (p_{10} +
    p_{01})`. The test is the exact sign test of :math:`B` among the :math:`m` discordant pairs
    (:func:`sign_test_power`), so

    .. math:: 1 - \beta = \sum_{m=0}^{n} P(M = m) \sum_{b=0}^{m} P(B = b \mid m)
              \, 1[p_m(b) \le \alpha]

    with the rejection regions of every :math:`m \le \max n` computed once (empty while
    :math:`2^{1-m} > \alpha`: too few discordant pairs never reject). Conservative, like the
    sign test.

    Parameters
    ----------
    p10, p01 : array_like
        Probabilities of the two kinds of discordant pair, in [0, 1] with
        :math:`p_{10} + p_{01} \le 1`.
    n : array_like of int
        Number of pairs, at least 2; broadcast against ``p10`` and ``p01``.
    alpha : float, default 0.05
        Level of the test.

    Returns
    -------
    numpy.ndarray
        Power, of the broadcast shape of the arguments.

    References
    ----------
    McNemar, Q. (1947). Note on the sampling error of the difference between correlated
    proportions or percentages. *Psychometrika* 12(2), 153–157; the exact conditional form:
    Fagerland, M. W., Lydersen, S. and Laake, P. (2013). The McNemar test for binary
    matched-pairs data: mid-p and asymptotic are better than exact conditional. *BMC Medical
    Research Methodology* 13, 91.
    """
    alpha = _alpha(alpha)
    a = _probabilities(p10, "p10")
    b = _probabilities(p01, "p01")
    if np.any(a + b > 1 + 1e-12):
        raise ValueError("p10 + p01 must be at most 1")
    a, b, size = np.broadcast_arrays(a, b, _sizes(n))
    q = np.minimum(a + b, 1.0)
    pi = np.divide(a, q, out=np.full(q.shape, 0.5), where=q > 0)
    m = np.arange(int(size.max(initial=2)) + 1)  # discordant counts 0 .. max n
    crit = _sign_lower_critical(m, alpha)
    conditional = _sign_power_given(pi[..., None], m, crit)  # (..., m)
    weights = stats.binom.pmf(m, size[..., None], q[..., None])  # zero for m > n
    return _out(np.clip((weights * conditional).sum(axis=-1), 0.0, 1.0))


# --- the Hoeffding decision -----------------------------------------------------------------------


def hoeffding_pair_power(
    p_win: np.ndarray | float, n: np.ndarray | int, alpha: float = 0.05
) -> np.ndarray:
    r"""Exact power of the Hoeffding decision on one pair, ``n`` complete blocks, no ties.

    The pair's estimate is :math:`\hat p = K / n`, :math:`K \sim \mathrm{Binomial}(n, p_{win})`
    the blocks the first system wins, and the decision of
    :func:`rankstats.hoeffding_test` (one pair: Holm changes nothing) is significant when
    Hoeffding's (1963) bound :math:`2e^{-2n(\hat p - 1/2)^2} < \alpha`, i.e. when
    :math:`|\hat p - \tfrac12| > t_n = \sqrt{\log(2/\alpha) / (2n)}`:

    .. math:: 1 - \beta = P(|K/n - \tfrac12| > t_n), \quad K \sim \mathrm{Binomial}(n, p_{win}).

    (Both directions: the probability of a rejection in the true one is the upper tail alone
    when :math:`p_{win} > 1/2`.)
    """
    alpha = _alpha(alpha)
    p, size = np.broadcast_arrays(_probabilities(p_win, "p_win"), _sizes(n))
    half_width = np.sqrt(np.log(2.0 / alpha) / (2.0 * size))
    # K/n > ½ + t ⟺ K > n(½ + t): the largest k not rejected above, the smallest below.
    upper = np.floor(size * (0.5 + half_width))
    lower = np.ceil(size * (0.5 - half_width))
    upper = np.where(2 * np.exp(-2 * size * (upper / size - 0.5) ** 2) < alpha, upper - 1, upper)
    lower = np.where(2 * np.exp(-2 * size * (lower / size - 0.5) ** 2) < alpha, lower + 1, lower)
    power = stats.binom.sf(upper, size, p) + stats.binom.cdf(lower - 1, size, p)
    return _out(np.clip(power, 0.0, 1.0))


def hoeffding_size(n: np.ndarray | int, alpha: float = 0.05) -> np.ndarray:
    r"""The Hoeffding decision's own size on one pair: :func:`hoeffding_pair_power` at
    :math:`p_{win} = 1/2` (binary outcomes, the most variable outcome of mean ½).

    Hoeffding's bound guarantees a size of at most :math:`\alpha` for any outcome in [0, 1];
    the size it has is far smaller: as :math:`n \to \infty` it tends to
    :math:`2\Phi(-\sqrt{2\log(2/\alpha)})` (0.0066 at :math:`\alpha = 0.05`), the price of a
    guarantee that holds for every distribution and every :math:`n`.
    """
    return hoeffding_pair_power(0.5, n, alpha)
