"""``rankstats significance --choose``: autorank's automatic choice on the same complete blocks
(:func:`rankstats.choose_test`), printed and written (``choice.json``, ``choice_summary.csv``,
``choice_pairs.csv``)."""

from __future__ import annotations

from pathlib import Path

from rankstats._util.text import terminal
from rankstats.cli._common import write_json, write_tables
from rankstats.cli._console import print_frame
from rankstats.cli._significance_text import finite, p_text
from rankstats.cli.options.significance import Options


def choose(blocks, opts: Options):
    """autorank's automatic choice on the same complete blocks (:func:`rankstats.choose_test`)."""
    from rankstats.significance.which_test import choose_test

    return choose_test(blocks, alpha=opts.alpha)


def print_choice(choice) -> None:
    print(
        f"\nAutomatic choice (as autorank): {CHOICE_NAMES[choice.decision]}; omnibus "
        f"{p_text(choice.p_value)}, {choice.posthoc.n_significant} of "
        f"{choice.posthoc.n_pairs} pairs significant at α = {choice.alpha:g}"
    )
    print(terminal(choice.explanation))
    summary = choice.summary[["system", "mean_rank", "mean", "std", "effect_size", "magnitude"]]
    print_frame(
        summary,
        headers={"mean_rank": "avg rank", "effect_size": choice.effect_size.replace("_", " ")},
    )


CHOICE_NAMES = {
    "anova-tukey": "repeated-measures ANOVA + Tukey's HSD",
    "friedman-nemenyi": "Friedman + Nemenyi",
}


def write_choice(choice, tmp: Path) -> list[Path]:
    """``choice.json`` (the checks, the decision, the omnibus and post-hoc summary),
    ``choice_summary.csv`` and ``choice_pairs.csv`` (the chosen post-hoc test's table)."""
    tables = {"choice_summary.csv": choice.summary, "choice_pairs.csv": choice.posthoc.table}
    files = write_tables(tmp, tables)
    record = {
        "decision": choice.decision,
        "test": CHOICE_NAMES[choice.decision],
        "alpha": choice.alpha,
        "normality": {
            "test": "shapiro-wilk",
            "alpha": choice.alpha_normality,
            "p_values": {str(k): float(v) for k, v in choice.normality.items()},
            "all_normal": choice.all_normal,
        },
        "homoscedasticity": {
            "test": choice.homoscedasticity_test,
            "p_value": choice.homoscedasticity_p,
            "homoscedastic": choice.homoscedastic,
        },
        "omnibus_p_value": choice.p_value,
        "significant": choice.significant,
        "posthoc": {
            "n_pairs": choice.posthoc.n_pairs,
            "n_significant": choice.posthoc.n_significant,
            "groups": [list(g) for g in choice.posthoc.groups()],
        },
        "effect_size": choice.effect_size,
        "explanation": choice.explanation,
    }
    files.append(write_json(tmp / "choice.json", finite(record)))
    return files
