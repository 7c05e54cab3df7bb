"""``rankstats fit --model mallows --method mle``: a maximum-likelihood mixture of Mallows
models by EM (:func:`rankstats.models.mallows_em`; one cluster with ``--clusters 1``), printed
and written as ``mallows_clusters.csv``, ``mallows_assignments.csv`` and ``mallows_fit.json``."""

from __future__ import annotations

from pathlib import Path

from rankstats._util.atomic import output_dir
from rankstats.cli._common import write_json, write_tables, written
from rankstats.cli._console import print_frame
from rankstats.cli.options.fit import Options
from rankstats.cli.usage import UsageError
from rankstats.core.rankings import Rankings

#: Options of the Bayesian fits that EM has no use for: refused, not ignored.
SAMPLER_ONLY = (
    ("--top-k", lambda o: o.top_k is not None),
    ("--predictive", lambda o: o.predictive is not None),
    ("--error-model", lambda o: o.error_model is not None),
    ("--thin", lambda o: o.thin is not None),
    ("--partition", lambda o: o.partition is not None),
    ("--leap", lambda o: o.leap != 1),
    ("--rho-proposal", lambda o: o.rho_proposal != "leap_and_shift"),
    ("--max-draws", lambda o: o.max_draws is not None),
    ("--prior", lambda o: o.prior != "gamma"),
    ("--kind", lambda o: o.kind != "subset"),
    ("--save", lambda o: o.save is not None),
)


def check(opts: Options, data: object) -> None:
    """The options and the data of an EM fit, before fitting."""
    for flag, given in SAMPLER_ONLY:
        if given(opts):
            raise UsageError(f"{flag} belongs to the sampled Mallows fit (--method mcmc)")
    if not isinstance(data, Rankings):
        raise UsageError("--method mle fits complete rankings (a rank matrix or orderings)")
    if opts.clusters > data.n_rankings:
        raise UsageError(f"--clusters {opts.clusters} is more than the {data.n_rankings} rankings")


def em_mixture(opts: Options, data: object, name: str, what: str) -> int:
    """Fit, print the clusters and the fit's criteria, write the tables and the JSON."""
    from rankstats.models.mallows.em import STARTS, mallows_em

    check(opts, data)
    starts = opts.starts or STARTS
    print(
        f"rankstats fit: {name} ({what}), Mallows ({opts.distance}) mixture of {opts.clusters} "
        f"by maximum likelihood (EM, {starts} starts, seed {opts.seed})",
        flush=True,
    )
    fit = mallows_em(data, opts.clusters, distance=opts.distance, starts=starts, seed=opts.seed)
    clusters = fit.clusters()
    print_frame(clusters.reset_index(), title="clusters", decimals={"weight": 3, "alpha": 4})
    print(
        f"log-likelihood {fit.log_likelihood:.4f}, BIC {fit.bic:.2f}, ICL {fit.icl:.2f}; "
        f"{fit.starts_at_best} of {starts} starts reached it; consensus by "
        f"{fit.consensus_method}, partition function {fit.partition_method}"
    )
    out = Path(opts.output.out)
    with output_dir(out) as tmp:
        tables = {
            "mallows_clusters.csv": clusters.reset_index(),
            "mallows_assignments.csv": fit.assignments().rename_axis("ranker").reset_index(),
        }
        files = write_tables(tmp, tables)
        files.append(write_json(tmp / "mallows_fit.json", _record(opts, fit, name, starts)))
    print(written(tmp, out, files))
    return 0


def _record(opts: Options, fit, name: str, starts: int) -> dict:
    """What ``mallows_fit.json`` holds."""
    return {
        "data": name,
        "model": "mallows",
        "method": "mle (EM)",
        "distance": opts.distance,
        "clusters": opts.clusters,
        "seed": opts.seed,
        "starts": starts,
        "starts_at_best": fit.starts_at_best,
        "log_likelihood": fit.log_likelihood,
        "bic": fit.bic,
        "icl": fit.icl,
        "iterations": fit.iterations,
        "converged": bool(fit.converged),
        "consensus_method": fit.consensus_method,
        "partition_method": fit.partition_method,
        "consensus": fit.consensus_orderings(),
        "alpha": fit.alpha.tolist(),
        "weight": fit.weight.tolist(),
    }
