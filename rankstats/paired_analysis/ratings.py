r"""Strengths from instance-level paired outcomes: Bradley–Terry, Elo and TrueSkill.

Input everywhere: a score matrix ``X`` of shape ``(n_instances, N)`` (higher = better, NaN = not
evaluated). On each instance every pair of evaluated systems plays one game: the higher score wins,
equal scores draw.

- **Bradley–Terry** (Bradley & Terry 1952): :math:`P(i \succ j) = \pi_i / (\pi_i + \pi_j)`,
  maximum likelihood with a draw counted as half a win for each side, by the one Bradley–Terry
  MLE of rankstats (:mod:`rankstats.core.bradley_terry_mle`).
- **Elo** (Elo 1978): ratings start at ``start``; after a game
  :math:`R_i \leftarrow R_i + K (S_{ij} - E_{ij})`, :math:`E_{ij} = 1 / (1 + 10^{(R_j - R_i)/400})`;
  all the games of one instance are played simultaneously. The result depends on the order of the
  instances, so it is averaged over ``n_orders`` seeded random orders.
- **TrueSkill** (Herbrich, Minka & Graepel 2007): Gaussian skills :math:`N(\mu, \sigma^2)`,
  performance noise β, dynamics τ, draw probability; each instance is a free-for-all match ranked
  by score, solved by expectation propagation on the paper's factor graph (one truncation factor
  per adjacent pair; the paper's schedule: sweeps down and up the chain of difference factors
  until the marginals stop changing). Averaged over random instance orders like Elo.
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy import special, stats

from rankstats._util.user_frame import user_stacklevel
from rankstats.core.bradley_terry_mle import fit_bt, pairs_from_matrices


def win_matrix(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``wins[i, j]`` (games i won against j) and ``draws[i, j]`` over all instances."""
    n = x.shape[1]
    wins = np.empty((n, n))
    draws = np.empty((n, n))
    for j in range(n):  # loop over systems; vectorised over instances and opponents
        wins[:, j] = np.count_nonzero(x > x[:, [j]], axis=0)
        draws[:, j] = np.count_nonzero(x == x[:, [j]], axis=0)
    np.fill_diagonal(draws, 0.0)
    return wins, draws


def bradley_terry(
    x: np.ndarray, systems: list[str], tol: float = 1e-10, max_iter: int = 100
) -> np.ndarray:
    r"""Bradley–Terry log-strengths (centred) by maximum likelihood, draws as half wins.

    With :math:`w_{ij}` the games ``i`` won against ``j`` plus half their draws, maximises
    :math:`\sum_{i \ne j} w_{ij} \log \frac{\pi_i}{\pi_i + \pi_j}` (Bradley & Terry 1952) by
    the one Bradley–Terry MLE of rankstats, :func:`rankstats.core.bradley_terry_mle.fit_bt`
    (Newton–Raphson; the same maximum as Hunter's (2004) MM algorithm).

    Parameters
    ----------
    x : numpy.ndarray
        Scores, shape ``(n_instances, N)``; higher = better, NaN = not evaluated.
    systems : list of str
        Names of the ``N`` columns (for the error message).
    tol, max_iter : float, int
        Newton–Raphson stops when the largest step is below ``tol``.

    Returns
    -------
    numpy.ndarray
        Centred log-strengths :math:`\log \pi_i`, shape ``(N,)``.

    Raises
    ------
    rankstats.models.MLEDoesNotExistError
        A ``ValueError``: the comparison graph (i → j if i ever beats or draws with j) is not
        strongly connected, so the MLE does not exist (some systems never lose or never win).
    """
    wins, draws = win_matrix(x)
    counts = pairs_from_matrices(wins + 0.5 * draws)
    hint = (
        "Use the Bayesian Bradley–Terry fit rs.models.BradleyTerry().fit(..., method='map' or "
        "'nuts'), whose prior keeps the estimates finite."
    )
    optimum = fit_bt(counts, ties=False, systems=systems, hint=hint, tol=tol, max_iter=max_iter)
    return optimum.params


def _orders(n_instances: int, n_orders: int, seed: int | None) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.argsort(rng.random((n_orders, n_instances)), axis=1)


def elo(
    x: np.ndarray,
    k: float = 16.0,
    start: float = 1500.0,
    n_orders: int = 100,
    seed: int | None = 0,
) -> np.ndarray:
    """Elo ratings averaged over ``n_orders`` random instance orders (see module docstring)."""
    n_inst, n = x.shape
    order = _orders(n_inst, n_orders, seed)
    ratings = np.full((n_orders, n), start)
    for t in range(n_inst):  # sequential by nature; vectorised over orders and pairs
        scores = x[order[:, t]]  # (orders, N)
        played = ~np.isnan(scores)
        both = played[:, :, None] & played[:, None, :]
        result = np.where(
            scores[:, :, None] > scores[:, None, :],
            1.0,
            np.where(scores[:, :, None] == scores[:, None, :], 0.5, 0.0),
        )
        expected = 1.0 / (1.0 + 10.0 ** ((ratings[:, None, :] - ratings[:, :, None]) / 400.0))
        ratings = ratings + k * np.sum(np.where(both, result - expected, 0.0), axis=2)
    return ratings.mean(axis=0)


_SQRT_2PI = np.sqrt(2 * np.pi)


def _pdf(x: np.ndarray) -> np.ndarray:
    return np.exp(-0.5 * x * x) / _SQRT_2PI


def _v_w_win(t: np.ndarray, eps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean / variance corrections of N(t, 1) truncated to ``> eps`` (Herbrich et al. 2007)."""
    d = t - eps
    v = np.exp(-0.5 * d * d - special.log_ndtr(d)) / _SQRT_2PI
    return v, v * (v + d)


def _v_w_draw(t: np.ndarray, eps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean / variance corrections of N(t, 1) truncated to ``[-eps, eps]``.

    Computed for ``|t|`` (both bounds in the lower tail, where ``ndtr`` keeps its relative
    accuracy) and mirrored: ``v`` is odd in ``t`` and ``w`` even.
    """
    s = np.abs(t)
    a, b = -eps - s, eps - s
    mass = np.maximum(special.ndtr(b) - special.ndtr(a), 1e-300)
    pa, pb = _pdf(a), _pdf(b)
    v = (pa - pb) / mass
    w = v**2 + (b * pb - a * pa) / mass
    return np.where(t < 0, -v, v), w


def trueskill_update(
    mu_w: np.ndarray,
    var_w: np.ndarray,
    mu_l: np.ndarray,
    var_l: np.ndarray,
    draw: np.ndarray,
    beta: float,
    draw_margin: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Two-player TrueSkill update of (winner, loser), or of a draw (Herbrich et al. 2007)."""
    c = np.sqrt(2 * beta**2 + var_w + var_l)
    t = (mu_w - mu_l) / c
    eps = draw_margin / c
    v_win, w_win = _v_w_win(t, eps)
    v_draw, w_draw = _v_w_draw(t, eps)
    v = np.where(draw, v_draw, v_win)
    w = np.where(draw, w_draw, w_win)
    mu_w = mu_w + var_w / c * v
    mu_l = mu_l - var_l / c * v
    var_w = var_w * (1 - var_w / c**2 * w)
    var_l = var_l * (1 - var_l / c**2 * w)
    return mu_w, var_w, mu_l, var_l


def _match(
    mu: np.ndarray,
    var: np.ndarray,
    draws: np.ndarray,
    active: np.ndarray,
    beta: float,
    eps: float,
    tol: float = 1e-9,
    max_sweeps: int = 100,
) -> tuple[np.ndarray, np.ndarray]:
    r"""One free-for-all match per row by expectation propagation on the TrueSkill factor graph.

    ``mu``, ``var``: skills (after dynamics) of the players in finishing order (best first),
    shape ``(R, m)``; ``draws[:, k]``: players ``k`` and ``k + 1`` drew; ``active[:, k]``: the
    difference factor between them exists (both played). Returns the posterior skills.

    Performances :math:`p_k \sim N(\mu_k, \sigma_k^2 + \beta^2)`; differences
    :math:`d_k = p_k - p_{k+1}` with the truncation factor :math:`1[d_k > \varepsilon]` (win) or
    :math:`1[|d_k| \le \varepsilon]` (draw). Messages follow the schedule of Herbrich, Minka &
    Graepel (2007, Fig. 1): sweeps down the chain of difference factors (k = 0 … m − 2) and back
    up (k = m − 3 … 0), each factor updated from its current cavities (moment matching of the
    truncated Gaussian, functions ``v`` and ``w``), until no performance marginal's mean or
    standard deviation changes by more than ``tol`` (rating points) in a sweep. The loop runs
    over chain positions; every step is vectorised over the rows (the random instance orders).
    A chain of two players is one exact update (the closed form of the paper).
    """
    n_rows, m = mu.shape
    n_fac = m - 1
    if n_fac < 1:
        return mu.copy(), var.copy()
    # Column-major working copies: factor k's rows are contiguous.
    prior_pi = (1.0 / (var + beta**2)).T.copy()  # (m, R) performance priors
    prior_tau = (mu.T * prior_pi).copy()
    act = active.T.copy()
    drw = (draws & active).T.copy()
    up_pi = np.zeros((n_fac, n_rows))  # factor k -> performance k
    up_tau = np.zeros((n_fac, n_rows))
    lo_pi = np.zeros((n_fac, n_rows))  # factor k -> performance k + 1
    lo_tau = np.zeros((n_fac, n_rows))
    used = np.flatnonzero(act.any(axis=1))
    any_draw = drw.any(axis=1)
    last = int(used[-1]) if len(used) else -1
    schedule = [k for k in [*range(last + 1), *range(last - 1, -1, -1)] if act[k].any()]
    zero = np.zeros(n_rows)
    full = act.all(axis=1)
    mean_old = np.zeros((m, n_rows))
    sd_old = np.zeros((m, n_rows))
    converged = False
    for _ in range(max_sweeps):
        for k in schedule:
            a_pi = prior_pi[k] + (lo_pi[k - 1] if k > 0 else zero)
            a_tau = prior_tau[k] + (lo_tau[k - 1] if k > 0 else zero)
            b_pi = prior_pi[k + 1] + (up_pi[k + 1] if k + 1 < n_fac else zero)
            b_tau = prior_tau[k + 1] + (up_tau[k + 1] if k + 1 < n_fac else zero)
            v_a, v_b = 1.0 / a_pi, 1.0 / b_pi
            mu_a, mu_b = a_tau * v_a, b_tau * v_b
            mu_s, v_s = mu_a - mu_b, v_a + v_b  # sum factor -> difference (cavity of d_k)
            c = np.sqrt(v_s)
            t, e = mu_s / c, eps / c
            v, w = _v_w_win(t, e)
            if any_draw[k]:
                v_d, w_d = _v_w_draw(t, e)
                v = np.where(drw[k], v_d, v)
                w = np.where(drw[k], w_d, w)
            w = np.clip(w, 1e-300, 1.0 - 1e-12)
            # Truncation message = moments of the truncated Gaussian / cavity.
            new_pi = 1.0 / (v_s * (1.0 - w)) - 1.0 / v_s
            new_tau = (mu_s + c * v) / (v_s * (1.0 - w)) - mu_s / v_s
            if not full[k]:
                new_pi = np.where(act[k], new_pi, 0.0)
                new_tau = np.where(act[k], new_tau, 0.0)
            # Back through d_k = p_k - p_{k+1} to both performances.
            den_b = 1.0 + new_pi * v_b
            den_a = 1.0 + new_pi * v_a
            up_pi[k] = new_pi / den_b
            up_tau[k] = (new_tau + new_pi * mu_b) / den_b
            lo_pi[k] = new_pi / den_a
            lo_tau[k] = (new_pi * mu_a - new_tau) / den_a
        marg_pi = prior_pi.copy()
        marg_tau = prior_tau.copy()
        marg_pi[:-1] += up_pi
        marg_tau[:-1] += up_tau
        marg_pi[1:] += lo_pi
        marg_tau[1:] += lo_tau
        mean, sd = marg_tau / marg_pi, 1.0 / np.sqrt(marg_pi)
        change = max(np.max(np.abs(mean - mean_old)), np.max(np.abs(sd - sd_old)))
        mean_old, sd_old = mean, sd
        if change < tol:
            converged = True
            break
    if not converged:
        warnings.warn(
            f"TrueSkill EP did not converge in {max_sweeps} sweeps (last change {change:.2g})",
            RuntimeWarning,
            stacklevel=user_stacklevel(),
        )
    msg_pi = np.zeros((m, n_rows))
    msg_tau = np.zeros((m, n_rows))
    msg_pi[:-1] += up_pi
    msg_tau[:-1] += up_tau
    msg_pi[1:] += lo_pi
    msg_tau[1:] += lo_tau
    # Performance -> skill: the message loses the performance noise beta^2.
    has = msg_pi > 0
    safe = np.where(has, msg_pi, 1.0)
    s_pi = np.where(has, 1.0 / (1.0 / safe + beta**2), 0.0)
    s_tau = np.where(has, s_pi * (msg_tau / safe), 0.0)
    post_pi = 1.0 / var + s_pi.T
    post_tau = mu / var + s_tau.T
    return post_tau / post_pi, 1.0 / post_pi


def trueskill(
    x: np.ndarray,
    mu0: float = 25.0,
    sigma0: float = 25.0 / 3,
    beta: float = 25.0 / 6,
    tau: float = 25.0 / 300,
    draw_probability: float = 0.1,
    n_orders: int = 20,
    seed: int | None = 0,
    *,
    orders: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    r"""TrueSkill means and standard deviations, averaged over random instance orders.

    Each instance is a free-for-all match of the evaluated systems ranked by score (equal scores
    draw), solved by expectation propagation on the factor graph of Herbrich, Minka & Graepel
    (2007): performances :math:`p_i \sim N(s_i, \beta^2)`, one truncation factor per adjacent
    pair (:math:`d > \varepsilon` for a win, :math:`|d| \le \varepsilon` for a draw), with the
    paper's message schedule iterated to convergence (:func:`_match`). Before each match the
    skill variance of every participant grows by :math:`\tau^2`. Defaults are the paper's:
    μ0 = 25, σ0 = 25/3, β = σ0/2, τ = σ0/100, draw probability 0.1 (draw margin
    :math:`\varepsilon = \Phi^{-1}((p + 1)/2) \sqrt 2 \beta`).

    Parameters
    ----------
    x : numpy.ndarray
        Scores, shape ``(n_instances, N)``; higher = better, NaN = not evaluated.
    n_orders, seed : int
        Number of seeded random instance orders played (the results are averaged).
    orders : numpy.ndarray, optional
        Explicit orders instead, shape ``(n_orders, n_instances)`` (each row a permutation of
        the instance indices); e.g. ``np.arange(n_instances)[None]`` plays the rows as given.

    Returns
    -------
    mu, sigma : numpy.ndarray
        Posterior means and standard deviations per system, averaged over the orders.

    Examples
    --------
    One win from the default prior: 29.396 ± 7.171 against 20.604 ± 7.171, the values in the
    documentation of the ``trueskill`` package (``rate_1vs1(Rating(), Rating())``).

    >>> import numpy as np
    >>> mu, sigma = trueskill(np.array([[1.0, 0.0]]), orders=np.array([[0]]))
    >>> np.round(mu, 3).tolist(), np.round(sigma, 3).tolist()
    ([29.396, 20.604], [7.171, 7.171])
    """
    n_inst, n = x.shape
    eps = stats.norm.ppf((draw_probability + 1) / 2) * np.sqrt(2) * beta
    if orders is None:
        order = _orders(n_inst, n_orders, seed)
    else:
        order = np.asarray(orders, dtype=np.int64)
        if order.ndim != 2 or (np.sort(order, axis=1) != np.arange(n_inst)).any():
            raise ValueError("orders must have shape (n_orders, n_instances), rows permutations")
        n_orders = order.shape[0]
    rows = np.arange(n_orders)[:, None]
    mu = np.full((n_orders, n), mu0)
    var = np.full((n_orders, n), sigma0**2)
    # Each instance's systems best first (NaN last) and how many were evaluated.
    ranked = np.argsort(np.where(np.isnan(x), np.inf, -x), axis=1, kind="stable")
    counts = (~np.isnan(x)).sum(axis=1)
    for t in range(n_inst):  # sequential by nature; vectorised over orders and players
        inst = order[:, t]
        ranking = ranked[inst]  # (orders, N) system ids, best first
        played = np.arange(n)[None, :] < counts[inst][:, None]
        ordered = x[inst[:, None], ranking]
        draws = ordered[:, :-1] == ordered[:, 1:]
        active = played[:, 1:]
        m = mu[rows, ranking]
        v = var[rows, ranking] + tau**2 * played  # dynamics: skills drift between matches
        new_m, new_v = _match(m, v, draws, active, beta, eps)
        mu[rows, ranking] = np.where(played, new_m, m)
        var[rows, ranking] = np.where(played, new_v, var[rows, ranking])
    return mu.mean(axis=0), np.sqrt(var).mean(axis=0)
