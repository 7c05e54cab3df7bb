"""``rankstats fit --model mallows --clusters K``: a mixture of Mallows models — each cluster's
weight, dispersion and consensus, each assessor's cluster, and the population's pairwise
probabilities — printed and written by the outputs of :mod:`rankstats.cli.fit`."""

from __future__ import annotations

import pandas as pd

from rankstats.cli._console import print_columns, print_table
from rankstats.cli._fit_common import (
    advice_text,
    described,
    fit_model,
    formatted,
    warn_verdict,
    write_outputs,
)
from rankstats.cli._mallows_tables import extended_text, extension_notice, print_extras
from rankstats.cli.options.fit import Options
from rankstats.cli.usage import UsageError


def mixture(opts: Options, data, name: str, what: str) -> int:
    """The mixture's fit, tables and files (``mallows_clusters.csv``,
    ``mallows_assignments.csv``, ``mallows_consensus.csv``, ``mallows_pairwise.csv``)."""
    from rankstats import models
    from rankstats.reporting.diagnostics import convergence

    if opts.method != "mcmc":
        raise UsageError(
            f"--clusters {opts.clusters} is fitted by --method mcmc (sampled) or mle (EM)"
        )
    n_assessors = len(data.assessors) if hasattr(data, "assessors") else data.n_rankings
    if opts.clusters > n_assessors:
        raise UsageError(
            f"--clusters {opts.clusters} is more than the {n_assessors} assessors of {name}"
        )
    model = models.Mallows(
        prior=opts.prior,
        distance=opts.distance,
        kind=opts.kind,
        clusters=opts.clusters,
        error_model=opts.error_model,
    )
    print(f"rankstats fit: {name} ({what}), {described(model, opts)}", flush=True)
    fit, notes = fit_model(model, data, opts, **_sampler_options(opts))
    verdict = convergence(fit)
    advice = advice_text(opts, verdict, fit)
    warn_verdict(verdict, advice)
    extended = extended_text(fit)
    print(
        f"  Metropolis–Hastings: {fit.info['chains']} chains × {opts.mcmc.draws} draws, one every "
        f"{fit.info['thin']} iterations, after {fit.info['tune']} discarded{extended}, seed "
        f"{opts.seed}; clusters numbered by {fit.info['label_switching']}"
    )
    restarted = fit.info.get("restarted_chains") or []
    if restarted:
        moved = ", ".join(f"{r['chain'] + 1} (gap {r['gap']:g})" for r in restarted)
        print(
            f"  chains restarted at the end of tuning from the best one's state, their mixture "
            f"log-likelihood far below it: {moved}"
        )
    clusters = _clusters_table(opts, fit)
    consensus = _consensus_table(opts, fit)
    assignments = fit.assignments().reset_index()
    uncertain = int((assignments["probability"] < 0.9).sum())
    print(
        f"\n{len(assignments)} assessors; {uncertain} with a most probable cluster below 0.9 "
        "(mallows_assignments.csv)."
    )
    more = {"clusters": clusters, "assignments": assignments}
    more |= print_extras(
        opts,
        fit,
        "a new assessor (cluster unknown) puts the system in the",
        "a new assessor (cluster unknown)",
    )
    return write_outputs(
        opts,
        fit,
        name,
        consensus,
        "consensus",
        fit.pairwise(opts.ci_prob),
        extra={
            "prior": opts.prior,
            "distance": opts.distance,
            "kind": opts.kind,
            "clusters": opts.clusters,
        },
        verdict=verdict,
        notes=notes,
        advice=advice,
        more=more,
    )


def _clusters_table(opts: Options, fit) -> pd.DataFrame:
    """Each cluster's weight, dispersion and consensus, printed."""
    summary = fit.summary(opts.ci_prob)
    weights = fit.weights(opts.ci_prob)
    alpha = summary.loc[[f"alpha[{c + 1}]" for c in range(fit.n_clusters)]]
    clusters = pd.DataFrame(
        {
            "cluster": range(1, fit.n_clusters + 1),
            "weight": weights["weight"].to_numpy(),
            "weight_low": weights["low"].to_numpy(),
            "weight_high": weights["high"].to_numpy(),
            "assessors": weights["assessors"].to_numpy(),
            "alpha": alpha["mean"].to_numpy(),
            "alpha_low": alpha["low"].to_numpy(),
            "alpha_high": alpha["high"].to_numpy(),
            "alpha_r_hat": alpha["r_hat"].to_numpy(),
            "top": [", ".join(order[:3]) for order in fit.info["consensus"]],
        }
    )
    numbers = (
        ("weight", "weight", ".3f"),
        ("weight_low", "low", ".3f"),
        ("weight_high", "high", ".3f"),
        ("alpha", "alpha", ".3g"),
        ("alpha_low", "low", ".3g"),
        ("alpha_high", "high", ".3g"),
        ("alpha_r_hat", "R-hat", ".3f"),
    )
    columns = [(header, "right", formatted(clusters[c], spec)) for c, header, spec in numbers]
    columns.insert(0, ("cluster", "right", [str(c) for c in clusters["cluster"]]))
    columns.insert(4, ("assessors", "right", [str(a) for a in clusters["assessors"]]))
    columns.append(("consensus, top 3", "left", list(clusters["top"])))
    print()
    print_columns(
        columns,
        title=f"clusters (posterior mean, {opts.ci_prob:.0%} interval; assessors: those whose "
        "most probable cluster it is)",
        max_width={9: 60},
    )
    return clusters


def _consensus_table(opts: Options, fit) -> pd.DataFrame:
    """Each cluster's consensus ranking, side by side, printed."""
    k = fit.n_clusters
    consensus = pd.DataFrame(
        {f"cluster {c + 1}": fit.info["consensus"][c] for c in range(k)},
        index=pd.Index(range(1, len(fit.systems) + 1), name="rank"),
    ).reset_index()
    print()
    print_table(
        [("rank", "right")] + [(f"cluster {c + 1}", "left") for c in range(k)],
        [[str(r), *row] for r, *row in consensus.itertuples(index=False)],
        title=f"each cluster's consensus (the ranking closest in expected {opts.distance} "
        "distance to its draws)",
        max_width={c + 1: 30 for c in range(k)},
    )
    return consensus


def _sampler_options(opts: Options) -> dict:
    """The Metropolis–Hastings options of the mixture's fit."""
    return {
        "max_draws": opts.max_draws,
        "on_extend": extension_notice(opts),
        "thin": opts.thin,
        "leap": opts.leap,
        "rho_proposal": opts.rho_proposal,
    }
