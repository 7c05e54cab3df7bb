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

import pandas as pd

from rankstats._util.atomic import check_save_dir
from rankstats.cli._console import print_table
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
from rankstats.cli.usage import UsageError, check_out


def check(args: argparse.Namespace) -> None:
    """The output directory and ``--save`` before fitting (a fit can take minutes)."""
    check_out(args)
    if args.save:
        check_save_dir(args.save)


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


def _models(args: argparse.Namespace) -> list[str]:
    """The ``--model`` list, checked against ``--compare``; one model leaves ``args.model`` the
    string it always was."""
    chosen = list(dict.fromkeys(args.model))
    if args.compare:
        if len(chosen) < 2:
            raise UsageError("--compare needs at least two models, e.g. --model pl bt mallows")
        return chosen
    if len(chosen) > 1:
        raise UsageError(
            f"--model {' '.join(chosen)}: several models need --compare (one model per fit "
            "otherwise)"
        )
    if args.ic != "loo":
        raise UsageError("--ic is a --compare option")
    if args.kfold is not None:
        raise UsageError("--kfold is a --compare option (e.g. --model pl bt --compare --kfold 10)")
    args.model = chosen[0]
    return chosen


def run(args: argparse.Namespace) -> int:
    """``rankstats fit``; the library's errors and warnings pass to the command's handler, which
    prints those whose advice names options with the flags (:mod:`rankstats._util.advice`)."""
    return _run(args)


def _run(args: argparse.Namespace) -> int:
    from rankstats import models

    chosen = _models(args)
    covariates = _covariates(args, chosen)
    if args.bias_reduction and (args.compare or args.model == "mallows"):
        raise UsageError(
            "--bias-reduction fits one pl or bt model (--model pl or bt, --method mle)"
        )
    if args.compare:
        return compare(args, chosen)
    if args.model != "mallows":
        for flag, given in (
            ("--distance", args.distance != "kendall"),
            ("--thin", args.thin),
            ("--rho-proposal", args.rho_proposal != "leap_and_shift"),
            ("--leap", args.leap != 1),
            ("--partition", args.partition),
            ("--top-k", args.top_k),
            ("--predictive", args.predictive),
            ("--clusters", args.clusters > 1),
            ("--error-model", args.error_model),
        ):
            if given:
                raise UsageError(f"{flag} is a Mallows option (--model mallows)")
    args.tune = tune_for(args, args.tune)
    data, name, what = fit_input(args)
    if args.model == "mallows":
        args.method = args.method or "mcmc"
        if args.method not in ("mcmc", "map"):
            raise UsageError("--model mallows takes --method mcmc or map")
        return mallows(args, data, name, what)
    args.method = args.method or "nuts"
    if args.method == "mcmc":
        raise UsageError("--method mcmc is the Mallows sampler; pl/bt use nuts, mle, map or pql")
    if args.max_draws is not None:
        raise UsageError("--max-draws is a Mallows option (--model mallows)")
    if args.backend != "auto":
        raise UsageError("--backend is a Mallows option (--model mallows)")
    cls = models.PlackettLuce if args.model == "pl" else models.BradleyTerry
    model = cls(
        prior_scale=args.prior_scale,
        kind=args.kind,
        covariates=covariates,
        random_effect=args.random_effect,
    )
    print(f"rankstats fit: {name} ({what}), {described(model, args)}", flush=True)
    print_estimate(args, data)
    fit = fit_model(model, data, args, sampler=args.sampler, bias_reduction=args.bias_reduction)
    from rankstats.reporting.diagnostics import convergence

    verdict = convergence(fit)
    advice = advice_text(args, verdict, fit)
    warn_verdict(verdict, advice)
    if args.method == "nuts":
        print(
            f"  NUTS ({fit.info.get('sampler', args.sampler)}): {args.chains} chains × "
            f"{args.draws} draws after "
            f"{args.tune} tuning steps, seed {args.seed}"
        )
    elif fit.log_likelihood is not None:
        label = "log-likelihood" if args.method == "mle" else "log-posterior (up to a constant)"
        if args.method == "mle" and model.random_effect:
            label = "log-likelihood (Laplace approximation, σ estimated)"
        elif args.method == "pql":
            label = "log-likelihood (Laplace approximation at the PQL estimates)"
        if args.bias_reduction:
            label = "log-likelihood at the bias-reduced estimate"
        print(f"  {label}: {fit.log_likelihood:.4f}")
    for key, value in fit.parameters.items():
        if not key.startswith("log_") and not key.endswith("_se"):
            print(f"  {key} = {value:.6g} (± {fit.parameters.get(key + '_se', float('nan')):.3g})")

    summary = fit.summary(args.prob)
    rows = [f"{fit.variable}[{s}]" for s in fit.order]
    quasi_se, quasi = quasi_summary(fit)
    centre = "mean" if args.method == "nuts" else "estimate"
    spread = "sd" if args.method == "nuts" else "se"
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
    columns = [
        ("rank", "right"),
        ("system", "left"),
        ("log-worth", "right"),
        (spread, "right"),
        ("quasi-se", "right"),
        ("low", "right"),
        ("high", "right"),
    ]
    cells = [
        [str(r) for r in table["rank"]],
        list(table["system"]),
        formatted(table["log_worth"], ".4f"),
        formatted(table[spread], ".3f"),
        formatted(table["quasi_se"], ".3f"),
        formatted(table["low"], ".3f"),
        formatted(table["high"], ".3f"),
    ]
    if args.method == "nuts":
        table["r_hat"] = summary.loc[rows, "r_hat"].to_numpy()
        table["ess_bulk"] = summary.loc[rows, "ess_bulk"].to_numpy()
        columns += [("R-hat", "right"), ("ESS", "right")]
        cells += [formatted(table["r_hat"], ".3f"), formatted(table["ess_bulk"], ".0f")]
    interval = "posterior" if args.method == "nuts" else "Wald"
    print()
    print_table(
        columns,
        list(zip(*cells, strict=True)),
        title=f"log-worth (centred), {args.prob:.0%} {interval} interval [low, high]",
        max_width={1: 40},
    )
    print(f"  quasi-se: {quasi['note']}")
    pairs = fit.pairwise(args.prob)
    how = "posterior mean" if args.method == "nuts" else "at the estimate"
    _print_matrix(pairs, fit.order, how)
    more = {}
    if model.structured:
        more["coefficients"] = fit.coefficients(args.prob).reset_index()
    return write_outputs(
        args,
        fit,
        name,
        table,
        "worth",
        pairs,
        forest=not args.no_figures,
        verdict=verdict,
        advice=advice,
        more=more,
        extra={"quasi_variances": quasi},
    )


def _covariates(args: argparse.Namespace, chosen: list[str]) -> pd.DataFrame | None:
    """``--covariates`` / ``--random-effect``, checked against the other options, and the table
    read (before any fitting)."""
    if args.covariate_columns and not args.covariates:
        raise UsageError("--covariate-columns needs --covariates FILE")
    if not (args.covariates or args.random_effect):
        return None
    flag = "--covariates" if args.covariates else "--random-effect"
    if "mallows" in chosen:
        raise UsageError(f"{flag} is a pl/bt option (Mallows has no worths)")
    if args.compare:
        raise UsageError(
            f"{flag} with --compare: fit each model and compare them in Python with "
            "rs.models.compare_fits (see docs/user-guide/models.md, 'System covariates')"
        )
    if args.method == "map":
        raise UsageError(f"{flag} is fitted by --method mle or nuts, not map")
    if not args.covariates:
        return None
    from rankstats.io.covariate_files import read_system_covariates

    return read_system_covariates(args.covariates, args.covariate_columns)
