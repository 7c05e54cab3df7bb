"""``rankstats fit --model pl bt mallows --compare [--kfold K]``: fit every model, compare them.

By default each model is fitted by its sampler (NUTS for pl / bt, the Gibbs sampler for
mallows) and the fits are compared by PSIS-LOO or WAIC (``--ic``) from their pointwise
log-likelihood (:func:`rankstats.models.compare_fits`).  ``--kfold K`` compares them by K-fold
cross-validation instead (:func:`rankstats.models.kfold`: every model refitted ``K`` times on
the same seeded folds); with ``--method map`` (or ``mle``) the fits and refits are point fits
and the estimate is the plug-in held-out log-likelihood, said so in the output.
"""

from __future__ import annotations

import dataclasses
import sys
import warnings
from pathlib import Path

from rankstats._util.atomic import output_dir
from rankstats.cli._common import noted, write_tables, written
from rankstats.cli._fit_common import (
    choose_partition,
    described,
    fit_input,
    fit_model,
    print_estimate,
    tune_for,
)
from rankstats.cli._fit_mallows import check_sampler_options
from rankstats.cli.options.fit import Options
from rankstats.cli.usage import UsageError, spoken


def check_methods(opts: Options, chosen: list[str]) -> None:
    """``--method`` and ``--kfold`` with ``--compare``: a method only for K-fold (LOO / WAIC
    need posterior draws), and one every chosen model has."""
    if opts.kfold is not None and opts.ic != "loo":
        raise UsageError("--kfold replaces --ic: give one of them")
    if opts.method is None:
        return
    if opts.kfold is None:
        raise UsageError(
            f"--compare fits each model by its sampler (nuts for pl/bt, mcmc for mallows): drop "
            f"--method {opts.method} (MAP / MLE fits have no posterior draws for LOO / WAIC), "
            "or compare by K-fold cross-validation (--kfold K), which refits point fits too"
        )
    if opts.method == "pql":
        raise UsageError(
            "--method pql fits a system random effect (--random-effect), which --compare does "
            "not take"
        )
    if opts.method == "mle" and "mallows" in chosen:
        raise UsageError("--model mallows takes --method mcmc or map, not --method mle")
    if opts.method == "mcmc" and set(chosen) - {"mallows"}:
        raise UsageError("--method mcmc is the Mallows sampler; pl/bt use nuts, mle or map")
    if opts.method == "nuts" and "mallows" in chosen:
        raise UsageError("--method nuts is the pl/bt sampler; mallows uses mcmc or map")


def _method(opts: Options, model_name: str) -> str:
    if opts.method in ("map", "mle"):
        return opts.method
    return "mcmc" if model_name == "mallows" else "nuts"


def compare(opts: Options, chosen: list[str]) -> int:
    """One fit per model, then :func:`rankstats.models.compare_fits`; the table,
    ``model_comparison.csv`` (and with ``--kfold`` ``kfold_pointwise.csv``) and the caveats
    worded in the command's options."""
    from rankstats import models
    from rankstats.cli._console import print_frame
    from rankstats.models.model_comparison import LOOWarning
    from rankstats.reporting.diagnostics import convergence

    if opts.paired:
        raise UsageError(
            "--paired data are fitted by bt only: nothing to compare (--compare compares models "
            "of the same rankings)"
        )
    for flag, given in (("--top-k", opts.top_k), ("--predictive", opts.predictive)):
        if given is not None:
            raise UsageError(f"{flag} applies to one Mallows fit (--model mallows), not --compare")
    if opts.clusters > 1:
        raise UsageError(
            "--clusters applies to one Mallows fit (--model mallows), not --compare; compare "
            "numbers of clusters with rankstats.models.choose_clusters"
        )
    if "mallows" not in chosen:
        for flag, given in (
            ("--max-draws", opts.max_draws is not None),
            ("--distance", opts.distance != "kendall"),
            ("--thin", opts.thin is not None),
            ("--rho-proposal", opts.rho_proposal != "leap_and_shift"),
            ("--leap", opts.leap != 1),
            ("--partition", opts.partition is not None),
        ):
            if given:
                raise UsageError(f"{flag} is a Mallows option (--model mallows)")
    check_methods(opts, chosen)
    kfold = opts.kfold
    data, name, what = fit_input(opts)
    if "mallows" in chosen and _method(opts, "mallows") == "mcmc":
        check_sampler_options(opts, len(data.systems))  # before any model is fitted
    choose_partition(opts, len(data.systems))
    if kfold is not None:
        from rankstats.models.pointwise_likelihood import informative

        n_units = int(informative(data.ranks, opts.kind).sum())  # the rankings kfold splits
        if kfold > n_units:
            raise UsageError(
                f"--kfold {kfold} is more folds than the {n_units} rankings of {name}: give "
                f"--kfold {n_units} or fewer (--kfold {n_units}: leave-one-out by refitting)"
            )
    how = f"--kfold {kfold}" if kfold is not None else f"--ic {opts.ic}"
    print(
        f"rankstats fit --compare: {name} ({what}), models {', '.join(chosen)}, {how}",
        flush=True,
    )
    fits: dict[str, object] = {}
    problems: dict[str, str] = {}
    given = opts
    for model_name in chosen:
        # This model's fit: its sampler's method and tuning unless given.
        opts = dataclasses.replace(given, model=model_name, method=_method(given, model_name))
        tune = tune_for(opts, given.mcmc.tune)
        opts = dataclasses.replace(opts, mcmc=dataclasses.replace(opts.mcmc, tune=tune))
        if model_name == "mallows":
            model = models.Mallows(prior=opts.prior, distance=opts.distance, kind=opts.kind)
            extra = (
                {
                    "max_draws": opts.max_draws,
                    "backend": opts.backend,
                    "thin": opts.thin,
                    "leap": opts.leap,
                    "rho_proposal": opts.rho_proposal,
                }
                if opts.method == "mcmc"
                else {}
            )
            if opts.method == "mcmc":
                print_estimate(opts, model._prepare(data))
        else:
            cls = models.PlackettLuce if model_name == "pl" else models.BradleyTerry
            model = cls(prior_scale=opts.prior_scale, kind=opts.kind)
            extra = {"sampler": opts.sampler}
            print_estimate(opts, data)
        print(f"  {model_name}: {described(model, opts)}", flush=True)
        fit, _ = fit_model(model, data, opts, **extra)  # its data warnings printed
        verdict = convergence(fit)
        if verdict.problems:
            problems[model_name] = "; ".join(verdict.problems)
        fits[model_name] = fit
        if opts.save:
            print(f"  wrote {models.save(fit, name, opts.save, keep=opts.keep)}")
    if kfold is not None:
        refits = " (point fits: fast)" if opts.method in ("map", "mle") else " (slow)"
        print(f"  K-fold: refitting every model {kfold} times{refits}", flush=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", LOOWarning)
        with noted([]):  # the data warnings printed
            if kfold is None:
                result = models.compare_fits(fits, ic=opts.ic)
            else:
                result = models.compare_fits(fits, ic="kfold", data=data, k=kfold, seed=opts.seed)
    notes = [spoken(w.message) for w in caught if issubclass(w.category, LOOWarning)]
    if kfold is not None:  # what the estimates are (notes that are no warnings)
        notes = [n for n in result.notes if n.startswith("K-fold")] + notes
    _print_table(result, opts, kfold, print_frame)
    for note in notes:
        if note.startswith("K-fold"):
            print(f"  {note}")
            continue
        print(f"rankstats fit: warning: {note}", file=sys.stderr)
    for model_name, text in problems.items():
        print(
            f"rankstats fit: warning: {model_name} did not converge ({text}); its elpd is not "
            "reliable: rerun with more --draws / --tune or --chains",
            file=sys.stderr,
        )
    return _write(opts, result, problems)


def _print_table(result, opts: Options, kfold: int | None, print_frame) -> None:
    table = result.table.reset_index()
    ic = "kfold" if kfold is not None else opts.ic
    label = {"loo": "PSIS-LOO", "waic": "WAIC", "kfold": f"{kfold}-fold cross-validation"}[ic]
    columns = ["rank", "fit", "elpd", "se", "p", "elpd_diff", "dse", "weight"]
    if ic == "kfold":
        columns.remove("p")
    shown = table[columns].copy()
    shown["rank"] = shown["rank"] + 1
    headers = {"fit": "model", "p": f"p_{ic}", "elpd": f"elpd_{ic}"}
    if ic == "loo":
        shown["pareto_k_high"] = table["pareto_k_high"].astype("float")
        headers["pareto_k_high"] = "k > 0.7"
    print()
    print_frame(
        shown,
        title=f"{label}: expected log predictive density of a new {result.unit} "
        f"({result.n_units} {result.unit}s), best first",
        headers=headers,
        decimals={"elpd": 2, "se": 2, "p": 2, "elpd_diff": 2, "dse": 2, "weight": 3},
    )
    print(
        f"best: {result.best}; elpd_diff / dse is the difference to the best and its standard "
        "error (a difference of a few dse is clear)"
    )


def _write(opts: Options, result, problems: dict[str, str]) -> int:
    table = result.table.reset_index()
    table["pareto_k_high"] = table["pareto_k_high"].astype("float")
    out = Path(opts.output.out)
    record = table.assign(
        rank=table["rank"] + 1, ic=result.ic, unit=result.unit, n_units=result.n_units
    )
    if result.ic == "kfold":
        record["k"] = opts.kfold
        record["estimate"] = [result.kfold[m].estimate for m in record["fit"]]
    record["converged"] = [m not in problems for m in record["fit"]]
    with output_dir(out) as tmp:
        table = record.drop(columns="model").rename(columns={"fit": "model"})
        paths = write_tables(tmp, {"model_comparison.csv": table})
        if result.ic == "kfold":
            first = next(iter(result.kfold.values()))
            pointwise = result.pointwise.copy()
            pointwise.insert(0, "fold", first.folds.to_numpy() + 1)
            pointwise.index.name = "ranking"
            paths += write_tables(tmp, {"kfold_pointwise.csv": pointwise.reset_index()})
    print(written(tmp, out, paths))
    return 0
