"""A paper-ready report of a battle log with style control (issue 27).

Run: ``python examples/report_battles.py [OUTDIR]`` (about 10 s on 2 cores)

The bundled ``arena_bench_style`` log (lmarena/arena-hard-auto, arena-bench-v1; see
``rankstats/datasets/data/PROVENANCE.md``) compares, question by question, the GPT-4 grades of
two of seven models' answers, with each answer's length and markdown counts. The fit adjusts the
ratings for the four style covariates (the bootstrap resamples the 300 questions), and
``rs.battle_report`` writes the report: the leaderboard with its intervals and rank (UB), which
rating differences are significant (Wald tests, Holm), the effect of each covariate and the
ranking at equal style beside the unadjusted one, the methods paragraph with its BibTeX.
"""

import sys
from pathlib import Path

import rankstats as rs

out = Path(sys.argv[1] if len(sys.argv) > 1 else "example-out") / "battle-report"
style = {
    "length": ("len_a", "len_b"),
    "headers": ("header_a", "header_b"),
    "lists": ("list_a", "list_b"),
    "bold": ("bold_a", "bold_b"),
}
log = rs.read_battles(
    rs.datasets.battles_path("arena_bench_style"), cluster="question_id", covariates=style
)
# model_a is a coin flip in these pseudo-battles, not a display position: no order effect.
fit = rs.fit_battles(log, order_effect=False, n_resamples=1000, seed=0)
report = rs.battle_report(fit, log, out=out, title="arena-bench-v1 grades, style-controlled")
print(report)
print(report.summary)
columns = ["model", "rating", "bootstrap_low", "bootstrap_high", "rank_ub", "rank_low", "rank_high"]
print(report.leaderboard[columns].round(1).to_string(index=False))
print(report.data.adjustment.round(1).to_string(index=False))
print(f"\nopen {report.html}")
