"""``rankstats fit --model mallows``: the consensus positions, θ and pairwise probabilities of a
Mallows fit (Gibbs sampler with automatic extension, or the Kemeny MAP), printed and written by
the outputs of :mod:`rankstats.cli.fit`."""

from __future__ import annotations

import pandas as pd

from rankstats.cli._console import print_columns
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
from rankstats.cli._mallows_tables import extended_text, extension_notice, print_extras
from rankstats.cli.options.fit import Options
from rankstats.cli.usage import UsageError
from rankstats.core.rankings import Rankings


def check_sampler_options(opts: Options, n_systems: int) -> None:
    """The Metropolis–Hastings options of a Mallows fit (``opts.model == "mallows"``) against
    the sampler that will run and the number of systems, before any fitting (also before the
    other models' fits of ``--compare``, whatever ``opts.model`` is then)."""
    if opts.leap >= n_systems:
        raise UsageError(f"--leap {opts.leap} must be below the number of systems ({n_systems})")
    if metropolis(opts, "mallows"):
        return
    for flag, given in (
        ("--thin", opts.thin is not None),
        ("--rho-proposal", opts.rho_proposal != "leap_and_shift"),
        ("--leap", opts.leap != 1),
        ("--partition", opts.partition is not None),
    ):
        if given:
            raise UsageError(
                f"{flag} applies to the Metropolis–Hastings sampler (--distance other than "
                "kendall, or --kind top_k); the Gibbs sampler keeps every sweep"
            )


def _check(opts: Options, data: object, preferences: bool) -> None:
    """The options of a Mallows fit against the data, before any fitting."""
    if opts.starts is not None:
        raise UsageError("--starts is an option of the EM fit (--method mle)")
    if not isinstance(data, Rankings) and not preferences:
        raise UsageError("the Mallows model takes rankings, not paired comparisons")
    if preferences and opts.method == "map":
        raise UsageError("assessors' preferences are fitted by --method mcmc only")
    if opts.max_draws is not None and opts.max_draws < opts.mcmc.draws:
        raise UsageError(f"--max-draws {opts.max_draws} is below --draws {opts.mcmc.draws}")
    if opts.top_k is not None and opts.top_k > len(data.systems):
        raise UsageError(f"--top-k {opts.top_k} is more than the {len(data.systems)} systems")
    check_sampler_options(opts, len(data.systems))
    choose_partition(opts, len(data.systems))


def mallows(opts: Options, data: object, name: str, what: str) -> int:
    """``rankstats fit --model mallows``: consensus positions, θ and pairwise probabilities."""
    from rankstats import models
    from rankstats.core.preferences import AssessorPreferences
    from rankstats.reporting.diagnostics import convergence

    if opts.method == "mle":
        from rankstats.cli._fit_mallows_em import em_mixture

        return em_mixture(opts, data, name, what)
    preferences = isinstance(data, AssessorPreferences)
    _check(opts, data, preferences)
    if opts.clusters > 1:
        from rankstats.cli._fit_mixture import mixture

        return mixture(opts, data, name, what)
    hastings = metropolis(opts)
    model = models.Mallows(
        prior=opts.prior, distance=opts.distance, kind=opts.kind, error_model=opts.error_model
    )
    sampled = opts.method == "mcmc"
    print(f"rankstats fit: {name} ({what}), {described(model, opts)}", flush=True)
    if sampled and not preferences:
        print_estimate(opts, model._prepare(data))
    unit = "draws" if hastings else "sweeps"
    extra = (
        {
            "max_draws": opts.max_draws,
            "on_extend": extension_notice(opts, unit),
            "backend": opts.backend,
            "thin": opts.thin,
            **({"leap": opts.leap, "rho_proposal": opts.rho_proposal} if hastings else {}),
        }
        if sampled
        else {}
    )
    fit, notes = fit_model(model, data, opts, **extra)
    verdict = convergence(fit)
    advice = advice_text(opts, verdict, fit)
    warn_verdict(verdict, advice)
    summary = fit.summary(opts.ci_prob)
    if sampled:
        _print_sampled(opts, fit, summary, hastings, unit)
    else:
        print(
            f"  theta = {fit.theta:.6g} (maximum likelihood), Kemeny consensus optimal: "
            f"{fit.info['kemeny_optimal']}; log-likelihood {fit.log_likelihood:.4f}"
        )
    table = _consensus_table(opts, fit, summary, sampled)
    more = print_extras(opts, fit, "a new ranking puts the system in its", "a new assessor")
    return write_outputs(
        opts,
        fit,
        name,
        table,
        "consensus",
        fit.pairwise(opts.ci_prob),
        extra={"prior": opts.prior, "distance": opts.distance, "kind": opts.kind},
        verdict=verdict,
        notes=notes,
        advice=advice,
        more=more,
    )


def _print_sampled(opts: Options, fit, summary: pd.DataFrame, hastings: bool, unit: str) -> None:
    """How the sampler ran, the dispersion and the error probability of a sampled fit."""
    extended = extended_text(fit, unit)
    if hastings:
        print(
            f"  Metropolis–Hastings: {fit.info['chains']} chains × {opts.mcmc.draws} draws, one"
            f" every {fit.info['thin']} iterations, after {fit.info['tune']} discarded"
            f"{extended}, seed {opts.seed}; acceptance ρ {fit.info['acceptance_rho']:.2f}, "
            f"α {fit.info['acceptance_alpha']:.2f}"
        )
    else:
        print(
            f"  Gibbs sampler: {fit.info['chains']} chains × {opts.mcmc.draws} sweeps after "
            f"{opts.mcmc.tune} discarded{extended}, seed {opts.seed}, backend "
            f"{fit.info.get('backend', 'numpy')}"
        )
    parameter = "alpha" if hastings else "theta"
    t = summary.loc[parameter]
    print(
        f"  {parameter} = {t['mean']:.4g} (sd {t['sd']:.3g}; {opts.ci_prob:.0%} interval "
        f"[{t['low']:.4g}, {t['high']:.4g}])"
        + (f"; θ = α/n = {t['mean'] / len(fit.systems):.4g}" if hastings else "")
    )
    if "error_probability" in summary.index:
        e = summary.loc["error_probability"]
        print(
            f"  error probability of a stated preference = {e['mean']:.4g} (sd "
            f"{e['sd']:.3g}; {opts.ci_prob:.0%} interval [{e['low']:.4g}, {e['high']:.4g}]; "
            "Bernoulli error model)"
        )


def _consensus_table(opts: Options, fit, summary: pd.DataFrame, sampled: bool) -> pd.DataFrame:
    """The consensus positions (with their intervals, R-hat and ESS when sampled), printed."""
    rows = [f"position[{s}]" for s in fit.order]
    table = pd.DataFrame(
        {
            "rank": range(1, len(rows) + 1),
            "system": fit.order,
            "position": summary.loc[rows, "mean" if sampled else "estimate"].to_numpy(),
        }
    )
    shown = [("position", "position", ".2f")]
    if sampled:
        for key in ("sd", "low", "high", "r_hat", "ess_bulk"):
            table[key] = summary.loc[rows, key].to_numpy()
        shown += [("sd", "sd", ".2f"), ("low", "low", ".0f"), ("high", "high", ".0f")]
        shown += [("r_hat", "R-hat", ".3f"), ("ess_bulk", "ESS", ".0f")]
    print()
    print_columns(
        [("rank", "right", [str(r) for r in table["rank"]]), ("system", "left", table["system"])]
        + [(header, "right", formatted(table[c], spec)) for c, header, spec in shown],
        title=f"consensus (the ranking closest in expected {opts.distance} distance to the "
        "posterior draws)"
        + (
            f"; posterior position of each system in σ, {opts.ci_prob:.0%} interval"
            if sampled
            else ""
        ),
        max_width={1: 40},
    )
    if sampled:
        print("(R-hat / ESS '-': the position is the same in every draw.)")
    return table
