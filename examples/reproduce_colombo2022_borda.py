"""Reproduce the Borda totals of Colombo et al. (2022) and give the averaged-tie values.

Run: ``python examples/reproduce_colombo2022_borda.py`` — prints the Markdown tables of
docs/reproductions/colombo2022-borda.md.

The published totals are reproduced exactly only from the authors' per-task rank vectors (ties
broken by an old numpy sort); ranking the leaderboard scores with averaged ties gives slightly
different totals (and, for a few systems, a different rank).
"""

import json

import pandas as pd

import rankstats as rs
from rankstats.datasets import data_path

reference = json.loads(data_path("reference/reference_values.json").read_text())
for key, dataset in [("glue", "glue"), ("superglue", "superglue"), ("xtrem", "xtreme")]:
    vectors = pd.read_csv(data_path(f"reference/{key}_task_ranks_meanorder.csv"))
    from_vectors = rs.aggregate(rs.Scores.from_wide(vectors, system="Model"), "borda").scores
    from_scores = rs.aggregate(rs.load_dataset(dataset), "borda").table.set_index("system")
    print(f"\n### {dataset}\n")
    print("| system | published | from the rank vectors | from the scores (averaged ties) | rank |")
    print("|---|---|---|---|---|")
    for system, published in reference[key]["borda_top10_meanorder"]:
        row = from_scores.loc[system]
        print(
            f"| {system} | {published} | {from_vectors[system]:g} | {row['score']:g} | "
            f"{row['rank']:g} |"
        )
        assert from_vectors[system] == published, system
