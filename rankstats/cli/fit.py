"""``rankstats fit``: fit Plackett–Luce, Bradley–Terry or Mallows; print worths / consensus
positions and pairwise probabilities.

Before a fit that takes more than a few seconds, one line says roughly how long
(:mod:`rankstats.models.timing`). Convergence problems are worded in the command's options
(``--draws``, ``--tune``, ``--chains``, ``--max-draws``), and repeated in a short summary at the
end of the output (the verdict of :func:`rankstats.reporting.diagnostics.convergence`, also in the
JSON).
"""

from __future__ import annotations

import argparse
import dataclasses

import pandas as pd

from rankstats._util.atomic import check_save_dir
from rankstats.cli._console import print_columns, print_table
from rankstats.cli._fit_common import (
    advice_text,
    described,
    fit_input,
    fit_model,
    formatted,
    print_estimate,
    quasi_summary,
    tune_for,
    warn_verdict,
    write_outputs,
)
from rankstats.cli._fit_compare import compare
from rankstats.cli._fit_mallows import mallows
from rankstats.cli.options.fit import Options
from rankstats.cli.options.groups import from_namespace
from rankstats.cli.usage import UsageError, check_out


def check(opts: Options) -> None:
    """The output directory and ``--save`` before fitting (a fit can take minutes)."""
    check_out(opts.output)
    if opts.save:
        check_save_dir(opts.save)


def _print_matrix(pairs: pd.DataFrame, order: list[str], how: str) -> None:
    n = len(order)
    if n > 25:
        return
    matrix = pairs.pivot(index="system_a", columns="system_b", values="estimate")
    matrix = matrix.reindex(index=order, columns=order).to_numpy()
    columns = [("", "right")] + [(str(j + 1), "right") for j in range(n)] + [("system", "left")]
    rows = [
        [str(i + 1)]
        + ["\\" if i == j else format(matrix[i, j], ".2f") for j in range(n)]
        + [order[i]]
        for i in range(n)
    ]
    print()
    print_table(columns, rows, title=f"P(row ranked above column), {how}", max_width={n + 1: 40})


def build_options(namespace: argparse.Namespace) -> Options:
    """The options, the ``--model`` list checked against ``--compare``: ``model`` is the model
    fitted (the first of the list), ``method`` and ``mcmc.tune`` the defaults of its sampler
    when not given (with ``--compare``, set per model by
    :func:`~rankstats.cli._fit_compare.compare`)."""
    chosen = list(dict.fromkeys(namespace.model))
    opts = from_namespace(Options, namespace, model=chosen[0], model_list=chosen)
    _check_models(opts)
    if opts.compare:
        return opts
    method = opts.method or ("mcmc" if opts.model == "mallows" else "nuts")
    tune = tune_for(opts, opts.mcmc.tune)
    return dataclasses.replace(opts, method=method, mcmc=dataclasses.replace(opts.mcmc, tune=tune))


def _check_models(opts: Options) -> None:
    """The ``--model`` list against ``--compare``, and the options of one model's fit."""
    chosen = opts.model_list
    if opts.compare:
        if len(chosen) < 2:
            raise UsageError("--compare needs at least two models, e.g. --model pl bt mallows")
        return
    if len(chosen) > 1:
        raise UsageError(
            f"--model {' '.join(chosen)}: several models need --compare (one model per fit "
            "otherwise)"
        )
    if opts.ic != "loo":
        raise UsageError("--ic is a --compare option")
    if opts.kfold is not None:
        raise UsageError("--kfold is a --compare option (e.g. --model pl bt --compare --kfold 10)")


def run(opts: Options) -> int:
    """``rankstats fit``; the library's errors and warnings pass to the command's handler, which
    prints those whose advice names options with the flags (:mod:`rankstats._util.advice`)."""
    chosen = opts.model_list
    covariates = _covariates(opts, chosen)
    if opts.bias_reduction and (opts.compare or opts.model == "mallows"):
        raise UsageError(
            "--bias-reduction fits one pl or bt model (--model pl or bt, --method mle)"
        )
    if opts.compare:
        return compare(opts, chosen)
    _refuse_mallows_options(opts)
    data, name, what = fit_input(opts)
    if opts.model == "mallows":
        if opts.method not in ("mcmc", "map", "mle"):
            raise UsageError("--model mallows takes --method mcmc, map or mle")
        return mallows(opts, data, name, what)
    return _worths(opts, data, name, what, covariates)


def _refuse_mallows_options(opts: Options) -> None:
    """The Mallows options given to a pl/bt fit."""
    if opts.model == "mallows":
        return
    for flag, given in (
        ("--distance", opts.distance != "kendall"),
        ("--thin", opts.thin),
        ("--rho-proposal", opts.rho_proposal != "leap_and_shift"),
        ("--leap", opts.leap != 1),
        ("--partition", opts.partition),
        ("--top-k", opts.top_k),
        ("--predictive", opts.predictive),
        ("--clusters", opts.clusters > 1),
        ("--starts", opts.starts is not None),
        ("--error-model", opts.error_model),
    ):
        if given:
            raise UsageError(f"{flag} is a Mallows option (--model mallows)")


def _worths(opts: Options, data, name: str, what: str, covariates) -> int:
    """A Plackett–Luce or Bradley–Terry fit: its worths, pairs and outputs."""
    from rankstats import models
    from rankstats.reporting.diagnostics import convergence

    if opts.method == "mcmc":
        raise UsageError("--method mcmc is the Mallows sampler; pl/bt use nuts, mle, map or pql")
    for flag, given in (
        ("--max-draws", opts.max_draws is not None),
        ("--backend", opts.backend != "auto"),
    ):
        if given:
            raise UsageError(f"{flag} is a Mallows option (--model mallows)")
    cls = models.PlackettLuce if opts.model == "pl" else models.BradleyTerry
    model = cls(
        prior_scale=opts.prior_scale,
        kind=opts.kind,
        covariates=covariates,
        random_effect=opts.random_effect,
    )
    print(f"rankstats fit: {name} ({what}), {described(model, opts)}", flush=True)
    print_estimate(opts, data)
    fit, notes = fit_model(
        model, data, opts, sampler=opts.sampler, bias_reduction=opts.bias_reduction
    )
    verdict = convergence(fit)
    advice = advice_text(opts, verdict, fit)
    warn_verdict(verdict, advice)
    _print_fit_line(opts, fit, model)
    table, quasi = _worth_table(opts, fit)
    pairs = fit.pairwise(opts.ci_prob)
    how = "posterior mean" if opts.method == "nuts" else "at the estimate"
    _print_matrix(pairs, fit.order, how)
    more = {}
    if model.structured:
        more["coefficients"] = fit.coefficients(opts.ci_prob).reset_index()
    return write_outputs(
        opts,
        fit,
        name,
        table,
        "worth",
        pairs,
        forest=not opts.output.no_figures,
        verdict=verdict,
        notes=notes,
        advice=advice,
        more=more,
        extra={"quasi_variances": quasi},
    )


def _print_fit_line(opts: Options, fit, model) -> None:
    """How the fit ran (NUTS) or its log-likelihood, and its scalar parameters."""
    if opts.method == "nuts":
        print(
            f"  NUTS ({fit.info.get('sampler', opts.sampler)}): {opts.mcmc.chains} chains × "
            f"{opts.mcmc.draws} draws after "
            f"{opts.mcmc.tune} tuning steps, seed {opts.seed}"
        )
    elif fit.log_likelihood is not None:
        label = "log-likelihood" if opts.method == "mle" else "log-posterior (up to a constant)"
        if opts.method == "mle" and model.random_effect:
            label = "log-likelihood (Laplace approximation, σ estimated)"
        elif opts.method == "pql":
            label = "log-likelihood (Laplace approximation at the PQL estimates)"
        if opts.bias_reduction:
            label = "log-likelihood at the bias-reduced estimate"
        print(f"  {label}: {fit.log_likelihood:.4f}")
    for key, value in fit.parameters.items():
        if not key.startswith("log_") and not key.endswith("_se"):
            print(f"  {key} = {value:.6g} (± {fit.parameters.get(key + '_se', float('nan')):.3g})")


def _worth_table(opts: Options, fit) -> tuple[pd.DataFrame, dict]:
    """The log-worths with their intervals (and R-hat, ESS of a NUTS fit), printed; the table
    and the quasi-variances."""
    summary = fit.summary(opts.ci_prob)
    rows = [f"{fit.variable}[{s}]" for s in fit.order]
    quasi_se, quasi = quasi_summary(fit)
    nuts = opts.method == "nuts"
    centre, spread = ("mean", "sd") if nuts else ("estimate", "se")
    table = pd.DataFrame(
        {
            "rank": range(1, len(rows) + 1),
            "system": fit.order,
            "log_worth": summary.loc[rows, centre].to_numpy(),
            spread: summary.loc[rows, spread].to_numpy(),
            "quasi_se": quasi_se,
            "low": summary.loc[rows, "low"].to_numpy(),
            "high": summary.loc[rows, "high"].to_numpy(),
        }
    )
    if nuts:
        table["r_hat"] = summary.loc[rows, "r_hat"].to_numpy()
        table["ess_bulk"] = summary.loc[rows, "ess_bulk"].to_numpy()
    shown = [("log_worth", "log-worth", ".4f")] + [
        (c, c.replace("_", "-"), ".3f") for c in (spread, "quasi_se", "low", "high")
    ]
    shown += [("r_hat", "R-hat", ".3f"), ("ess_bulk", "ESS", ".0f")] if nuts else []
    print()
    print_columns(
        [("rank", "right", [str(r) for r in table["rank"]]), ("system", "left", table["system"])]
        + [(header, "right", formatted(table[c], spec)) for c, header, spec in shown],
        title=f"log-worth (centred), {opts.ci_prob:.0%} "
        f"{'posterior' if nuts else 'Wald'} interval [low, high]",
        max_width={1: 40},
    )
    print(f"  quasi-se: {quasi['note']}")
    return table, quasi


def _covariates(opts: Options, chosen: list[str]) -> pd.DataFrame | None:
    """``--system-covariates`` / ``--random-effect``, checked against the other options, and the
    table read (before any fitting)."""
    if opts.covariate_columns and not opts.system_covariates:
        raise UsageError("--covariate-columns needs --system-covariates FILE")
    if not (opts.system_covariates or opts.random_effect):
        return None
    flag = "--system-covariates" if opts.system_covariates else "--random-effect"
    if "mallows" in chosen:
        raise UsageError(f"{flag} is a pl/bt option (Mallows has no worths)")
    if opts.compare:
        raise UsageError(
            f"{flag} with --compare: fit each model and compare them in Python with "
            "rs.models.compare_fits (see docs/user-guide/models.md, 'System covariates')"
        )
    if opts.method == "map":
        raise UsageError(f"{flag} is fitted by --method mle or nuts, not map")
    if not opts.system_covariates:
        return None
    from rankstats.io.covariate_files import read_system_covariates

    return read_system_covariates(opts.system_covariates, opts.covariate_columns)
