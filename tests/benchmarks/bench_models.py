"""Speed of the rank models: rankstats vs choix (MLE) and nutpie vs PyMC's NUTS, side by side.

Run in the benchmark environment (choix and nutpie are never dependencies of rankstats):

    python3 -m venv .venv-bench && .venv-bench/bin/pip install -e . choix nutpie
    .venv-bench/bin/python tests/benchmarks/bench_models.py [--no-nuts] [--no-mle]
        [--samplers pymc,nutpie] [--graphs old,new] [--no-rerun]

Prints one line per comparison with the ratio (choix time / rankstats time: > 1 means rankstats
is faster) and the largest difference between the two estimates (centred log-worths).

NUTS (Plackett–Luce, 2 chains × 1000 draws + 1000 tuning steps): sushi and NASCAR, the padded
graph of rankstats ≤ issue 15 (``old``, :func:`old_pymc_model`) against the graph on sufficient
statistics (``new``: collapsed choice sets or, for NASCAR, per-ranking cumulative sums), PyMC's
sampler against nutpie; each time with the load average before and after (the machine is shared),
the old / new and pymc / nutpie ratios, the largest difference of posterior means between the
graphs, and the new-graph times once more at the end.
"""

from __future__ import annotations

import argparse
import os
import subprocess
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
    try:
        import choix
    except ImportError as err:
        print(f"MLE {name}: choix not available ({err})")
        return

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


def old_pymc_model(data, prior_scale: float):
    """The Plackett–Luce graph of rankstats ≤ issue 15: one padded row per ranking, gathers at the
    tie-group bounds of every position, no max-shift (the reference of the speed comparison)."""
    from rankstats._pymc import compat as _compat

    pm, pt = _compat.pymc()
    n = data.n_systems
    with pm.Model(coords={"system": list(data.systems)}) as model:
        index = pm.Data("index", data.index)
        start = pm.Data("group_start", data.group_start)
        end = pm.Data("group_end", data.group_end)
        fraction = pm.Data("fraction", data.fraction)
        term = pm.Data("term", data.term.astype(np.float64))
        theta = pm.ZeroSumNormal("log_worth", sigma=prior_scale, dims="system")
        padded = pt.concatenate([theta, pt.zeros(1)])
        a = pt.exp(padded)[index] * pt.lt(index, n)
        tail = pt.concatenate(
            [pt.cumsum(a[:, ::-1], axis=1)[:, ::-1], pt.zeros((a.shape[0], 1))], axis=1
        )
        rows = pt.arange(a.shape[0])[:, None]
        x = (1.0 - fraction) * tail[rows, start] + fraction * tail[rows, end]
        chosen = pt.gt(term, 0)
        loglik = pt.sum(pt.switch(chosen, padded[index] - pt.log(pt.switch(chosen, x, 1.0)), 0.0))
        pm.Potential("loglik", loglik)
    return model


class OldGraphPL(rs.models.PlackettLuce):
    """PlackettLuce sampled on :func:`old_pymc_model` (same prior, same likelihood)."""

    def _pymc_model(self, prepared):
        return old_pymc_model(prepared, self.prior_scale)


def uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return "load average: " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


def load() -> str:
    return "load " + " ".join(f"{x:.2f}" for x in os.getloadavg())


NUTS = dict(method="nuts", draws=1000, tune=1000, chains=2, seed=0, progressbar=False)


def timed_nuts(model, rk: rs.Rankings, sampler: str):
    """Wall time of ``model.fit`` (after a short warm-up fit: PyTensor's C cache is warm; nutpie
    compiles the model with numba inside every fit, so its time includes that compile)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(rk, sampler=sampler, **{**NUTS, "draws": 20, "tune": 20})
        before = load()
        start = time.perf_counter()
        fit = model.fit(rk, sampler=sampler, **NUTS)
        seconds = time.perf_counter() - start
    return seconds, fit, f"{before} -> {load()}"


def describe(fit) -> str:
    summary = fit.summary()
    return f"min bulk ESS {summary['ess_bulk'].min():5.0f}, max R-hat {summary['r_hat'].max():.3f}"


def nuts_comparison(samplers: list[str], graphs: list[str]) -> dict:
    """Plackett–Luce NUTS on sushi and NASCAR: old graph vs new graph, pymc vs nutpie."""
    datasets = {
        "sushi (5000 × 10)": rs.load_rankings("sushi"),
        "NASCAR (36 × 43 of 87)": rs.load_rankings("nascar"),
    }
    models = {"old": OldGraphPL(), "new": rs.models.PlackettLuce()}
    times = {}
    for name, rk in datasets.items():
        fits = {}
        for sampler in samplers:
            for graph in graphs:
                try:
                    seconds, fit, loads = timed_nuts(models[graph], rk, sampler)
                except ImportError as err:
                    print(f"NUTS {sampler}: not available ({err})")
                    break
                times[name, sampler, graph] = seconds
                fits[sampler, graph] = fit
                print(
                    f"NUTS {name:<23} {sampler:<6} {graph} graph: {seconds:7.1f} s   "
                    f"({describe(fit)}; {loads})",
                    flush=True,
                )
            if (name, sampler, "old") in times and (name, sampler, "new") in times:
                old, new = fits[sampler, "old"].summary(), fits[sampler, "new"].summary()
                delta = (old["mean"] - new["mean"]).abs()
                mcse = np.hypot(old["mcse_mean"], new["mcse_mean"])
                print(
                    f"  {name} {sampler}: old / new = "
                    f"{times[name, sampler, 'old'] / times[name, sampler, 'new']:6.1f}×   "
                    f"max |Δ posterior mean| old vs new = {delta.max():.4f} "
                    f"({(delta / mcse).max():.1f} MCSE)",
                    flush=True,
                )
        for graph in graphs:
            if (name, "pymc", graph) in times and (name, "nutpie", graph) in times:
                ratio = times[name, "pymc", graph] / times[name, "nutpie", graph]
                print(f"  {name} {graph} graph: pymc / nutpie = {ratio:5.2f}×", flush=True)
    return times


def rerun(samplers: list[str]) -> None:
    """The key numbers again at the end (the machine's load changes): new graph, each sampler."""
    print(f"re-run, {uptime()}")
    for name, rk in (("sushi", rs.load_rankings("sushi")), ("NASCAR", rs.load_rankings("nascar"))):
        for sampler in samplers:
            try:
                seconds, fit, loads = timed_nuts(rs.models.PlackettLuce(), rk, sampler)
            except ImportError:
                continue
            print(
                f"NUTS {name:<6} {sampler:<6} new graph: {seconds:6.1f} s   ({describe(fit)}; "
                f"{loads})",
                flush=True,
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-nuts", action="store_true")
    parser.add_argument("--no-mle", action="store_true")
    parser.add_argument("--samplers", default="pymc,nutpie", help="comma-separated (pymc,nutpie)")
    parser.add_argument("--graphs", default="old,new", help="comma-separated (old,new)")
    parser.add_argument("--no-rerun", action="store_true", help="skip the final re-run")
    args = parser.parse_args()
    print(uptime(), f"({os.cpu_count()} CPUs)", flush=True)
    if not args.no_mle:
        mle_comparison("sushi (5000 × 10, complete)", rs.load_rankings("sushi"))
        mle_comparison("NASCAR (83 drivers, 36 × 43 sub-rankings)", nascar_connected())
    if not args.no_nuts:
        samplers = args.samplers.split(",")
        nuts_comparison(samplers, args.graphs.split(","))
        if not args.no_rerun:
            rerun(samplers)
    print(uptime(), flush=True)


if __name__ == "__main__":
    main()
