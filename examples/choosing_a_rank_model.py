"""Which rank model fits the sushi data? Plackett–Luce, Bradley–Terry and Mallows, compared.

Run: ``python examples/choosing_a_rank_model.py [OUTDIR] [--draws 1000 --tune 1000 --chains 2
--seed 0 --ppc-draws 200 --rankings 5000]`` (OUTDIR defaults to a new temporary directory).

On the 5,000 complete rankings of 10 sushi it fits the three models (Plackett–Luce and
Bradley–Terry by NUTS, Mallows by its Gibbs sampler), compares them by PSIS-LOO
(:func:`rankstats.models.compare_fits`), checks each by posterior predictive checks
(:meth:`Fit.ppc`), prints their rank posteriors and writes the figures to OUTDIR. The walkthrough
is docs/user-guide/choosing-a-model.md; its numbers are this script's output.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
import warnings
from pathlib import Path

import pandas as pd

import rankstats as rs
from rankstats.models import LOOWarning
from rankstats.models import pointwise_likelihood as pointwise
from rankstats.plotting.saving import save_figure

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("out", nargs="?", default=None, help="output directory of the figures")
parser.add_argument("--draws", type=int, default=1000, help="kept draws per chain")
parser.add_argument("--tune", type=int, default=1000, help="tuning draws per chain")
parser.add_argument("--chains", type=int, default=2)
parser.add_argument("--seed", type=int, default=0)
parser.add_argument("--ppc-draws", type=int, default=200, help="replicated data sets per model")
parser.add_argument(
    "--rankings",
    type=int,
    default=None,
    help="fit the first N rankings only (a quicker run; the guide's numbers use all 5,000)",
)
args = parser.parse_args()
out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="choosing-a-model-"))
out.mkdir(parents=True, exist_ok=True)
print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")

rk = rs.load_rankings("sushi")  # 5,000 complete rankings of 10 sushi
if args.rankings is not None:
    if not 1 <= args.rankings <= rk.n_rankings:
        parser.error(f"--rankings: between 1 and {rk.n_rankings}, not {args.rankings}")
    rk = rs.Rankings.from_rank_matrix(rk.to_frame().iloc[: args.rankings])
print(rk)

# --- what the data say about sea urchin (uni): how often each rank is given -----------------
col = list(rk.systems).index("sea urchin")
counts = pd.Series(rk.ranks[:, col]).value_counts().sort_index()
print(
    "\nobserved rank of sea urchin (1 = best):",
    ", ".join(f"{int(r)}: {int(c)}" for r, c in counts.items()),
)

# --- the three fits -------------------------------------------------------------------------
sampling = dict(draws=args.draws, tune=args.tune, chains=args.chains, seed=args.seed)
fits, seconds = {}, {}
for name, model in [
    ("pl", rs.models.PlackettLuce()),
    ("bt", rs.models.BradleyTerry()),
    ("mallows", rs.models.Mallows()),
]:
    start = time.perf_counter()
    method = "mcmc" if name == "mallows" else "nuts"
    fits[name] = model.fit(rk, method=method, progress=False, **sampling)
    seconds[name] = time.perf_counter() - start
    print(f"{name}: {method}, {seconds[name]:.0f} s")

ll = pointwise.pointwise(fits["pl"])
print(
    f"\npointwise log-likelihood of one fit: {dict(ll.sizes)}, "
    f"{ll.nbytes / 2**20:.0f} MiB (float64)"
)

# --- PSIS-LOO ---------------------------------------------------------------------------------
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always", LOOWarning)
    start = time.perf_counter()
    cmp = rs.models.compare_fits(fits)
    loo_seconds = time.perf_counter() - start
print(f"\n{cmp}")
print(f"(compare_fits: {loo_seconds:.1f} s)")
for w in caught:
    if issubclass(w.category, LOOWarning):
        print("LOOWarning:", w.message)
for name in cmp.table.index:
    k = cmp.pareto_k[name]
    print(
        f"Pareto k of {name}: max {k.max():.3f}, "
        f"> 0.5: {int((k > 0.5).sum())}, > 0.7: {int((k > 0.7).sum())}"
    )

# --- posterior predictive checks --------------------------------------------------------------
checks = {}
for name, fit in fits.items():
    start = time.perf_counter()
    checks[name] = fit.ppc(rk, draws=args.ppc_draws, seed=args.seed)
    print(f"\n{checks[name]}\n(ppc: {time.perf_counter() - start:.1f} s)")
    for group, figure in checks[name].plots().items():
        save_figure(figure, out / f"ppc_{name}_{group}")
    table = checks[name].table()
    urchin = table[(table["group"] == "top1") & (table["system_a"] == "sea urchin")]
    if len(urchin):
        row = urchin.iloc[0]
        print(
            f"  top-1 share of sea urchin: observed {row['observed']:.4f}, replicated mean "
            f"{row['mean']:.4f} [{row['low']:.4f}, {row['high']:.4f}], p = {row['p_value']:.3f}"
        )
    shown = ["group", "statistic", "observed", "mean", "low", "high", "p_value"]
    kendall = table[table["group"] == "kendall"]
    if len(kendall):
        print(kendall[shown].to_string(index=False))
    with_urchin = table[
        (table["group"] == "pairs")
        & ((table["system_a"] == "sea urchin") | (table["system_b"] == "sea urchin"))
    ]
    print(
        f"  pairs with sea urchin: {int(with_urchin['missed'].sum())} of {len(with_urchin)} "
        "missed; largest gaps:"
    )
    gaps = with_urchin.assign(gap=(with_urchin["observed"] - with_urchin["mean"]).abs())
    print(gaps.sort_values("gap", ascending=False).head(3)[shown].to_string(index=False))
    worst = table.dropna(subset=["p_value"]).sort_values("p_value").head(5)
    print(worst[["group", "statistic", "observed", "mean", "p_value"]].to_string(index=False))

# --- rank posteriors ----------------------------------------------------------------------------
for name, fit in fits.items():
    post = fit.rank_posterior()
    print(f"\n{name}: rank posterior")
    print(post.summary[["expected_rank", "sd_rank", "p_best", "low", "high"]].round(3).to_string())
    save_figure(post.plot(), out / f"rank_posterior_{name}")

# --- Plackett–Luce's worth against Mallows' consensus -------------------------------------------
pl_rank = {s: i + 1 for i, s in enumerate(fits["pl"].order)}
ma = fits["mallows"]
positions = ma.draws()["position"][:, col]
print(
    f"\nsea urchin: PL rank {pl_rank['sea urchin']} of 10; Mallows consensus position "
    f"{ma.order.index('sea urchin') + 1} (posterior mean {positions.mean():.2f}, "
    "P(position = k): "
    + ", ".join(
        f"{int(k)}: {v:.3f}" for k, v in pd.Series(positions).value_counts(normalize=True).items()
    )
    + "); "
    f"Mallows θ = {ma.theta:.3f}"
)
print(f"sea urchin: observed mean rank {rk.ranks[:, col].mean():.2f}")
print("PL log-worth:", ", ".join(f"{s} {v:.3f}" for s, v in fits["pl"].worth.items()))
print("PL order:     ", ", ".join(fits["pl"].order))
print("Mallows order:", ", ".join(ma.order))
print(f"\nfigures in {out}")
print(f"fit seconds: {', '.join(f'{k} {v:.0f}' for k, v in seconds.items())}")
