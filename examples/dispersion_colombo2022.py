"""Reproduce the dispersion table of Colombo et al. (2022, Table 5), then correct it.

The paper reports, for GLUE, SuperGLUE and XTREME, the mean Kendall distance between a consensus
(Borda or mean) and the task rankings.  Its code computes the distance on the *inverse*
permutations (it looks up ``ranking.index(x)``, the system holding rank ``x``, in a vector of
ranks), which is not the Kendall distance between the two rankings.  With the paper's rank
vectors (bundled in ``rankstats/datasets/data/reference/``) and that distance, the published
values come out exactly; with the Kendall distance proper they differ, and with the real scores
(ties averaged, not broken by a sort) they differ again.

Run: ``python examples/dispersion_colombo2022.py``
"""

import json
from importlib import resources

import numpy as np
import pandas as pd

import rankstats as rs

REFERENCE = resources.files("rankstats.datasets") / "data" / "reference"
DATASETS = {"glue": "glue", "superglue": "superglue", "xtrem": "xtreme"}
# Ties in the Borda totals were broken by the numpy sort the authors used: in file order for
# GLUE and XTREME, in reverse file order for SuperGLUE's two tied pairs.
TIE_ORDER = {"glue": "file", "superglue": "reverse", "xtrem": "file"}


def task_ranks(name: str, order: str) -> tuple[list[str], np.ndarray]:
    """The paper's per-task rank vectors: (tasks, systems), 0 = worst, ties broken."""
    table = pd.read_csv(REFERENCE / f"{name}_task_ranks_{order}.csv")
    return table["Model"].tolist(), table.drop(columns="Model").to_numpy().T


def inverse(perm: np.ndarray) -> np.ndarray:
    out = np.empty_like(perm)
    out[perm] = np.arange(len(perm))
    return out


def paper_consensus(name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Borda and mean consensus rank vectors (0 = worst) and the task ranks, in file order."""
    models, ranks = task_ranks(name, "fileorder")
    n = len(models)
    tie_key = np.arange(n) if TIE_ORDER[name] == "file" else -np.arange(n)
    borda = inverse(np.lexsort((tie_key, ranks.sum(axis=0))))
    mean_models, _ = task_ranks(name, "meanorder")  # rows sorted by mean score, best first
    position = {m: k for k, m in enumerate(mean_models)}
    mean = np.array([n - 1 - position[m] for m in models])
    return borda, mean, ranks


def main() -> None:
    published = json.loads((REFERENCE / "reference_values.json").read_text())
    rows = []
    for name, dataset in DATASETS.items():
        borda, mean, ranks = paper_consensus(name)
        inv_tasks = np.array([inverse(r) for r in ranks])
        row = {"benchmark": name, "systems": ranks.shape[1], "tasks": ranks.shape[0]}
        for label, consensus in (("borda", borda), ("mean", mean)):
            row[f"published_{label}"] = published[name][f"dispersion_{label}"]
            # The paper's distance: Kendall distance between the inverse permutations.
            paper = rs.kendall_distance(inverse(consensus), inv_tasks)
            row[f"paper_distance_{label}"] = paper.mean()
            # Kendall distance proper between the same rank vectors.
            row[f"kendall_{label}"] = rs.kendall_distance(consensus, ranks).mean()
        # From the real scores: ties averaged (½ per tie), consensus by rankstats.
        table = rs.dispersion_table(rs.load_dataset(dataset), by="task")
        distance = table.set_index("candidate")["distance"]
        for label in ("borda", "mean", "kemeny"):
            row[f"scores_{label}"] = distance[label]
        row["scores_pairwise_gamma"] = table.attrs["pairwise"]
        row["random"] = table.attrs["random_baseline"]
        rows.append(row)
    out = pd.DataFrame(rows).set_index("benchmark").T
    with pd.option_context("display.float_format", "{:.4f}".format, "display.width", 120):
        print(out)
    for name in DATASETS:
        for label in ("borda", "mean"):
            published_value = out.loc[f"published_{label}", name]
            assert np.isclose(published_value, out.loc[f"paper_distance_{label}", name])
    print("\nThe paper's distance reproduces every published value exactly.")


if __name__ == "__main__":
    main()
