"""An arena-style leaderboard from pairwise battles, with three kinds of interval.

A simulated log of 200,000 battles between 30 models (LMSYS's column names and winner spellings:
``model_a``, ``model_b``, ``winner`` ∈ {model_a, model_b, tie, tie (bothbad)}) is reduced to its
counts per ordered pair, fitted by Bradley–Terry with Davidson ties and an order effect (the
advantage of the answer shown first), and printed on the Elo scale with Fisher and bootstrap
intervals.  Runs in a few seconds; pass ``--posterior`` to add the NUTS posterior (PyMC, slower).

Then a real log: arena-hard-auto's 2,136 judgments (bundled), a star design — every battle
against one baseline, so the order effect cannot be estimated and is left out with a warning —
in which each question is judged several times: the bootstrap resamples questions
(``cluster="question_id"``), not battles.

    python examples/arena_battles.py [--posterior] [--out arena-out]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rankstats import EloScale, NutsSettings
from rankstats.battles.fitting import fit_battles
from rankstats.battles.log import read_battles, simulate_battles


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--posterior", action="store_true", help="also sample the posterior")
    parser.add_argument("--out", default=None, help="directory for the figures (optional)")
    args = parser.parse_args()

    log, truth = simulate_battles(
        n_models=30, n_battles=200_000, order_effect=0.15, tie=-0.5, seed=2024
    )
    battles = read_battles(log)  # also: read_battles("clean_battle.json") or a CSV / Parquet
    print(battles)

    fit = fit_battles(
        battles,
        n_resamples=1000,
        posterior=NutsSettings(progress=False) if args.posterior else False,
        elo=EloScale(anchor="model-000", rating=1000.0),  # LMSYS fixes one model's rating
        seed=0,
    )
    print(fit)
    print(fit.table().head(10).round(1).to_string(index=False))
    print(fit.parameters().round(4).to_string(index=False))
    print(f"true order effect η = {truth['order_effect']}, true log ν = {truth['tie']}")

    top = list(fit.table()["model"][:4])
    print("P(row beats column), ties ½, both orders averaged:")
    print(fit.win_probability().loc[top, top].round(3))

    import warnings

    from rankstats.datasets import battles_path

    arena = read_battles(battles_path("arena_hard"), cluster="question_id")
    print(arena)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        arena_fit = fit_battles(arena, n_resamples=1000, seed=0)
    for warning in caught:
        print(f"warning: {warning.message}")
    by_battle = fit_battles(read_battles(battles_path("arena_hard")), order_effect=False, seed=0)
    columns = ["model", "rating", "bootstrap_low", "bootstrap_high"]
    print("bootstrap over questions:")
    print(arena_fit.table()[columns].round(1).to_string(index=False))
    print("bootstrap over battles (too narrow: judgments of one question are correlated):")
    print(by_battle.table()[columns].round(1).to_string(index=False))

    if args.out:
        from rankstats.plotting.saving import save_figure

        out = Path(args.out)
        save_figure(fit.plot(top=30), out / "intervals")
        save_figure(fit.plot_win_probability(top=20), out / "win_probability")
        print(f"figures in {out}")


if __name__ == "__main__":
    main()
