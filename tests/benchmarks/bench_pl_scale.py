"""Leaderboard-scale maximum likelihood (issue 47): Plackett–Luce against choix, PL with system
covariates against a plain scipy BFGS on β, and a Bradley–Terry fit against a plain NumPy Newton.

Run in the benchmark environment (choix is never a dependency of rankstats or its tests):

    .venv-bench/bin/pip install choix
    .venv-bench/bin/python tests/benchmarks/bench_pl_scale.py [--no-choix] [--quick]

Simulated Plackett–Luce rankings (Gumbel trick, log-worths N(0, 1)): each ranking orders a
random subset of ``size`` of the ``items`` systems.  Cases: the issue's 1,000 complete rankings of
100 items; 2,000 rankings of 20 among 100, 500 and 1,000 items; 10,000 rankings of 100 among
1,000 items (rankstats only: choix's Python loop would take hours).  Per case: rankstats
``PlackettLuce().fit(data, method="mle")`` on the prepared data (MLE *and* standard errors; best
of ``--repeat``; also the estimation alone, ``newton`` on the objective: the estimates and their
covariance, what choix's estimates compare with, ``fit()`` adding 4,000 normal draws for the
intervals), the same with the data preparation from the Rankings, ``choix.ilsr_rankings``
(``alpha=0``, ``tol=1e-10``; one run: it is the slow side), their ratio (> 1: rankstats faster),
the largest difference of the centred log-worths, the Hessians and products the fit computed,
the peak of the memory traced during the estimation (``tracemalloc``) against the size of the
prepared data, and the load (``uptime``) before and after.  The machine is shared: read the
ratios with the load.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import time
import tracemalloc

import numpy as np

import rankstats as rs
from rankstats.models import _mle
from rankstats.models._data import pl_data


def uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return "load average: " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


def best_of(function, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def simulate(items: int, rankings: int, size: int, seed: int = 0):
    """``rankings`` PL rankings of ``size`` random systems out of ``items``; returns the
    Rankings, the orderings (best first, for choix) and the true log-worths."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(0.0, 1.0, items)
    chosen = np.argsort(rng.random((rankings, items)), axis=1)[:, :size]
    keys = theta[chosen] + rng.gumbel(size=chosen.shape)
    order = np.argsort(-keys, axis=1)
    orderings = np.take_along_axis(chosen, order, axis=1)
    ranks = np.full((rankings, items), np.nan)
    rows = np.arange(rankings)[:, None]
    ranks[rows, orderings] = np.arange(size)[None, :]
    names = tuple(f"s{i:04d}" for i in range(items))
    return rs.Rankings(ranks, names, tuple(range(rankings))), orderings, theta


def counted_objective(data):
    """The PL objective, counting exact Hessians and Hessian–vector products."""
    from rankstats.core.newton_krylov import GRADIENT, hessian_cost, with_hessian_cost

    objective = _mle.pl_objective(data, None)
    counts = {"hessians": 0, "products": 0}

    def function(params, derivatives):
        value, grad, hess = objective(params, derivatives)
        if derivatives is True:
            counts["hessians"] += 1
        if derivatives == GRADIENT:
            product = hess

            def hess(u):
                counts["products"] += 1
                return product(u)

        return value, grad, hess

    return with_hessian_cost(function, hessian_cost(objective)), counts


def pl_case(items: int, rankings: int, size: int, repeat: int, choix_too: bool) -> None:
    from rankstats.core.bradley_terry_mle import newton

    rk, orderings, _ = simulate(items, rankings, size)
    data = pl_data(rk)
    model = rs.models.PlackettLuce()
    before = uptime()
    estimate = best_of(lambda: newton(_mle.pl_objective(data, None), items), repeat)
    ours = best_of(lambda: model.fit(data, method="mle"), repeat)
    with_prep = best_of(lambda: model.fit(rk, method="mle"), 1)
    fit = model.fit(data, method="mle")
    function, counts = counted_objective(data)
    newton(function, items)
    data_bytes = sum(a.nbytes for a in (data.index, data.group_start, data.group_end))
    data_bytes += data.fraction.nbytes + data.term.nbytes
    tracemalloc.start()
    newton(_mle.pl_objective(data, None), items)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    line = (
        f"PL {items:>5} items x {rankings:>6} rankings of {size:>3}: rankstats MLE + SEs "
        f"{estimate:6.2f} s ({counts['hessians']} Hessians, {counts['products']} products; peak "
        f"traced {peak / 2**20:5.0f} MiB = {peak / data_bytes:4.1f}x the prepared data); "
        f"fit() {ours:6.2f} s (with 4,000 normal draws), from the Rankings {with_prep:6.2f} s"
    )
    if choix_too:
        import choix

        start = time.perf_counter()
        theirs = choix.ilsr_rankings(items, list(orderings), alpha=0.0, tol=1e-10)
        choix_time = time.perf_counter() - start
        diff = np.abs(fit.worth.to_numpy() - (theirs - theirs.mean())).max()
        line += (
            f"\n    choix.ilsr_rankings {choix_time:7.2f} s: ratio {choix_time / estimate:5.1f}x "
            f"(MLE + SEs), {choix_time / ours:5.1f}x (fit()); max |dθ| {diff:.1e}"
        )
    print(line)
    print(f"    load before: {before}\n    load after:  {uptime()}", flush=True)


def covariate_case(repeat: int) -> None:
    """PL with 3 system covariates, 2,000 complete rankings of 30 systems: rankstats' MLE (β, its
    standard errors) against scipy's BFGS on β with an analytic gradient (NumPy, complete
    rankings: reverse cumulative sums)."""
    import pandas as pd
    from scipy import optimize

    items, rankings = 30, 2000
    rng = np.random.default_rng(1)
    x = rng.normal(size=(items, 3))
    beta = np.array([0.8, -0.5, 0.3])
    rk, orderings, _ = simulate(items, rankings, items, seed=2)
    # re-simulate with worths X β
    keys = (x @ beta)[None, :] + rng.gumbel(size=(rankings, items))
    orderings = np.argsort(-keys, axis=1)
    ranks = np.argsort(orderings, axis=1).astype(float)
    rk = rs.Rankings(ranks, rk.systems, rk.rankers)
    covariates = pd.DataFrame(x, index=list(rk.systems), columns=["c1", "c2", "c3"])
    model = rs.models.PlackettLuce(covariates=covariates)
    data = pl_data(rk)
    ours = best_of(lambda: model.fit(data, method="mle"), repeat)
    fit = model.fit(data, method="mle")
    xs = x[orderings]  # (L, K, 3) covariates in ranking order

    def negative(b):
        eta = xs @ b
        shift = eta.max()
        w = np.exp(eta - shift)
        tail = np.cumsum(w[:, ::-1], axis=1)[:, ::-1][:, :-1]
        wx = np.cumsum((w[:, :, None] * xs)[:, ::-1], axis=1)[:, ::-1][:, :-1]
        value = eta[:, :-1].sum() - np.log(tail).sum() - shift * tail.size
        grad = xs[:, :-1].sum(axis=(0, 1)) - (wx / tail[:, :, None]).sum(axis=(0, 1))
        return -value, -grad

    scipy_time = best_of(
        lambda: optimize.minimize(negative, np.zeros(3), jac=True, method="BFGS"), repeat
    )
    found = optimize.minimize(negative, np.zeros(3), jac=True, method="BFGS")
    ours_beta = np.array([fit.parameters[f"beta: c{k}"] for k in (1, 2, 3)])
    print(
        f"PL + 3 covariates, {rankings} x {items}: rankstats {ours * 1e3:6.1f} ms (β and SEs)  "
        f"scipy BFGS on β {scipy_time * 1e3:6.1f} ms (β only)  ratio {scipy_time / ours:4.2f}x  "
        f"max |dβ| {np.abs(ours_beta - found.x).max():.1e}   [{uptime()}]",
        flush=True,
    )


def plain_bt_newton(i, j, wins_i, n, tol=1e-10):
    """Bradley–Terry MLE by Newton on pair counts (no ties): gradient and Laplacian Hessian by
    bincount, the last log-worth fixed — what a user would write in NumPy."""
    total = np.bincount(i * n + j, minlength=n * n).reshape(n, n)
    won = np.bincount(i * n + j, weights=wins_i, minlength=n * n).reshape(n, n)
    a, b = np.nonzero(np.triu(total + total.T, 1))
    count = (total + total.T)[a, b]
    wins_a = (won + (total.T - won.T))[a, b]
    theta = np.zeros(n)
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(theta[b] - theta[a]))
        resid = wins_a - count * p
        grad = np.bincount(a, resid, n) - np.bincount(b, resid, n)
        w = count * p * (1 - p)
        hess = np.zeros((n, n))
        np.add.at(hess, (a, b), w)
        hess += hess.T
        hess -= np.diag(hess.sum(axis=1))
        step = np.linalg.solve(-hess[:-1, :-1], grad[:-1])
        theta[:-1] += step
        if np.abs(step).max() < tol:
            break
    return theta - theta.mean()


def plain_bt_rows(i, j, first_won, n, tol=1e-10):
    """The same Newton on the battles themselves (one row each, no aggregation): the Laplacian
    by one bincount over the rows' cells."""
    theta = np.zeros(n)
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(theta[j] - theta[i]))
        resid = first_won - p
        grad = np.bincount(i, resid, n) - np.bincount(j, resid, n)
        w = p * (1 - p)
        off = np.bincount(i * n + j, w, n * n).reshape(n, n)
        hess = off + off.T
        hess -= np.diag(hess.sum(axis=1))
        step = np.linalg.solve(-hess[:-1, :-1], grad[:-1])
        theta[:-1] += step
        if np.abs(step).max() < tol:
            break
    return theta - theta.mean()


def bt_case(repeat: int) -> None:
    """20,000 battles among 100 models, no ties: rankstats' ``fit_battles(bootstrap=0)`` (the
    pair counts, the existence check, Newton, standard errors) against a plain NumPy Newton."""
    import pandas as pd

    from rankstats.battles.fitting import fit_battles
    from rankstats.battles.log import read_battles

    n, battles = 100, 20_000
    rng = np.random.default_rng(3)
    theta = rng.normal(0.0, 1.0, n)
    i = rng.integers(0, n, battles)
    j = (i + rng.integers(1, n, battles)) % n
    first = rng.random(battles) < 1.0 / (1.0 + np.exp(theta[j] - theta[i]))
    names = np.array([f"m{k:03d}" for k in range(n)], dtype=object)
    frame = pd.DataFrame(
        {"model_a": names[i], "model_b": names[j], "winner": np.where(first, "model_a", "model_b")}
    )
    log = read_battles(frame)
    ours = best_of(lambda: fit_battles(log, ties=False, order_effect=False, n_resamples=0), repeat)
    fit = fit_battles(log, ties=False, order_effect=False, n_resamples=0)
    plain = best_of(lambda: plain_bt_newton(i, j, first.astype(float), n), repeat)
    rows = best_of(lambda: plain_bt_rows(i, j, first.astype(float), n), repeat)
    reference = plain_bt_newton(i, j, first.astype(float), n)
    diff = np.abs(np.asarray(fit.log_worth) - reference[[int(m[1:]) for m in fit.models]]).max()
    print(
        f"BT {battles} battles x {n} models: rankstats fit_battles {ours * 1e3:6.1f} ms  plain "
        f"NumPy Newton on the pair counts {plain * 1e3:6.1f} ms (ratio {plain / ours:4.2f}x), on "
        f"the battle rows {rows * 1e3:6.1f} ms (ratio {rows / ours:4.2f}x)  max |dθ| {diff:.1e}"
        f"   [{uptime()}]",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-choix", action="store_true", help="rankstats timings only")
    parser.add_argument("--quick", action="store_true", help="skip the 1,000 x 10,000 case")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    choix_too = not args.no_choix
    if choix_too:
        try:
            import choix  # noqa: F401
        except ImportError:
            print("choix not installed: rankstats timings only")
            choix_too = False
    print(f"start: {uptime()}")
    pl_case(100, 1000, 100, args.repeat, choix_too)
    for items in (100, 500, 1000):
        pl_case(items, 2000, 20, args.repeat, choix_too)
    if not args.quick:
        pl_case(1000, 10_000, 100, 1, False)
    covariate_case(args.repeat)
    bt_case(args.repeat)
    usage = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"peak resident memory of the run {usage / 2**10:.0f} MiB; end: {uptime()}")


if __name__ == "__main__":
    main()
