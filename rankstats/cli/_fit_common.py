"""What every path of ``rankstats fit`` shares (one model, ``--compare``, Mallows): the input
(``FILE``, ``--rankings``, ``--paired``), the time estimate printed before a long fit, the fit
itself with the data warnings it keeps for the JSON, the convergence verdict and its advice, number
columns, and the output directory of one fitted model."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd

from rankstats._util.atomic import output_dir
from rankstats._util.text import write_csv
from rankstats.cli._common import (
    file_done,
    file_format,
    level_of,
    load_input,
    load_rankings_file,
    write_json,
    written,
)
from rankstats.cli.usage import UsageError, spoken
from rankstats.core.rankings import Rankings
from rankstats.datasets import load_paired, load_rankings


def fit_input(args: argparse.Namespace) -> tuple[object, str, str]:
    given = sum(
        bool(x) for x in (args.file, args.dataset, args.rankings, args.paired, args.preferences)
    )
    if given != 1:
        raise UsageError("give exactly one of FILE, --dataset, --rankings, --paired, --preferences")
    chosen = file_format(args)
    if getattr(args, "error_model", None) and not (args.preferences or chosen == "preferences"):
        raise UsageError(
            "--error-model models assessors' stated preferences (--format preferences or "
            "--preferences NAME), not rankings"
        )
    if args.preferences or chosen == "preferences":
        if args.compare or args.model != "mallows":
            raise UsageError(
                "assessors' preferences are fitted by --model mallows only"
                + (" (nothing to compare)" if args.compare else "")
            )
        if args.preferences:
            from rankstats.datasets import load_preferences

            return load_preferences(args.preferences), args.preferences, "assessors' preferences"
    if args.rankings:
        return load_rankings(args.rankings), args.rankings, "rankings"
    if args.paired:
        if args.model != "bt":
            raise UsageError("--paired data need --model bt")
        return load_paired(args.paired), args.paired, "paired comparisons"
    if chosen != "scores":
        if chosen == "pairwise" and (args.compare or args.model != "bt"):
            raise UsageError(
                "--format pairwise data are paired comparisons, fitted by --model bt only"
                + (" (nothing to compare)" if args.compare else "")
            )
        data, what = load_rankings_file(args, chosen)
        return data, Path(args.file).name.split(".")[0], what
    scores = load_input(args)
    level = level_of(args, scores)
    name = args.dataset or Path(args.file).stem
    return Rankings.from_scores(scores, by=level), name, f"{level}-level rankings"


@contextlib.contextmanager
def noted(notes: list[str]) -> Iterator[None]:
    """Every :class:`~rankstats.errors.DataWarning` of the block is kept in ``notes`` (for the
    JSON) as the command line prints it (:func:`~rankstats.cli.usage.spoken`: flags) and shown
    when the block ends, before its error if any; errors pass to the command's handler."""
    from rankstats.errors import DataWarning

    caught: list[warnings.WarningMessage] = []
    try:
        with warnings.catch_warnings(record=True) as recorded:
            warnings.simplefilter("always", DataWarning)
            try:
                yield
            finally:
                caught = list(recorded)
    finally:
        for w in caught:
            if issubclass(w.category, DataWarning):
                notes.append(spoken(w.message))
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)


def fitting(fit_call, args: argparse.Namespace):
    """Run ``fit_call()`` with the library's ConvergenceWarning (worded in Python arguments)
    silenced: the command words the problems in its own options (:func:`warn_verdict`)."""
    from rankstats.models import ConvergenceWarning

    with noted(args.__dict__.setdefault("data_notes", [])), warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=ConvergenceWarning)
        return fit_call()


def advice_text(args: argparse.Namespace, verdict, fit) -> str:
    """What to rerun with, in the command's options."""
    draws = fit.info.get("draws", args.draws) if args.model == "mallows" else args.draws
    suggest = verdict.suggested_draws(draws)
    if args.model == "mallows":
        if fit.info.get("cap_reached"):
            return (
                f"the chains reached the cap of --max-draws {fit.info['max_draws']} sweeps: rerun "
                f"with --max-draws {max(suggest, 2 * fit.info['max_draws'])} (or longer --draws, "
                "--tune)"
            )
        return f"rerun with --draws {suggest} (longer chains), a longer --tune or more --chains"
    if verdict.divergences:
        return (
            "divergent transitions: a stronger prior (smaller --prior-scale) helps when systems "
            "never win or never lose; or --method map"
        )
    return f"rerun with --draws {suggest} --tune {max(args.tune, 1000)} or more --chains"


def warn_verdict(verdict, advice: str) -> None:
    if verdict.sampled and verdict.problems:
        warnings.warn(
            "MCMC did not converge reliably: "
            + "; ".join(verdict.problems)
            + f". Do not report these numbers as they are: {advice} (summary at the end).",
            UserWarning,
            stacklevel=2,
        )


def print_convergence(verdict, advice: str, fit, args: argparse.Namespace) -> dict:
    """Print the convergence summary (the last lines of the output); return it for the JSON."""
    record = {
        **dataclasses.asdict(verdict),
        "converged": verdict.converged,
        "rule": "R-hat ≤ 1.01, bulk ESS ≥ 400, no divergent transitions",
    }
    if args.model == "mallows" and args.method == "mcmc":
        record.update(
            {k: fit.info.get(k) for k in ("draws", "max_draws", "extensions", "cap_reached")}
        )
    lines = ["", "convergence summary"]
    if not verdict.sampled:
        lines.append(
            f"  {args.method}: an optimum, no MCMC diagnostics"
            + (f"; {'; '.join(verdict.problems)}" if verdict.problems else "")
        )
    else:
        r_hat = "-" if verdict.max_r_hat is None else f"{verdict.max_r_hat:.3f}"
        ess = "-" if verdict.min_ess_bulk is None else f"{verdict.min_ess_bulk:.0f}"
        lines.append(
            f"  max R-hat {r_hat} (≤ 1.01), min bulk ESS {ess} (≥ 400), "
            f"divergences {verdict.divergences}"
        )
        if args.model == "mallows" and fit.info.get("extensions"):
            lines.append(
                f"  chains extended {fit.info['extensions']} time(s) in blocks of --draws "
                f"{args.draws} sweeps to {fit.info['draws']} sweeps per chain"
                + (
                    f"; the cap --max-draws {fit.info['max_draws']} was reached"
                    if fit.info.get("cap_reached")
                    else " (the cap --max-draws was not reached)"
                )
            )
        if verdict.converged:
            lines.append("  verdict: converged")
        else:
            lines.append(f"  verdict: NOT converged ({'; '.join(verdict.problems)})")
            lines.append(f"  {advice}")
    record["verdict"] = "converged" if verdict.converged else "not converged"
    record["advice"] = None if verdict.converged else advice
    if verdict.sampled or verdict.problems:  # an optimum without problems: nothing to say
        print("\n".join(lines))
    return record


def print_estimate(args: argparse.Namespace, data: object) -> None:
    """One line, before the fit, when it should take more than a few seconds."""
    from rankstats.models.timing import fit_estimate

    line = fit_estimate(
        args.model,
        data,
        args.method,
        args.draws,
        args.tune,
        args.chains,
        getattr(args, "max_draws", None),
        getattr(args, "kind", None),
        getattr(args, "backend", "auto"),
        getattr(args, "distance", "kendall"),
        getattr(args, "thin", None),
    )
    if line:
        print(f"  {line}", flush=True)


def formatted(values, spec: str) -> list[str]:
    """One number format for a whole column; NaN as ``-``."""
    return ["-" if v is None or not np.isfinite(v) else format(float(v), spec) for v in values]


def metropolis(args: argparse.Namespace, model: str | None = None) -> bool:
    """Whether ``--model mallows`` runs Metropolis–Hastings (any distance but Kendall, or top-k
    lists), not the exact Gibbs sampler (:meth:`rankstats.models.Mallows.fit`'s ``auto``);
    ``model``: the model asked about (default ``args.model``, the one being fitted)."""
    preferences = getattr(args, "preferences", None) or getattr(args, "format", "") == "preferences"
    return (model or args.model) == "mallows" and (
        args.distance != "kendall"
        or args.kind == "top_k"
        or getattr(args, "clusters", 1) > 1
        or bool(preferences)
    )


def tune_for(args: argparse.Namespace, given: int | None) -> int:
    """``--tune`` as given, else the default of the sampler that runs: 5,000 iterations for
    Metropolis–Hastings, 1,000 sweeps or steps for the Gibbs sampler and NUTS."""
    if given is not None:
        return given
    from rankstats.cli.options.fit import METROPOLIS_TUNE

    return METROPOLIS_TUNE if metropolis(args) else 1000


def fit_model(model: object, data: object, args: argparse.Namespace, **extra: object) -> object:
    """``model.fit`` with the options every model shares (``extra``: the model's own), under
    :func:`fitting` (interruption and sampler errors in CLI terms)."""
    return fitting(
        lambda: model.fit(
            data,
            method=args.method,
            draws=args.draws,
            tune=args.tune,
            chains=args.chains,
            seed=args.seed,
            progressbar=not args.no_progress,
            **extra,
        ),
        args,
    )


def described(model: object, args: argparse.Namespace) -> str:
    """The model and its settings in the command's flags."""
    from rankstats._util.method_names import model_name

    key = getattr(model, "name", "mallows")
    if key == "mallows":
        label = model_name(key) if args.distance == "kendall" else f"Mallows ({args.distance})"
        clusters = getattr(args, "clusters", 1)
        mixture = f", --clusters {clusters}" if clusters > 1 else ""
        if getattr(args, "error_model", None):
            mixture += f", --error-model {args.error_model}"
        if getattr(args, "rho_proposal", "leap_and_shift") != "leap_and_shift":
            mixture += f", --rho-proposal {args.rho_proposal}"
        if getattr(args, "leap", 1) != 1:
            mixture += f", --leap {args.leap}"
        if clusters > 1:
            label = f"Mallows ({args.distance}) mixture of {clusters}"
        return (
            f"{label} (--distance {args.distance}, --kind {args.kind}, --prior "
            f"{args.prior}{mixture}), --method {args.method}"
        )
    structure = ""
    covariates = getattr(model, "covariates", None)
    if covariates is not None:
        structure += f", --covariates {', '.join(map(str, covariates.columns))}"
    if getattr(model, "random_effect", False):
        structure += ", --random-effect"
    if getattr(args, "bias_reduction", False):
        structure += ", --bias-reduction"
    return (
        f"{model_name(key)} (--prior-scale {args.prior_scale:g}, --kind {args.kind}"
        f"{structure}), --method {args.method}"
    )


def write_outputs(
    args: argparse.Namespace,
    fit: object,
    name: str,
    table: pd.DataFrame,
    table_name: str,
    pairs: pd.DataFrame,
    forest: bool = False,
    extra: dict | None = None,
    verdict=None,
    advice: str = "",
    more: dict[str, pd.DataFrame] | None = None,
) -> int:
    """The significant-pair count, then ``<model>_<table_name>.csv``, ``<model>_pairwise.csv``,
    ``<model>_<name>.csv`` for each table of ``more``, the forest plot, the stored fit
    (``--save``) and ``<model>_fit.json``; last, the convergence summary (also in the JSON)."""
    import io
    from contextlib import redirect_stdout

    from rankstats import models

    n = len(fit.order)
    n_sig = int(pairs["significant"].sum() // 2)
    print(f"\n{n_sig} of {n * (n - 1) // 2} pairs have a {args.prob:.0%} interval excluding ½.")
    from rankstats.models.information import caveat

    text = caveat(fit)
    if text:  # the library's sentence, as it is
        print(f"warning: {text} (see the warning above).")
    buffer = io.StringIO()
    with redirect_stdout(buffer):
        record = print_convergence(verdict, advice, fit, args)
    out = Path(args.out)
    with output_dir(out) as tmp:
        files = [tmp / f"{args.model}_{table_name}.csv", tmp / f"{args.model}_pairwise.csv"]
        write_csv(table, files[0])
        file_done()
        write_csv(pairs, files[1])
        file_done()
        for more_name, more_table in (more or {}).items():
            files.append(tmp / f"{args.model}_{more_name}.csv")
            write_csv(more_table, files[-1])
            file_done()
        if forest:
            from rankstats.cli._top import figures_key_file
            from rankstats.models.plots import forest_plot
            from rankstats.plotting.saving import save_figure

            files += save_figure(forest_plot(fit, args.prob), tmp / f"{args.model}_forest")
            files += figures_key_file({f"{args.model}_forest": fit.order}, tmp)
            file_done()
        info = {
            "data": name,
            "model": args.model,
            "method": args.method,
            **(extra or {}),
            "info": fit.info,
            "parameters": fit.parameters,
            "log_likelihood": fit.log_likelihood,
            "convergence": record,
            "warnings": list(getattr(args, "data_notes", [])),
        }
        files.append(write_json(tmp / f"{args.model}_fit.json", info))
    print(written(tmp, out, files))
    if args.save:
        print(f"wrote {models.save(fit, name, args.save, keep=args.keep)}")
    sys.stdout.write(buffer.getvalue())
    sys.stdout.flush()
    return 0


def quasi_summary(fit: object) -> tuple[np.ndarray, dict]:
    """The quasi-standard errors of a PL / BT fit in :attr:`order` (NaN when the covariance
    leaves a difference without variance, said in the note) and the record for the JSON:
    quasi-variances and the worst relative errors (Firth & de Menezes 2004)."""
    try:
        qv = fit.quasi_variances()
    except ValueError as err:
        note = f"none ({err})"
        return np.full(len(fit.order), np.nan), {"note": note}
    record = {
        "note": "comparison intervals log-worth ± 1.96 quasi-se (no overlap ≈ a significant "
        f"difference at 5 %); {qv.accuracy()}",
        "quasi_var": dict(zip(qv.table["system"], qv.table["quasi_var"].tolist(), strict=True)),
        "worst_pair_relative_errors": list(qv.worst_pair),
        "worst_contrast_relative_errors": list(qv.worst_contrast),
    }
    return qv.quasi_se.loc[list(fit.order)].to_numpy(), record


def choose_partition(args: argparse.Namespace, n: int) -> None:
    """``--partition FILE``: read it (a bad file, or one of another distance or number of
    items, is a usage error naming it) and use it for this process's Mallows fits
    (:func:`rankstats.models.use_partition_function`)."""
    if getattr(args, "partition", None) is None:
        return
    from rankstats import models

    try:
        pf = models.read_partition_function(args.partition, distance=args.distance, n=n)
    except (OSError, ValueError) as err:
        raise UsageError(f"--partition: {err}") from None
    models.use_partition_function(pf)
