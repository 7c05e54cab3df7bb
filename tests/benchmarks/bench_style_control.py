"""Style control at arena scale: read + fit + 1,000 cluster-bootstrap replicates, and the same fit
as a logistic regression in statsmodels (the reference), on the user's path.

Run: ``python tests/benchmarks/bench_style_control.py [--battles 2000000] [--models 100]
[--covariates 5] [--per-prompt 4] [--bootstrap 1000] [--reference-battles 200000]``

Simulated log: every battle an ordered pair of distinct models drawn uniformly, ``--covariates``
normal covariates per battle with effects in the log-odds, Davidson ties, an order effect;
battles grouped into prompts of ``--per-prompt`` battles (the cluster bootstrap's unit).

- **rankstats**: ``read_battles(frame, covariates=[...], cluster="prompt")`` (validation
  included) → ``fit_battles(bootstrap=1000)`` (both fits, adjusted and unadjusted, and the
  one-step cluster bootstrap); then the same with the battle bootstrap (no clusters).
- **statsmodels** (installed with the tests, never imported by rankstats): ``Logit`` on the
  ``--reference-battles`` first battles without ties (a dense design matrix of models and
  covariates: the textbook formulation of the style-controlled Bradley–Terry model), one fit;
  rankstats' fit of the same battles (``ties=False``) is timed beside it.

The load (``uptime``) is printed before and after: wall times on a shared machine.
"""

from __future__ import annotations

import argparse
import subprocess
import time

import numpy as np
import pandas as pd

import rankstats as rs


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def simulate(n_battles: int, n_models: int, k: int, per_prompt: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    theta = rng.normal(0, 0.7, n_models)
    a = rng.integers(0, n_models, n_battles)
    b = (a + rng.integers(1, n_models, n_battles)) % n_models
    z = rng.normal(0, 1, (n_battles, k))
    gamma = rng.normal(0, 0.3, k)
    t1 = theta[a] + 0.05 + z @ gamma
    t2 = theta[b]
    tt = -0.7 + 0.5 * (t1 + t2)
    top = np.maximum(np.maximum(t1, t2), tt)
    e1, e2, et = np.exp(t1 - top), np.exp(t2 - top), np.exp(tt - top)
    u = rng.random(n_battles) * (e1 + e2 + et)
    winner = np.where(u < e1, "model_a", np.where(u < e1 + e2, "model_b", "tie"))
    names = np.array([f"model-{m:03d}" for m in range(n_models)], dtype=object)
    frame = pd.DataFrame(
        {
            "model_a": names[a],
            "model_b": names[b],
            "winner": winner,
            "prompt": np.arange(n_battles) // per_prompt,
            **{f"z{j}": z[:, j] for j in range(k)},
        }
    )
    return frame, gamma


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--battles", type=int, default=2_000_000)
    parser.add_argument("--models", type=int, default=100)
    parser.add_argument("--covariates", type=int, default=5)
    parser.add_argument("--per-prompt", type=int, default=4)
    parser.add_argument("--bootstrap", type=int, default=1000)
    parser.add_argument("--reference-battles", type=int, default=200_000)
    args = parser.parse_args()
    frame, gamma = simulate(args.battles, args.models, args.covariates, args.per_prompt)
    names = [f"z{j}" for j in range(args.covariates)]
    print("load before:", uptime())
    rs.fit_battles(rs.read_battles(frame.head(2000), covariates=names), n_resamples=2000)  # compile

    start = time.perf_counter()
    battles = rs.read_battles(frame, covariates=names, cluster="prompt")
    read = time.perf_counter() - start
    fit = rs.fit_battles(battles, n_resamples=args.bootstrap)
    total = time.perf_counter() - start
    print(
        f"rankstats, {args.battles:,} battles × {args.covariates} covariates, "
        f"{battles.n_clusters:,} prompts: read {read:.2f} s, read + fit + {args.bootstrap} "
        f"cluster-bootstrap replicates ({fit.info['bootstrap_method']}) {total:.2f} s"
    )
    sd = np.array(list(fit.info["covariate_scale"].values()))
    print(f"   max |γ̂ − γ| {np.abs(fit.covariate_effects.to_numpy() / sd - gamma).max():.4f}")
    start = time.perf_counter()
    plain = rs.read_battles(frame, covariates=names)
    rs.fit_battles(plain, n_resamples=args.bootstrap)
    print(f"   the same with the battle bootstrap: {time.perf_counter() - start:.2f} s")

    import statsmodels.api as sm

    part = frame.head(args.reference_battles)
    part = part[part["winner"] != "tie"]
    start = time.perf_counter()
    models = sorted(set(part["model_a"]) | set(part["model_b"]))
    index = {m: j for j, m in enumerate(models)}
    rows = len(part)
    x = np.zeros((rows, len(models)))
    x[np.arange(rows), part["model_a"].map(index).to_numpy()] += 1
    x[np.arange(rows), part["model_b"].map(index).to_numpy()] -= 1
    design = np.column_stack([x[:, :-1], np.ones(rows), part[names].to_numpy()])
    y = (part["winner"] == "model_a").to_numpy(float)
    sm.Logit(y, design).fit(disp=0)
    reference = time.perf_counter() - start
    start = time.perf_counter()
    rs.fit_battles(rs.read_battles(part, covariates=names), n_resamples=0, standardize=False)
    ours = time.perf_counter() - start
    print(
        f"one fit of {rows:,} battles without ties: statsmodels Logit {reference:.2f} s, "
        f"rankstats {ours:.2f} s (ratio {reference / ours:.1f}; rankstats also fits the "
        "unadjusted ratings)"
    )
    print("load after:", uptime())


if __name__ == "__main__":
    main()
