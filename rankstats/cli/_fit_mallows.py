"""``rankstats fit --model mallows``: the consensus positions, θ and pairwise probabilities of a
Mallows fit (Gibbs sampler with automatic extension, or the Kemeny MAP), printed and written by
the outputs of :mod:`rankstats.cli.fit`."""

from __future__ import annotations

import argparse

import pandas as pd

from rankstats.cli._console import print_table
from rankstats.cli._fit_common import (
    advice_text,
    choose_partition,
    described,
    fit_model,
    formatted,
    metropolis,
    print_estimate,
    warn_verdict,
    write_outputs,
)
from rankstats.cli._mallows_tables import extension_notice, print_predictive, print_top_k
from rankstats.cli.usage import UsageError
from rankstats.core.rankings import Rankings


def check_sampler_options(args: argparse.Namespace, n_systems: int) -> None:
    """The Metropolis–Hastings options of a Mallows fit (``args.model == "mallows"``) against
    the sampler that will run and the number of systems, before any fitting (also before the
    other models' fits of ``--compare``, whatever ``args.model`` is then)."""
    if args.leap >= n_systems:
        raise UsageError(f"--leap {args.leap} must be below the number of systems ({n_systems})")
    if metropolis(args, "mallows"):
        return
    for flag, given in (
        ("--thin", args.thin is not None),
        ("--rho-proposal", args.rho_proposal != "leap_and_shift"),
        ("--leap", args.leap != 1),
        ("--partition", args.partition is not None),
    ):
        if given:
            raise UsageError(
                f"{flag} applies to the Metropolis–Hastings sampler (--distance other than "
                "kendall, or --kind top_k); the Gibbs sampler keeps every sweep"
            )


def mallows(args: argparse.Namespace, data: object, name: str, what: str) -> int:
    """``rankstats fit --model mallows``: consensus positions, θ and pairwise probabilities."""
    from rankstats import models
    from rankstats.core.preferences import AssessorPreferences
    from rankstats.reporting.diagnostics import convergence

    preferences = isinstance(data, AssessorPreferences)
    if not isinstance(data, Rankings) and not preferences:
        raise UsageError("the Mallows model takes rankings, not paired comparisons")
    if preferences and args.method == "map":
        raise UsageError("assessors' preferences are fitted by --method mcmc only")
    if args.max_draws is not None and args.max_draws < args.draws:
        raise UsageError(f"--max-draws {args.max_draws} is below --draws {args.draws}")
    if args.top_k is not None and args.top_k > len(data.systems):
        raise UsageError(f"--top-k {args.top_k} is more than the {len(data.systems)} systems")
    check_sampler_options(args, len(data.systems))
    hastings = metropolis(args)
    choose_partition(args, len(data.systems))
    if args.clusters > 1:
        from rankstats.cli._fit_mixture import mixture

        return mixture(args, data, name, what)
    model = models.Mallows(
        prior=args.prior, distance=args.distance, kind=args.kind, error_model=args.error_model
    )
    sampled = args.method == "mcmc"
    print(f"rankstats fit: {name} ({what}), {described(model, args)}", flush=True)
    if sampled and not preferences:
        print_estimate(args, model._prepare(data))
    unit = "draws" if hastings else "sweeps"
    extending = extension_notice(args, unit)
    extra = (
        {
            "max_draws": args.max_draws,
            "on_extend": extending,
            "backend": args.backend,
            "thin": args.thin,
            **({"leap": args.leap, "rho_proposal": args.rho_proposal} if hastings else {}),
        }
        if sampled
        else {}
    )
    fit = fit_model(model, data, args, **extra)
    verdict = convergence(fit)
    advice = advice_text(args, verdict, fit)
    warn_verdict(verdict, advice)
    summary = fit.summary(args.prob)
    if sampled:
        extended = (
            f", extended {fit.info['extensions']} time(s) to {fit.info['draws']} {unit}"
            if fit.info.get("extensions")
            else ""
        )
        if hastings:
            print(
                f"  Metropolis–Hastings: {fit.info['chains']} chains × {args.draws} draws, one "
                f"every {fit.info['thin']} iterations, after {fit.info['tune']} discarded"
                f"{extended}, seed {args.seed}; acceptance ρ {fit.info['acceptance_rho']:.2f}, "
                f"α {fit.info['acceptance_alpha']:.2f}"
            )
        else:
            print(
                f"  Gibbs sampler: {fit.info['chains']} chains × {args.draws} sweeps after "
                f"{args.tune} discarded{extended}, seed {args.seed}, backend "
                f"{fit.info.get('backend', 'numpy')}"
            )
        parameter = "alpha" if hastings else "theta"
        t = summary.loc[parameter]
        print(
            f"  {parameter} = {t['mean']:.4g} (sd {t['sd']:.3g}; {args.prob:.0%} interval "
            f"[{t['low']:.4g}, {t['high']:.4g}])"
            + (f"; θ = α/n = {t['mean'] / len(fit.systems):.4g}" if hastings else "")
        )
        if "error_probability" in summary.index:
            e = summary.loc["error_probability"]
            print(
                f"  error probability of a stated preference = {e['mean']:.4g} (sd "
                f"{e['sd']:.3g}; {args.prob:.0%} interval [{e['low']:.4g}, {e['high']:.4g}]; "
                "Bernoulli error model)"
            )
    else:
        print(
            f"  theta = {fit.theta:.6g} (maximum likelihood), Kemeny consensus optimal: "
            f"{fit.info['kemeny_optimal']}; log-likelihood {fit.log_likelihood:.4f}"
        )
    rows = [f"position[{s}]" for s in fit.order]
    centre = "mean" if sampled else "estimate"
    table = pd.DataFrame(
        {
            "rank": range(1, len(rows) + 1),
            "system": fit.order,
            "position": summary.loc[rows, centre].to_numpy(),
        }
    )
    columns = [("rank", "right"), ("system", "left"), ("position", "right")]
    cells = [
        [str(r) for r in table["rank"]],
        list(table["system"]),
        formatted(table["position"], ".2f"),
    ]
    if sampled:
        for key in ("sd", "low", "high", "r_hat", "ess_bulk"):
            table[key] = summary.loc[rows, key].to_numpy()
        columns += [
            ("sd", "right"),
            ("low", "right"),
            ("high", "right"),
            ("R-hat", "right"),
            ("ESS", "right"),
        ]
        cells += [
            formatted(table["sd"], ".2f"),
            formatted(table["low"], ".0f"),
            formatted(table["high"], ".0f"),
            formatted(table["r_hat"], ".3f"),
            formatted(table["ess_bulk"], ".0f"),
        ]
    print()
    print_table(
        columns,
        list(zip(*cells, strict=True)),
        title=f"consensus (the ranking closest in expected {args.distance} distance to the "
        "posterior draws)"
        + (
            f"; posterior position of each system in σ, {args.prob:.0%} interval" if sampled else ""
        ),
        max_width={1: 40},
    )
    if sampled:
        print("(R-hat / ESS '-': the position is the same in every draw.)")
    more = {}
    if args.top_k is not None:
        more["top_k"] = fit.top_k(args.top_k, args.prob)
        print_top_k(more["top_k"], args, "a new ranking puts the system in its")
    if args.predictive is not None:
        more["predictive"] = fit.predictive_distribution(top=args.predictive, seed=args.seed)
        print_predictive(more["predictive"], args, "a new assessor")
    return write_outputs(
        args,
        fit,
        name,
        table,
        "consensus",
        fit.pairwise(args.prob),
        extra={"prior": args.prior, "distance": args.distance, "kind": args.kind},
        verdict=verdict,
        advice=advice,
        more=more,
    )
