"""``rankstats fit``: fit Plackett–Luce, Bradley–Terry or Mallows; print worths / consensus
positions and pairwise probabilities.

Before a fit that takes more than a few seconds, one line says roughly how long
(:mod:`rankstats.models._timing`). Convergence problems are worded in the command's options
(``--draws``, ``--tune``, ``--chains``, ``--max-draws``), and repeated in a short summary at the
end of the output (the verdict of :func:`rankstats.reporting.diagnostics.convergence`, also in the
JSON).
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from rankstats._util.atomic import check_save_dir, output_dir
from rankstats._util.text import write_csv
from rankstats.cli._common import (
    UsageError,
    add_input_arguments,
    add_output_argument,
    add_rankings_file_arguments,
    at_least,
    check_out,
    file_done,
    file_format,
    level_of,
    load_input,
    load_rankings_file,
    positive,
    probability,
    write_json,
    written,
)
from rankstats.cli._console import print_table
from rankstats.cli._fit_words import in_cli_words
from rankstats.core.rankings import Rankings
from rankstats.datasets import PAIRED, RANKINGS, load_paired, load_rankings

HELP = "fit a Plackett–Luce, Bradley–Terry or Mallows model (MLE, MAP, NUTS or Gibbs)"
EXAMPLE = (
    "rankstats fit --dataset glue --model pl --method map\n  "
    "rankstats fit --rankings nascar --model mallows\n  "
    "rankstats fit --rankings sushi --model pl bt mallows --compare"
)


def arguments(parser: argparse.ArgumentParser) -> None:
    add_input_arguments(parser, level=True)
    add_rankings_file_arguments(parser)
    parser.add_argument(
        "--rankings", choices=sorted(RANKINGS), help="a bundled classic ranking data set instead"
    )
    parser.add_argument(
        "--paired", choices=sorted(PAIRED), help="a bundled paired-comparison data set (bt only)"
    )
    parser.add_argument(
        "--model",
        choices=["pl", "bt", "mallows"],
        nargs="+",
        default=["pl"],
        help="default: pl; several (e.g. --model pl bt mallows) only with --compare",
    )
    parser.add_argument(
        "--compare",
        action="store_true",
        help="fit every --model by its sampler (nuts for pl/bt, mcmc for mallows) and compare "
        "them by their expected log predictive density of a new ranking (PSIS-LOO or WAIC, "
        "--ic); prints the table and writes model_comparison.csv",
    )
    parser.add_argument(
        "--ic",
        choices=["loo", "waic"],
        default="loo",
        help="with --compare: PSIS-LOO with its Pareto k diagnostic (default) or WAIC",
    )
    parser.add_argument(
        "--kfold",
        type=at_least(2),
        default=None,
        metavar="K",
        help="with --compare: K-fold cross-validation instead of PSIS-LOO / WAIC (every model "
        "refitted K times on the same seeded folds, --seed); with --method map or mle the "
        "refits are point fits (fast; a plug-in estimate), else by the samplers (K × slower)",
    )
    parser.add_argument(
        "--method",
        choices=["nuts", "mle", "map", "mcmc"],
        default=None,
        help="pl/bt: nuts (default), mle or map; mallows: mcmc (Gibbs, default) or map "
        "(Kemeny consensus + ML dispersion, complete rankings)",
    )
    parser.add_argument(
        "--prior",
        choices=["gamma", "bayesmallows"],
        default="gamma",
        help="mallows: θ ~ Gamma(1, 0.1) (default) or BayesMallows' α = nθ ~ Exp(0.001)",
    )
    parser.add_argument(
        "--kind",
        choices=["subset", "top_k"],
        default="subset",
        help="partial rankings are "
        "sub-rankings (default) or top-k lists (ranked systems beat all unranked ones)",
    )
    parser.add_argument(
        "--prior-scale",
        type=positive,
        default=1.0,
        help="pl/bt: σ of the ZeroSumNormal prior on the log-worths (default 1)",
    )
    parser.add_argument(
        "--draws",
        type=at_least(1),
        default=1000,
        help="draws (NUTS) or sweeps (Mallows Gibbs) kept per chain (default 1000)",
    )
    parser.add_argument(
        "--tune",
        type=at_least(0),
        default=1000,
        help="tuning steps (NUTS) or discarded sweeps (Mallows) per chain (default 1000)",
    )
    parser.add_argument(
        "--chains", type=at_least(1), default=4, help="independent chains (default 4)"
    )
    parser.add_argument(
        "--max-draws",
        type=at_least(1),
        default=None,
        help="mallows: while R-hat > 1.01 or bulk ESS < 400, the chains continue in blocks of "
        "--draws sweeps up to this many kept sweeps per chain (default 20 × --draws; "
        "= --draws: no extension)",
    )
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument(
        "--sampler",
        choices=["auto", "pymc", "nutpie"],
        default="auto",
        help="NUTS implementation: auto (default: nutpie when installed, else pymc), pymc, or "
        "nutpie (needs rankstats[fast])",
    )
    parser.add_argument(
        "--backend",
        choices=["auto", "numpy", "numba"],
        default="auto",
        help="mallows: where the Gibbs sweeps run, the same draws either way: numba (about 10× "
        "faster, needs rankstats[fast]), numpy, or auto (default: numba when installed)",
    )
    parser.add_argument(
        "--prob", type=probability, default=0.95, help="interval probability (default 0.95)"
    )
    add_output_argument(parser, "rankstats-out", "the tables, the forest plot and the JSON")
    parser.add_argument("--save", metavar="DIR", help="also store the fit as DIR/<data>_<model>.nc")
    parser.add_argument(
        "--keep", type=at_least(1), default=100, help="draws per chain kept by --save"
    )
    parser.add_argument("--no-figures", action="store_true", help="skip the forest plot")
    parser.add_argument("--no-progress", action="store_true", help="no sampling progress bar")


def check(args: argparse.Namespace) -> None:
    """The output directory and ``--save`` before fitting (a fit can take minutes)."""
    check_out(args)
    if args.save:
        check_save_dir(args.save)


def _data(args: argparse.Namespace) -> tuple[object, str, str]:
    given = sum(bool(x) for x in (args.file, args.dataset, args.rankings, args.paired))
    if given != 1:
        raise UsageError("give exactly one of FILE, --dataset, --rankings, --paired")
    chosen = file_format(args)
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


def _fitting(fit_call, args: argparse.Namespace):
    """Run ``fit_call()`` with the library's ConvergenceWarning (worded in Python arguments)
    silenced: the command words the problems in its own options (:func:`_warn`)."""
    from rankstats.models import ConvergenceWarning

    with in_cli_words(args.__dict__.setdefault("data_notes", [])), warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=ConvergenceWarning)
        return fit_call()


def _advice(args: argparse.Namespace, verdict, fit) -> str:
    """What to rerun with, in the command's options."""
    draws = fit.info.get("draws", args.draws) if args.model == "mallows" else args.draws
    if verdict.min_ess_bulk and verdict.min_ess_bulk > 0:
        factor = max(2.0, 1.2 * 400 / verdict.min_ess_bulk)
    else:
        factor = 4.0
    suggest = int(math.ceil(draws * factor / 500) * 500)
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


def _warn(verdict, advice: str) -> None:
    if verdict.sampled and verdict.problems:
        warnings.warn(
            "MCMC did not converge reliably: "
            + "; ".join(verdict.problems)
            + f". Do not report these numbers as they are: {advice} (summary at the end).",
            UserWarning,
            stacklevel=2,
        )


def _summary(verdict, advice: str, fit, args: argparse.Namespace) -> dict:
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


def _estimate(args: argparse.Namespace, data: object) -> None:
    """One line, before the fit, when it should take more than a few seconds."""
    from rankstats.models._timing import fit_estimate

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
    )
    if line:
        print(f"  {line}", flush=True)


def _fmt(values, spec: str) -> list[str]:
    """One number format for a whole column; NaN as ``-``."""
    return ["-" if v is None or not np.isfinite(v) else format(float(v), spec) for v in values]


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


def _fit(model: object, data: object, args: argparse.Namespace, **extra: object) -> object:
    """``model.fit`` with the options every model shares (``extra``: the model's own), under
    :func:`_fitting` (interruption and sampler errors in CLI terms)."""
    return _fitting(
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


def _described(model: object, args: argparse.Namespace) -> str:
    """The model and its settings in the command's flags."""
    from rankstats._util.method_names import model_name

    key = getattr(model, "name", "mallows")
    if key == "mallows":
        return f"{model_name(key)} (--prior {args.prior}), --method {args.method}"
    return (
        f"{model_name(key)} (--prior-scale {args.prior_scale:g}, --kind {args.kind}), "
        f"--method {args.method}"
    )


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
    """``rankstats fit``; every error and warning of the library in the command's words."""
    with in_cli_words(record=False):
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    from rankstats import models

    chosen = _models(args)
    if args.compare:
        from rankstats.cli._fit_compare import compare

        return compare(args, chosen)
    data, name, what = _data(args)
    if args.model == "mallows":
        args.method = args.method or "mcmc"
        if args.method not in ("mcmc", "map"):
            raise UsageError("--model mallows takes --method mcmc or map")
        if args.kind != "subset":
            raise UsageError(
                "--kind top_k is not a Mallows option (unranked items are latent anywhere)"
            )
        from rankstats.cli._fit_mallows import mallows

        return mallows(args, data, name, what)
    args.method = args.method or "nuts"
    if args.method == "mcmc":
        raise UsageError("--method mcmc is the Mallows sampler; pl/bt use nuts, mle or map")
    if args.max_draws is not None:
        raise UsageError("--max-draws is a Mallows option (--model mallows)")
    if args.backend != "auto":
        raise UsageError("--backend is a Mallows option (--model mallows)")
    cls = models.PlackettLuce if args.model == "pl" else models.BradleyTerry
    model = cls(prior_scale=args.prior_scale, kind=args.kind)
    print(f"rankstats fit: {name} ({what}), {_described(model, args)}", flush=True)
    _estimate(args, data)
    fit = _fit(model, data, args, sampler=args.sampler)
    from rankstats.reporting.diagnostics import convergence

    verdict = convergence(fit)
    advice = _advice(args, verdict, fit)
    _warn(verdict, advice)
    if args.method == "nuts":
        print(
            f"  NUTS ({fit.info.get('sampler', args.sampler)}): {args.chains} chains × "
            f"{args.draws} draws after "
            f"{args.tune} tuning steps, seed {args.seed}"
        )
    elif fit.log_likelihood is not None:
        label = "log-likelihood" if args.method == "mle" else "log-posterior (up to a constant)"
        print(f"  {label}: {fit.log_likelihood:.4f}")
    for key, value in fit.parameters.items():
        if not key.startswith("log_") and not key.endswith("_se"):
            print(f"  {key} = {value:.6g} (± {fit.parameters.get(key + '_se', float('nan')):.3g})")

    summary = fit.summary(args.prob)
    rows = [f"{fit.variable}[{s}]" for s in fit.order]
    centre = "mean" if args.method == "nuts" else "estimate"
    spread = "sd" if args.method == "nuts" else "se"
    table = pd.DataFrame(
        {
            "rank": range(1, len(rows) + 1),
            "system": fit.order,
            "log_worth": summary.loc[rows, centre].to_numpy(),
            spread: summary.loc[rows, spread].to_numpy(),
            "low": summary.loc[rows, "low"].to_numpy(),
            "high": summary.loc[rows, "high"].to_numpy(),
        }
    )
    columns = [
        ("rank", "right"),
        ("system", "left"),
        ("log-worth", "right"),
        (spread, "right"),
        ("low", "right"),
        ("high", "right"),
    ]
    cells = [
        [str(r) for r in table["rank"]],
        list(table["system"]),
        _fmt(table["log_worth"], ".4f"),
        _fmt(table[spread], ".3f"),
        _fmt(table["low"], ".3f"),
        _fmt(table["high"], ".3f"),
    ]
    if args.method == "nuts":
        table["r_hat"] = summary.loc[rows, "r_hat"].to_numpy()
        table["ess_bulk"] = summary.loc[rows, "ess_bulk"].to_numpy()
        columns += [("R-hat", "right"), ("ESS", "right")]
        cells += [_fmt(table["r_hat"], ".3f"), _fmt(table["ess_bulk"], ".0f")]
    interval = "posterior" if args.method == "nuts" else "Wald"
    print()
    print_table(
        columns,
        list(zip(*cells, strict=True)),
        title=f"log-worth (centred), {args.prob:.0%} {interval} interval [low, high]",
        max_width={1: 40},
    )
    pairs = fit.pairwise(args.prob)
    how = "posterior mean" if args.method == "nuts" else "at the estimate"
    _print_matrix(pairs, fit.order, how)
    return _write_outputs(
        args,
        fit,
        name,
        table,
        "worth",
        pairs,
        forest=not args.no_figures,
        verdict=verdict,
        advice=advice,
    )


def _write_outputs(
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
) -> int:
    """The significant-pair count, then ``<model>_<table_name>.csv``, ``<model>_pairwise.csv``,
    the forest plot, the stored fit (``--save``) and ``<model>_fit.json``; last, the convergence
    summary (also in the JSON)."""
    import io
    from contextlib import redirect_stdout

    from rankstats import models

    n = len(fit.order)
    n_sig = int(pairs["significant"].sum() // 2)
    print(f"\n{n_sig} of {n * (n - 1) // 2} pairs have a {args.prob:.0%} interval excluding ½.")
    from rankstats.models._information import caveat

    if caveat(fit):
        text = caveat(fit).replace(f"the {fit.method} fit", f"the --method {fit.method} fit")
        print(f"warning: {text} (see the warning above).")
    buffer = io.StringIO()
    with redirect_stdout(buffer):
        record = _summary(verdict, advice, fit, args)
    out = Path(args.out)
    with output_dir(out) as tmp:
        files = [tmp / f"{args.model}_{table_name}.csv", tmp / f"{args.model}_pairwise.csv"]
        write_csv(table, files[0])
        file_done()
        write_csv(pairs, files[1])
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
