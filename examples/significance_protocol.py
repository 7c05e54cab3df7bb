"""Significance the way papers report it, on a leaderboard with missing scores.

Run: ``python examples/significance_protocol.py [OUTDIR]``

XTREME with 7 of 60 scores missing (15 systems × 4 tasks):

1. Demšar's (2006) protocol on the complete blocks only (what was dropped is printed), then on
   the imputed expected ranks (``missing="imputed"``: every block kept, the test's covariance
   exact under the imputation), side by side;
2. the critical-difference diagram of the imputed version (PDF + PNG) and its LaTeX table;
3. confidence sets for the ranks (Mogstad et al. 2024) next to the Hoeffding rank ranges;
4. the automatic choice of test autorank makes, on the complete SuperGLUE table (14 tasks);
5. the Bayesian signed-rank test with a ROPE for the two best SuperGLUE systems.

Every number printed comes from the result objects; nothing is re-derived here.
"""

import sys
from pathlib import Path

import rankstats as rs
from rankstats.plotting.saving import save_figure

out = Path(sys.argv[1] if len(sys.argv) > 1 else "significance-example")
out.mkdir(parents=True, exist_ok=True)
xtreme = rs.load_dataset("xtreme_missing")

# 1. Complete-case against imputed expected ranks ----------------------------------------------
complete = rs.posthoc(xtreme, missing="complete-case")
imputed = rs.posthoc(xtreme, missing="imputed")
print(rs.friedman(xtreme, missing="complete-case"))
print(rs.friedman(xtreme, missing="imputed"))
print(complete)
print(imputed)
# Complete-case keeps only the blocks that scored every system (here two of four tasks); the
# imputed version keeps all four and finds the differences the dropped tasks carried.

# 2. CD diagram and LaTeX table ----------------------------------------------------------------
for path in save_figure(rs.cd_diagram(imputed), out / "cd_diagram_imputed"):
    print("wrote", path)
(out / "cd_table_imputed.tex").write_text(rs.cd_table(imputed), encoding="utf-8")

# 3. Confidence sets for the ranks, next to the Hoeffding rank ranges --------------------------
summeval = rs.load_dataset("summeval")
sets = rs.rank_confidence_sets(summeval, simultaneous=True, n_resamples=1000, seed=0)
print(sets)
hoeffding = rs.hoeffding_test(rs.pairwise(summeval))  # the rank ranges of the Borda intervals
print(sets.compare_hoeffding(hoeffding).head(8).to_string(index=False))

# 4. The automatic choice (normality, homoscedasticity → ANOVA/Tukey or Friedman/Nemenyi) ------
choice = rs.choose_test(rs.load_dataset("superglue"))
print(choice)
print(choice.explanation)

# 5. Bayesian signed-rank test with a region of practical equivalence --------------------------
superglue = rs.load_dataset("superglue")
best, second = choice.posthoc.mean_ranks.index[:2]
bayes = rs.bayes_signed_rank(superglue, best, second, rope=0.5, seed=0)
print(bayes)
for path in save_figure(bayes.plot(), out / "bayes_simplex"):
    print("wrote", path)
