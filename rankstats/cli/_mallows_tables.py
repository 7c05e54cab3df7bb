"""What the Mallows commands (one population, a mixture) print alike: the notice of each
automatic extension and the top-k table."""

from __future__ import annotations

import sys

import pandas as pd

from rankstats.cli._console import print_columns
from rankstats.cli._fit_common import formatted
from rankstats.cli.options.fit import Options


def extension_notice(opts: Options, unit: str = "draws"):
    """The ``on_extend`` callback of a sampled fit: one line on stderr per extension block."""
    from rankstats.models.mallows.metropolis_fit import EXTEND_FACTOR

    cap = opts.max_draws or EXTEND_FACTOR * opts.mcmc.draws

    def extending(done: int, block: int, problems: list[str]) -> None:
        print(
            f"rankstats fit: after {done} {unit} per chain: {'; '.join(problems)}; continuing "
            f"for {block} more (automatic extension, cap --max-draws {cap})",
            file=sys.stderr,
            flush=True,
        )

    return extending


def extended_text(fit, unit: str = "draws") -> str:
    """The automatic extensions of a sampled fit, for its sampler's line (empty: none)."""
    if not fit.info.get("extensions"):
        return ""
    return f", extended {fit.info['extensions']} time(s) to {fit.info['draws']} {unit}"


def print_extras(opts: Options, fit, top_who: str, predictive_who: str) -> dict:
    """``--top-k`` and ``--predictive`` of a Mallows fit, printed: the tables by their names."""
    more = {}
    if opts.top_k is not None:
        more["top_k"] = fit.top_k(opts.top_k, opts.ci_prob)
        print_top_k(more["top_k"], opts, top_who)
    if opts.predictive is not None:
        more["predictive"] = fit.predictive_distribution(top=opts.predictive, seed=opts.seed)
        print_predictive(more["predictive"], opts, predictive_who)
    return more


def print_top_k(top: pd.DataFrame, opts: Options, who: str) -> None:
    """Print a fit's ``top_k`` table (with ``P(ρ ≤ k)`` when it has the consensus column);
    ``who``: the subject of the title's "probability that …"."""
    consensus = "consensus" in top
    shown = {"P(top k)": "probability", "low": "low", "high": "high"}
    shown |= {"P(ρ ≤ k)": "consensus"} if consensus else {}
    error = top.attrs["standard_error"]
    print()
    print_columns(
        [("system", "left", list(top["system"]))]
        + [(header, "right", formatted(top[c], ".3f")) for header, c in shown.items()],
        title=f"probability that {who} top {opts.top_k}"
        + (" and that the consensus ρ does (P(ρ ≤ k))" if consensus else "")
        + f" (posterior predictive, {opts.ci_prob:.0%} interval; rank marginals by "
        f"{top.attrs['table']}" + (f", Monte Carlo s.e. ≤ {error:.3f})" if error else ")"),
        max_width={0: 40},
    )


def print_predictive(table: pd.DataFrame, opts: Options, who: str) -> None:
    """Print a fit's ``predictive_distribution`` table (the most probable rankings)."""
    exact = table.attrs.get("method") == "exact"
    plug_in = table.attrs.get("draws") == 1  # a MAP fit: one point, no posterior to average
    how = (
        "at the maximum-likelihood estimate (plug-in: no posterior uncertainty)"
        if plug_in
        else "posterior predictive"
    )
    error = "" if plug_in else ", s.e. the Monte Carlo error over the posterior draws"
    print()
    print_columns(
        [
            ("ranking", "left", list(table["ranking"])),
            ("probability", "right", formatted(table["probability"], ".4g")),
            ("s.e.", "right", formatted(table["se"], ".2g")),
        ],
        title=f"the {len(table)} most probable rankings of {who} ({how}; "
        + ("every ranking scored" if exact else "the most probable of the rankings drawn")
        + f"{error})",
        max_width={0: 100},
    )
