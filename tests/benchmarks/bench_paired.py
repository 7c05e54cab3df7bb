"""rs.paired against reference tools: the ``trueskill`` package and pairformance's BT.

Run in the benchmark environment (the reference packages are never dependencies of rankstats):

    python3 -m venv .venv-bench && .venv-bench/bin/pip install -e . trueskill==0.4.5 \\
        pairformance==0.0.1
    .venv-bench/bin/python tests/benchmarks/bench_paired.py

Prints, for the pairformance example (60 TopicalChat contexts × 5 systems, MoverScore) and TAC 2008
(H:pyramid: 62 systems × 48 topics, many ties):

- TrueSkill: rankstats' EP (``orders`` = the row order, one sequence) against
  ``trueskill.TrueSkill(backend="scipy").rate`` called instance after instance, ties as draws
  (ranks = dense ranks of the scores); the largest |Δμ| and |Δσ| and the time ratio.
- Bradley–Terry: rankstats' MM (ties as half wins) against ``pairformance.bt.BT`` (ties
  dropped): identical models when there are no ties, so the centred log-strengths must agree to
  pairformance's stopping rule; on tied data the two models differ (printed for information).
- The time of the whole ``rs.paired`` on TAC 2008 H:pyramid (every test, 1,000 resamples,
  Elo over 100 orders, TrueSkill over 20).

Ratios > 1 mean rankstats is faster. Timings on a shared machine are noisy.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
import pandas as pd

import rankstats as rs
from rankstats.datasets import data_path
from rankstats.paired_analysis.ratings import bradley_terry, trueskill


def timed(function, repeat: int = 1):
    best, value = np.inf, None
    for _ in range(repeat):
        start = time.perf_counter()
        value = function()
        best = min(best, time.perf_counter() - start)
    return best, value


def reference_trueskill(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The trueskill package, one free-for-all match per row (in row order), ties as draws."""
    import trueskill as ts_ref  # reference tool: benchmark environment only

    env = ts_ref.TrueSkill(
        mu=25.0, sigma=25 / 3, beta=25 / 6, tau=25 / 300, draw_probability=0.1, backend="scipy"
    )
    ratings = [env.create_rating() for _ in range(x.shape[1])]
    for row in x:
        played = np.flatnonzero(~np.isnan(row))
        ranks = pd.Series(-row[played]).rank(method="dense").to_numpy().astype(int) - 1
        out = env.rate([(ratings[i],) for i in played], ranks=list(ranks), min_delta=1e-10)
        for i, (r,) in zip(played, out, strict=True):
            ratings[i] = r
    return np.array([r.mu for r in ratings]), np.array([r.sigma for r in ratings])


def compare(name: str, x: np.ndarray, systems: list[str]) -> None:
    from pairformance.bt import BT as pairformance_bt  # reference tool: benchmark env only

    print(f"\n== {name}: {x.shape[1]} systems × {x.shape[0]} instances ==")
    identity = np.arange(x.shape[0])[None]
    t_ours, (mu, sigma) = timed(lambda: trueskill(x, orders=identity), repeat=3)
    t_ref, (mu_ref, sigma_ref) = timed(lambda: reference_trueskill(x))
    print(
        f"TrueSkill  max|Δμ| = {np.max(np.abs(mu - mu_ref)):.2e}  "
        f"max|Δσ| = {np.max(np.abs(sigma - sigma_ref)):.2e}  "
        f"rankstats {t_ours:.3f} s, trueskill {t_ref:.3f} s, ratio {t_ref / t_ours:.1f}"
    )
    df = pd.DataFrame(x, columns=systems)
    ties = int(sum((np.subtract.outer(r, r) == 0).sum() - len(r) for r in x) // 2)
    t_bt, ours = timed(lambda: bradley_terry(x, systems), repeat=3)
    t_pf, theirs = timed(lambda: pairformance_bt(df, epsilon=1e-30 if ties == 0 else 1e-9))
    log_theirs = np.log(np.asarray(theirs, dtype=float))
    log_theirs -= log_theirs.mean()
    label = "same model" if ties == 0 else f"{ties} tied games: ties ½ vs dropped, models differ"
    print(
        f"BT         max|Δ log-strength| = {np.max(np.abs(ours - log_theirs)):.2e} ({label}); "
        f"rankstats {t_bt:.4f} s, pairformance {t_pf:.3f} s, ratio {t_pf / t_bt:.0f}"
    )


def main() -> None:
    warnings.simplefilter("ignore")
    wide = pd.read_csv(data_path("pairformance_dialogue_tc_moverscore.csv.gz"))
    compare("pairformance example (MoverScore)", wide.to_numpy(float), list(wide.columns))
    tac = rs.load_dataset("tac08", tasks=["H:pyramid"])
    matrix = tac.data.pivot(index="instance", columns="system", values="score")
    compare("TAC 2008 H:pyramid", matrix.to_numpy(float), [str(s) for s in matrix.columns])
    t_all, _ = timed(lambda: rs.paired(tac, task="H:pyramid"))
    print(f"\nrs.paired(tac08, task='H:pyramid') with the defaults: {t_all:.2f} s")


if __name__ == "__main__":
    main()
