"""Hoeffding intervals against a Plackett–Luce posterior on the sushi data (5,000 rankings of 10).

Run: ``python examples/compare_sushi.py [OUTDIR]``

The empirical P(fatty tuna above sea urchin) is 0.716; Plackett–Luce implies 0.782. Both are
"significant" with the same winner, but the gap is far outside either interval: the model, not
the data, is wrong about the size of that difference.
"""

import sys
from pathlib import Path

import rankstats as rs
from rankstats.plotting.saving import save_figure

out = Path(sys.argv[1] if len(sys.argv) > 1 else "example-out")
rk = rs.load_rankings("sushi")
fit = rs.models.PlackettLuce().fit(
    rk, method="nuts", draws=500, tune=500, chains=2, seed=0, progress=False
)
cmp = rs.compare(rs.pairwise(rk), [fit], delta=0.05, correction="holm")
print(cmp)
cols = [
    "system_a",
    "system_b",
    "hoeffding_estimate",
    "hoeffding_low",
    "hoeffding_high",
    "pl_estimate",
    "pl_low",
    "pl_high",
    "pl_gap",
]
wide = cmp.wide.assign(abs_gap=cmp.wide.pl_gap.abs()).sort_values("abs_gap", ascending=False)
print(wide[cols].head(8).to_string(index=False, float_format="%.3f"))
save_figure(cmp.plot_matrix("pl"), out / "sushi_compare_matrix")
save_figure(cmp.plot_forest(k=10), out / "sushi_compare_forest")
