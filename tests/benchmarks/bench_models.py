"""Speed of the rank models: rankstats vs choix (MLE) and nutpie vs PyMC's NUTS, side by side.

Run in the benchmark environment (choix and nutpie are never dependencies of rankstats):

    python3 -m venv .venv-bench && .venv-bench/bin/pip install -e . choix nutpie
    .venv-bench/bin/python tests/benchmarks/bench_models.py [--no-nuts]

Prints one line per comparison with the ratio (choix time / rankstats time: > 1 means rankstats
is faster) and the largest difference between the two estimates (centred log-worths).
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

import rankstats as rs
from rankstats.models._data import pl_data


def best_of(function, repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def nascar_connected() -> rs.Rankings:
    """NASCAR 2002 without the four drivers who finished last in every race they ran (Hunter
    2004): 83 drivers, 36 rankings of 43 — the MLE exists."""
    rk = rs.load_rankings("nascar")
    drop = {"Gary Bradberry", "Randy Renfrow", "Jason Hedlesky", "Andy Hillenburg"}
    keep = np.array([s not in drop for s in rk.systems])
    return rs.Rankings(rk.ranks[:, keep], tuple(np.array(rk.systems)[keep]), rk.rankers)


def mle_comparison(name: str, rk: rs.Rankings) -> None:
    import choix

    data = pl_data(rk)
    orderings = [[rk.systems.index(s) for s in o] for o in rk.orderings()]
    n = rk.n_systems
    model = rs.models.PlackettLuce()
    ours_total = best_of(lambda: model.fit(rk, method="mle"))
    ours_fit = best_of(lambda: model.fit(data, method="mle"))
    theirs = best_of(lambda: choix.ilsr_rankings(n, orderings, alpha=0.0, tol=1e-10))
    a = model.fit(data, method="mle").worth.to_numpy()
    b = choix.ilsr_rankings(n, orderings, alpha=0.0, tol=1e-10)
    b = b - b.mean()
    print(
        f"MLE {name:<34} rankstats {ours_fit * 1e3:8.1f} ms (+ data prep: "
        f"{ours_total * 1e3:7.1f} ms, with SEs)   choix.ilsr_rankings {theirs * 1e3:8.1f} ms   "
        f"ratio {theirs / ours_fit:5.2f}× ({theirs / ours_total:5.2f}× with prep)   "
        f"max |Δθ| = {np.max(np.abs(a - b)):.1e}"
    )


def nuts_comparison(rk: rs.Rankings) -> None:
    model = rs.models.PlackettLuce()
    kwargs = dict(method="nuts", draws=1000, tune=1000, chains=4, seed=0, progressbar=False)
    results = {}
    for sampler in ("nutpie", "pymc"):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model.fit(rk, sampler=sampler, **{**kwargs, "draws": 50, "tune": 50})  # warm
                start = time.perf_counter()
                fit = model.fit(rk, sampler=sampler, **kwargs)
            results[sampler] = (time.perf_counter() - start, fit)
        except ImportError as err:
            print(f"NUTS {sampler}: not available ({err})")
    for sampler, (seconds, fit) in results.items():
        summary = fit.summary()
        print(
            f"NUTS {sampler:<6} NASCAR ({rk.n_systems} drivers, 4 chains × 1000 draws + 1000 tune, "
            f"warm cache): {seconds:6.1f} s wall; min bulk ESS {summary['ess_bulk'].min():.0f}, "
            f"max R-hat {summary['r_hat'].max():.3f}"
        )
    if len(results) == 2:
        print(f"NUTS ratio pymc / nutpie: {results['pymc'][0] / results['nutpie'][0]:.2f}×")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-nuts", action="store_true")
    args = parser.parse_args()
    mle_comparison("sushi (5000 × 10, complete)", rs.load_rankings("sushi"))
    mle_comparison("NASCAR (83 drivers, 36 × 43 sub-rankings)", nascar_connected())
    if not args.no_nuts:
        nuts_comparison(rs.load_rankings("nascar"))


if __name__ == "__main__":
    main()
