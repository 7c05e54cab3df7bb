"""Does the judge reward length? Style control on real LLM grades (issue 27).

Run: ``python examples/style_control.py [OUTDIR]`` (about 10 s on 2 cores)

The bundled ``arena_bench_style`` log (lmarena/arena-hard-auto, arena-bench-v1; see
``rankstats/datasets/data/PROVENANCE.md``) compares, on each of 300 questions, the GPT-4 grades
(1–10) of two of seven models' answers — the higher grade wins, equal grades tie — and keeps
each answer's length (words) and its counts of markdown headers, list items and bold spans.
``model_a`` is a coin flip, not a display position, so the fit has no order effect. With the
four style covariates in the log-odds (LMSYS's normalised differences (a − b) / (a + b)), the
ratings say how the grader ranks the models at equal style; the bootstrap resamples questions
(each question appears in up to 21 pseudo-battles).
"""

import sys
import warnings
from pathlib import Path

import rankstats as rs
from rankstats.plotting.saving import save_figure

out = Path(sys.argv[1] if len(sys.argv) > 1 else "example-out")
out.mkdir(parents=True, exist_ok=True)
style = {
    "length": ("len_a", "len_b"),
    "headers": ("header_a", "header_b"),
    "lists": ("list_a", "list_b"),
    "bold": ("bold_a", "bold_b"),
}
log = rs.read_battles(
    rs.datasets.battles_path("arena_bench_style"), cluster="question_id", covariates=style
)
print(log)
fit = rs.fit_battles(log, order_effect=False, n_resamples=1000, seed=0)
print(fit)
print(fit.parameters().round(3).to_string())
columns = ["model", "rating", "bootstrap_low", "bootstrap_high", "rank"]
columns += ["rating_unadjusted", "rank_unadjusted"]
print(fit.table()[columns].round(1).to_string())
print(fit.differences().round(3).to_string())
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    save_figure(fit.plot_covariates(), out / "style_effects")
    save_figure(fit.plot(), out / "style_ratings")
print(f"\nfigures in {out}/")
