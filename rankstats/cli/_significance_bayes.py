"""The Bayesian tests of ``rankstats significance``: the signed-rank test (``--rope``) and the
hierarchical test across tasks (``--hierarchical``), on every adjacent pair of the average-rank
order or on the pair named by ``--pair A B``."""

from __future__ import annotations

import itertools
import warnings
from dataclasses import replace

import pandas as pd

from rankstats.cli._common import clean, short
from rankstats.cli._console import NAME_WIDTH, print_frame
from rankstats.cli.options.significance import Options
from rankstats.cli.usage import UsageError, spoken
from rankstats.errors import preview


def pairs(scores, blocks, ph, opts: Options) -> list[tuple[str, str]]:
    """The pairs to test: ``--pair A B`` (checked against the systems, naming what is unknown
    or was dropped), else every adjacent pair of the average-rank order."""
    if opts.pair is None:
        return list(itertools.pairwise(ph.mean_ranks.index))
    a, b = opts.pair
    unknown = [name for name in (a, b) if name not in scores.systems]
    if unknown:
        raise UsageError(
            f"--pair: unknown system(s) {preview(map(repr, unknown), 2)}; systems are: "
            f"{preview(map(repr, scores.systems), 6)}"
        )
    dropped = [name for name in (a, b) if name not in blocks.systems]
    if dropped:
        raise UsageError(
            f"--pair: {preview(map(repr, dropped), 2)} left no block to test (dropped by "
            f"--missing {blocks.missing}: {blocks.dropped()})"
        )
    return [(a, b)]


def _pair(a: str, b: str, ph) -> dict:
    return {
        "system_a": a,
        "system_b": b,
        "mean_rank_a": ph.mean_ranks[a],
        "mean_rank_b": ph.mean_ranks[b],
    }


def _answer(a: str, b: str, res) -> dict:
    """The three probabilities of a Bayesian test and its decision (a system, "equivalent",
    or empty below the threshold)."""
    return {
        "p_a_better": res.p_a,
        "p_rope": res.p_rope,
        "p_b_better": res.p_b,
        "decision": {"a": a, "b": b, "rope": "equivalent", None: ""}[res.decision],
    }


def bayes_table(blocks, ph, opts: Options, chosen) -> pd.DataFrame:
    """The Bayesian signed-rank test of the ``chosen`` pairs, on the scores of the same
    blocks."""
    from rankstats.significance.bayesian_signed_rank import bayes_signed_rank

    frame = pd.DataFrame(blocks.values, columns=list(blocks.systems))
    # On imputed ranks the scores of a block may be missing: each pair uses the blocks where
    # both systems were scored (n_blocks says how many); scores are never imputed.
    missing = "complete-case" if blocks.imputed else "error"
    rows = []
    for a, b in chosen:
        res = bayes_signed_rank(
            frame,
            a,
            b,
            rope=opts.rope,
            draws=opts.signed_rank_draws,
            seed=opts.seed,
            missing=missing,
        )
        rows.append({**_pair(a, b, ph), "n_blocks": res.n, **_answer(a, b, res)})
    return pd.DataFrame(rows)


def hierarchical_table(scores, ph, opts: Options, chosen) -> pd.DataFrame:
    """The hierarchical test (Corani et al. 2017) of the ``chosen`` pairs, on the instance-level
    scores (the instances where both systems were scored). One compiled PyMC model serves every
    pair with the same number of tasks. ``p_*``: the published quantity (baycomp's); the
    posterior predictive probabilities are the ``predictive_*`` columns."""
    from rankstats._pymc.convergence import ConvergenceWarning
    from rankstats.significance.bayesian_hierarchical import HIERARCHICAL_NUTS, bayes_hierarchical

    nuts = replace(
        HIERARCHICAL_NUTS,
        draws=opts.mcmc.draws,
        tune=HIERARCHICAL_NUTS.tune if opts.mcmc.tune is None else opts.mcmc.tune,
        chains=opts.mcmc.chains,
    )

    rows = []
    for a, b in chosen:
        try:
            # Its advice names Python arguments (draws=, target_accept=): the table printed by
            # print_hierarchical says the same with the flags (--draws, --tune).
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                res = bayes_hierarchical(
                    scores,
                    a,
                    b,
                    rope=opts.rope,
                    rho=opts.rho,
                    nuts=nuts,
                    seed=opts.seed,
                    # Tasks with fewer than 2 shared instances: dropped with --missing
                    # complete-case, else refused (scores are never imputed).
                    missing="complete-case" if opts.missing == "complete-case" else "error",
                )
        except ValueError as err:  # the library's message as the command prints it, located
            where = f"--hierarchical, {short(a, 40)} vs {short(b, 40)}"
            raise UsageError(f"{where}: {spoken(err)}") from None
        d = res.diagnostics
        delta0 = res.task_table().set_index("task").loc["(population mean δ0)"]
        rows.append(
            {
                **_pair(a, b, ph),
                "n_tasks": res.n_tasks,
                "n_instances": res.n,
                **_answer(a, b, res),
                "predictive_a": res.predictive["a"],
                "predictive_rope": res.predictive["rope"],
                "predictive_b": res.predictive["b"],
                "delta0_mean": delta0["delta_mean"],
                "delta0_low": delta0["delta_low"],
                "delta0_high": delta0["delta_high"],
                "converged": d["converged"],
                "max_r_hat": d["max_r_hat"],
                "min_ess_bulk": d["min_ess_bulk"],
                "divergences": d["divergences"],
                "dropped_tasks": ";".join(map(str, res.dropped["task"])),
            }
        )
    return pd.DataFrame(rows)


def _which(opts: Options) -> str:
    return "the pair given by --pair" if opts.pair is not None else "adjacent systems"


def print_bayes(opts: Options, bayes: pd.DataFrame) -> None:
    print(
        f"\nBayesian signed-rank test of {_which(opts)}, ROPE ±{opts.rope:g} "
        f"({opts.signed_rank_draws} posterior draws, seed {opts.seed}; decision at P ≥ 0.95):"
    )
    print_frame(
        bayes[["system_a", "system_b", "p_a_better", "p_rope", "p_b_better", "decision"]],
        headers={"p_a_better": "P(a better)", "p_rope": "P(rope)", "p_b_better": "P(b better)"},
        decimals={"p_a_better": 3, "p_rope": 3, "p_b_better": 3},
        text_width=NAME_WIDTH,
    )


def print_hierarchical(opts: Options, hier: pd.DataFrame) -> None:
    mcmc = opts.mcmc
    print(
        f"\nBayesian hierarchical test of {_which(opts)} (Corani et al. 2017), ROPE "
        f"±{opts.rope:g}, ρ = {opts.rho:g} ({mcmc.chains} chains × {mcmc.draws} draws after "
        f"{mcmc.tune} tuning, seed {opts.seed}; P = posterior probability that the region is "
        "the most probable for a new task, as baycomp reports it; decision at P ≥ 0.95):"
    )
    shown = hier.assign(
        verdict=[
            "ok" if ok else f"NO (R-hat {r:.3f}, ESS {e:.0f}, {int(n)} div.)"
            for ok, r, e, n in zip(
                hier["converged"],
                hier["max_r_hat"],
                hier["min_ess_bulk"],
                hier["divergences"],
                strict=True,
            )
        ]
    )
    print_frame(
        shown[
            ["system_a", "system_b", "p_a_better", "p_rope", "p_b_better", "decision", "verdict"]
        ],
        headers={
            "p_a_better": "P(a better)",
            "p_rope": "P(rope)",
            "p_b_better": "P(b better)",
            "verdict": "converged",
        },
        decimals={"p_a_better": 3, "p_rope": 3, "p_b_better": 3},
        text_width=NAME_WIDTH,
    )
    print(
        "(hierarchical.csv also holds the posterior predictive probabilities that the "
        "difference on one new task falls in each region: predictive_a / _rope / _b.)"
    )
    bad = int((~hier["converged"].astype(bool)).sum())
    if bad:
        print(
            f"WARNING: {bad} of {len(hier)} hierarchical fits did NOT converge (R-hat > 1.01, "
            "bulk ESS < 400 or divergences): do not report them; raise --draws and --tune."
        )


def hierarchical_summary(opts: Options, hier: pd.DataFrame | None) -> dict | None:
    if hier is None:
        return None
    return {
        "rope": opts.rope,
        "rho": opts.rho,
        "draws": opts.mcmc.draws,
        "tune": opts.mcmc.tune,
        "chains": opts.mcmc.chains,
        "seed": opts.seed,
        "sampler": "pymc",
        "threshold": 0.95,
        "probability": "share of the posterior draws in which the region is the most probable "
        "for a new task (baycomp's probs(); Corani et al. 2017)",
        "predictive": "posterior predictive probability that the difference on one new task "
        "falls in the region",
        "all_converged": bool(hier["converged"].all()),
        "pairs": clean(hier.to_dict(orient="records")),
    }


def bayes_summary(opts: Options, bayes: pd.DataFrame | None) -> dict | None:
    if bayes is None:
        return None
    return {
        "rope": opts.rope,
        "samples": opts.signed_rank_draws,
        "seed": opts.seed,
        "threshold": 0.95,
        "pairs": clean(bayes.to_dict(orient="records")),
    }
