"""Rank systems with missing scores and report which differences are significant.

Run: ``python examples/rank_with_significance.py [OUTDIR]``

1. XTREME with 7 missing scores (task level): σ^l and σ^2l against the mean baseline σ^μ.
2. SummEval (instance level: 16 systems × 100 documents × 17 metrics): σ^l with Hoeffding
   intervals (δ = 0.05, Holm), and the significance heatmap in ranked order.
"""

import sys
from pathlib import Path

import rankstats as rs
from rankstats.aggregation.hoeffding_figure import significance_heatmap
from rankstats.plotting.saving import save_figure

out = Path(sys.argv[1] if len(sys.argv) > 1 else "example-out")

# 1. Task level, missing scores -------------------------------------------------------------
xtreme = rs.load_dataset("xtreme_missing")
print(xtreme)
borda = rs.aggregate(xtreme, method="borda")
mean = rs.aggregate(xtreme, method="mean")
table = borda.table.merge(mean.table, on="system", suffixes=("_borda", "_mean"))
print(table.to_string(index=False, float_format="%.3f"))
# A system without a QA score (Unicoder) is 5th by σ^l but 9th by the mean: the mean compares
# averages over different task sets.

# 2. Instance level with significance -------------------------------------------------------
summeval = rs.load_dataset("summeval")
sigma_l = rs.aggregate(summeval, method="borda")  # one ranking per (metric, document)
sigma_2l = rs.aggregate(summeval, method="borda2")
pw = rs.pairwise(rs.Rankings.from_scores(summeval, by="instance"))
ci = rs.hoeffding(pw, delta=0.05, correction="holm", order=sigma_l.order)
n_sig = int(ci.significant.sum() // 2)
print(
    f"\nSummEval: {pw.n_rankings} rankings; σ^l top 3 {sigma_l.order[:3]}, "
    f"σ^2l top 3 {sigma_2l.order[:3]}; {n_sig} of {ci.attrs['n_pairs']} pairs significant"
)
top = ci[(ci.system_a == sigma_l.order[0]) & ~ci.significant]
print(f"{sigma_l.order[0]} is not significantly above: {top.system_b.tolist()}")

paths = save_figure(
    significance_heatmap(ci, title="SummEval, σ^l order, δ = 0.05 (Holm)"), out / "summeval_heatmap"
)
print("wrote", *paths)
