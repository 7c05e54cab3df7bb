"""Stability of the aggregators on real leaderboards when (system, task) scores go missing.

Run: ``python examples/perturbation_real_data.py [OUTDIR]``

For GLUE, SuperGLUE and XTREME, remove a share η of the (system, task) scores at random and
compare each aggregator's ranking with its ranking of the full table (Kendall τ), as in Himmi et
al. (2023, Fig. 2).
"""

import sys
from pathlib import Path

import pandas as pd

import rankstats as rs
from rankstats.plotting.saving import save_figure

out = Path(sys.argv[1] if len(sys.argv) > 1 else "example-out")
tables = []
for name in ("glue", "superglue", "xtreme"):
    res = rs.simulate.perturbation(
        rs.load_dataset(name),
        aggregators=("mean", "borda", "borda2"),
        grid={"missing_rate": [0.1, 0.2, 0.3, 0.4, 0.5]},
        n_replications=30,
        seed=0,
    )
    summary = res.summary().assign(dataset=name)
    tables.append(summary)
    save_figure(res.plot(x="missing_rate"), out / f"perturbation_{name}")
table = pd.concat(tables)
print(
    table.pivot_table(
        index=["dataset", "missing_rate"], columns="aggregator", values="mean"
    ).to_string(float_format="%.3f")
)
