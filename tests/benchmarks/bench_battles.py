"""Arena-scale battles: rankstats' read + Bradley–Terry fit + 1,000 bootstrap replicates against
the same bootstrap written with evalica's Bradley–Terry, as a user would.

Run in the benchmark environment (evalica is never a dependency of rankstats or its tests):

    .venv-bench/bin/pip install evalica
    .venv-bench/bin/python tests/benchmarks/bench_battles.py \\
        [--battles 2000000] [--models 200] [--bootstrap 1000] [--evalica-samples 10]

Simulated log (``rankstats.battles.log.simulate_battles``): every battle an ordered pair of distinct
models drawn uniformly (all N(N−1) ordered pairs occur: the worst case for a per-pair method),
Davidson ties, an order effect, 30 % of the ties "both bad"; model names as Python strings in an
object column, as ``pandas.read_json`` gives them for LMSYS's ``clean_battle`` file.

- **rankstats**: the user's path from the DataFrame: ``read_battles`` (validation included) →
  ``fit_battles(bootstrap=1000)`` (Davidson ties, order effect; Fisher + bootstrap intervals).
- **evalica**: ``evalica.bradley_terry`` (its Rust solver; ties as half wins, no order effect) on
  the rows, then ``--evalica-samples`` bootstrap samples, each resampling the 2 M rows with
  replacement and refitting; the time per sample × 1,000 is the extrapolated bootstrap.
- **single fit from the DataFrame** (best of ``--repeat``): rankstats' ``read_battles`` +
  ``fit_battles(bootstrap=0)`` against evalica two ways: as evalica's Chatbot Arena notebook
  calls it (the ``winner`` column mapped to ``evalica.Winner`` with ``Series.map``, the three
  columns passed as they are), and its fastest path we found (NumPy object arrays, the winners
  as a ``uint8`` array converted *before* the timer: a lower bound, not a user's path).
- **agreement**: rankstats with the same model as evalica (``ties=False``,
  ``order_effect=False``) against evalica's point estimates, both as centred log-worths (evalica
  returns worths; its stopping tolerance is 1e-6).

The load of the machine (``uptime``) is printed before and after: the timings are wall times on a
shared machine.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import time

import numpy as np


def uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "load average: " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def best_of(fn, repeat: int) -> float:
    """Shortest wall time of ``repeat`` calls (the machine is shared)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--battles", type=int, default=2_000_000)
    parser.add_argument("--models", type=int, default=200)
    parser.add_argument("--bootstrap", type=int, default=1000)
    parser.add_argument("--evalica-samples", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=5, help="runs of the single-fit timing")
    args = parser.parse_args()

    from rankstats.battles.fitting import fit_battles
    from rankstats.battles.log import read_battles, simulate_battles

    print(f"before: {uptime()}; {os.cpu_count()} cores")
    frame, truth = simulate_battles(
        args.models, args.battles, order_effect=0.1, tie=-0.5, seed=args.seed
    )
    frame = frame.astype({c: object for c in frame.columns})  # plain strings, as read_json
    frame = frame.astype(str)
    print(
        f"{args.battles:,} battles × {args.models} models (ordered pairs drawn uniformly), "
        f"true order effect η = 0.1, log ν = −0.5"
    )

    start = time.perf_counter()
    battles = read_battles(frame)
    read_time = time.perf_counter() - start
    fit = fit_battles(battles, n_resamples=args.bootstrap, seed=args.seed)
    ours = time.perf_counter() - start
    print(repr(battles))
    print(
        f"rankstats: read_battles {read_time:.2f} s; read + fit + {args.bootstrap} bootstrap "
        f"replicates {ours:.2f} s (failed replicates: {fit.info.get('bootstrap_failed', 0)})"
    )
    table = fit.table()
    print(table.head(5).to_string(index=False))
    print(fit.parameters().to_string(index=False))
    err = np.abs(fit.log_worth - truth["log_worth"].reindex(list(fit.models)).to_numpy()).max()
    print(f"max |θ̂ − θ| against the simulation truth: {err:.4f}")

    try:
        import evalica
    except ImportError:
        print("evalica is not installed (.venv-bench/bin/pip install evalica): skipped")
        print(f"after: {uptime()}")
        return
    xs = frame["model_a"].to_numpy(dtype=object)
    ys = frame["model_b"].to_numpy(dtype=object)
    codes = {"model_a": evalica.Winner.X, "model_b": evalica.Winner.Y}
    winners = np.array(
        [int(codes.get(w, evalica.Winner.Draw)) for w in frame["winner"]], dtype=np.uint8
    )
    index = evalica.indexing(xs, ys)[2]
    start = time.perf_counter()
    point = evalica.bradley_terry(xs, ys, list(winners), index=index)
    point_time = time.perf_counter() - start
    rng = np.random.default_rng(args.seed)
    start = time.perf_counter()
    for _ in range(args.evalica_samples):
        rows = rng.integers(0, len(xs), len(xs))
        evalica.bradley_terry(xs[rows], ys[rows], list(winners[rows]), index=index)
    per_sample = (time.perf_counter() - start) / args.evalica_samples
    theirs = point_time + per_sample * args.bootstrap
    print(
        f"evalica {evalica.__version__} ({point.solver}): fit {point_time:.2f} s; "
        f"{per_sample:.2f} s per bootstrap sample (mean of {args.evalica_samples}); "
        f"fit + {args.bootstrap} samples ≈ {theirs:.0f} s (extrapolated)"
    )
    print(f"ratio evalica / rankstats: {theirs / ours:.2g}×")

    # One point fit each, from the DataFrame (rankstats: read_battles included; evalica: its
    # indexing included), best of --repeat: the steady state, without first-call imports.
    def ours_once() -> None:
        fit_battles(read_battles(frame), n_resamples=0)

    def theirs_once() -> None:
        evalica.bradley_terry(xs, ys, list(winners), index=evalica.indexing(xs, ys)[2])

    arena_codes = {
        "model_a": evalica.Winner.X,
        "model_b": evalica.Winner.Y,
        "tie": evalica.Winner.Draw,
        "tie (bothbad)": evalica.Winner.Draw,
    }

    def theirs_as_documented() -> None:  # evalica's Chatbot-Arena.ipynb
        winner = frame["winner"].map(arena_codes)
        evalica.bradley_terry(frame["model_a"], frame["model_b"], winner)

    # Taking turns, so that a change in the machine's load touches all three alike.
    ours_fit = theirs_doc = theirs_fit = float("inf")
    for _ in range(args.repeat):
        ours_fit = min(ours_fit, best_of(ours_once, 1))
        theirs_doc = min(theirs_doc, best_of(theirs_as_documented, 1))
        theirs_fit = min(theirs_fit, best_of(theirs_once, 1))
    print(
        f"single fit from the DataFrame, best of {args.repeat}: rankstats {ours_fit * 1e3:.0f} ms "
        f"(Davidson ties, order effect); evalica as its Chatbot Arena notebook calls it "
        f"{theirs_doc * 1e3:.0f} ms (ratio evalica / rankstats {theirs_doc / ours_fit:.2f}×), "
        f"evalica on arrays prepared before the timer {theirs_fit * 1e3:.0f} ms "
        f"(ratio {theirs_fit / ours_fit:.2f}×)"
    )

    same = fit_battles(battles, ties=False, order_effect=False, n_resamples=0)
    log_scores = np.log(point.scores.reindex(list(same.models)).to_numpy())
    diff = np.abs(same.log_worth - (log_scores - log_scores.mean())).max()
    print(
        "point estimates, same model (ties as half wins, no order effect), centred log-worths: "
        f"max |rankstats − evalica| = {diff:.2e}"
    )
    print(f"after: {uptime()}")


if __name__ == "__main__":
    main()
