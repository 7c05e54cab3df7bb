"""Colombo et al. (2022, Fig. 2): how many adversarial tasks does each aggregator survive?

Run: ``python examples/robustness_manipulation.py [OUTDIR]`` (about 20 s on 2 cores)

N = T = K = 20 Gumbel benchmarks; k of the 20 tasks are adversarial (they rank the systems in
reverse with a strong signal); 100 replicates per (φ, k).
"""

import sys
from pathlib import Path

import rankstats as rs
from rankstats.plotting.saving import save_figure

out = Path(sys.argv[1] if len(sys.argv) > 1 else "example-out")
res = rs.simulate.robustness(
    ("mean", "borda", "borda2"),
    grid={"phi": [0.05, 0.1, 0.5], "adversarial_tasks": list(range(21))},
    n_replications=100,
    seed=0,
    base={"n_systems": 20, "n_tasks": 20, "n_instances": 20},
    progress=True,
)
summary = res.summary("kendall_tau")
# Largest k at which each aggregator still has mean τ > 0.5 (the ranking is mostly right).
survives = (
    summary[summary["mean"] > 0.5]
    .groupby(["phi", "aggregator"])["adversarial_tasks"]
    .max()
    .unstack()
)
print(survives)
save_figure(res.plot(x="adversarial_tasks", panel="phi"), out / "manipulation")
