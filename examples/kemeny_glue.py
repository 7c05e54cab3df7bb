"""Kemeny consensus of GLUE, SuperGLUE and XTREME next to Borda and the mean.

For each leaderboard (task level: one ranking per task), this prints

* the Kemeny order, proved optimal or with its gap, and how long the proof took;
* the Kemeny objective (total Kendall distance to the task rankings) of the Kemeny, Borda and
  mean orders: Borda is an approximation of Kemeny (Colombo et al., 2022); how close is it?
* where the three orders disagree in the top 10;
* the dispersion of the task rankings and the mean distance of each consensus to them.

Run: ``python examples/kemeny_glue.py``
"""

import numpy as np
import pandas as pd

import rankstats as rs
from rankstats.aggregation.kemeny_heuristics import kemeny_cost


def order_cost(pw: rs.Pairwise, ranks: pd.Series) -> float:
    """Kemeny objective of a consensus given as ranks (ties broken by system order)."""
    index = {s: i for i, s in enumerate(pw.systems)}
    order = ranks.sort_values(kind="stable").index
    return kemeny_cost(pw.wins, np.array([index[s] for s in order]))


def main() -> None:
    for name in ("glue", "superglue", "xtreme"):
        scores = rs.load_dataset(name)
        rankings = rs.Rankings.from_scores(scores, by="task")
        pw = rs.pairwise(rankings)
        res = rs.kemeny(rankings)
        borda = rs.aggregate(rankings, method="borda").table.set_index("system")["rank"]
        mean = rs.aggregate(scores, method="mean").table.set_index("system")["rank"]
        print(f"=== {name}: {rankings.n_systems} systems, {rankings.n_rankings} task rankings")
        print(f"{res!r}\n")
        costs = {
            "kemeny": res.cost,
            "borda": order_cost(pw, borda),
            "mean": order_cost(pw, mean),
        }
        for label, cost in costs.items():
            print(
                f"  {label:<7} total Kendall distance {cost:9.1f}  "
                f"(+{100 * (cost - res.cost) / res.cost:.2f} % over the optimum)"
            )
        top = pd.DataFrame(
            {
                "kemeny": range(1, 11),
                "system": res.order[:10],
                "borda": borda.reindex(res.order[:10]).to_numpy(),
                "mean": mean.reindex(res.order[:10]).to_numpy(),
            }
        )
        print("\n  top 10 by Kemeny, with the Borda and mean ranks:")
        print(top.to_string(index=False, max_colwidth=50))
        kem = pd.Series(np.arange(1.0, len(res.order) + 1), index=res.order)
        systems = list(rankings.systems)
        for label, other in (("borda", borda), ("mean", mean)):
            d = rs.kendall_distance(kem.reindex(systems), other.reindex(systems))
            print(f"  Kendall distance Kemeny vs {label}: {d:g} pairs")
        table = rs.dispersion_table(scores, by="task")
        print(
            f"\n  dispersion γ (mean distance between two task rankings) = "
            f"{table.attrs['pairwise']:.2f}; random order: {table.attrs['random_baseline']:g}"
        )
        print(table.to_string(index=False, float_format="%.3f"))
        print()


if __name__ == "__main__":
    main()
