"""Published numbers of Colombo et al. (2022) from the rank vectors in data/reference/."""

import json

import numpy as np
import pandas as pd
import pytest

import rankstats as rs
from rankstats.datasets import data_path

REFERENCE = json.loads(data_path("reference/reference_values.json").read_text())
FILES = {"glue": "glue", "superglue": "superglue", "xtrem": "xtrem"}


@pytest.mark.parametrize("key", ["glue", "superglue", "xtrem"])
def test_published_borda_totals(key):
    # The rank vectors hold "higher = better rank" per task; Borda = Σ systems beaten.
    ranks = pd.read_csv(data_path(f"reference/{FILES[key]}_task_ranks_meanorder.csv"))
    scores = rs.Scores.from_wide(ranks, system="Model")
    borda = rs.aggregate(scores, method="borda").scores
    published = REFERENCE[key]["borda_top10_meanorder"]
    assert len(published) == 10
    for system, total in published:
        assert borda[system] == total, system
    assert len(scores.systems) == REFERENCE[key]["n_systems"]


def test_glue_with_averaged_ties():
    # shared/data/README.md: with a proper average-tie ranking the GLUE totals become these.
    borda = rs.aggregate(rs.load_dataset("glue"), method="borda").table
    np.testing.assert_array_equal(borda["score"].head(4), [1428.5, 1401.5, 1393.0, 1391.0])
    assert borda["system"].iloc[0] == "Microsoft Alexander v-team Turing NLR v5"
