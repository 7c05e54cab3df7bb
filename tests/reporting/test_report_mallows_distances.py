"""The report names a Mallows fit by its distance and a mixture by its clusters (it said
"Mallows (Kendall)" for every Mallows fit), and writes their ranks under distinct columns."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

import rankstats as rs
from rankstats.core.permutations.sampling import sample_mallows


def _rankings() -> rs.Rankings:
    rng = np.random.default_rng(4)
    ranks = np.vstack(
        [
            sample_mallows(np.arange(1, 6), 10.0, "footrule", 15, rng),
            sample_mallows(np.arange(5, 0, -1), 10.0, "footrule", 15, rng),
        ]
    ).astype(float)
    return rs.Rankings(ranks, tuple("abcde"), pd.Index([f"r{j}" for j in range(30)]))


def test_the_report_names_the_distance_and_the_clusters(tmp_path):
    rk = _rankings()
    options = {"draws": 100, "tune": 300, "chains": 2, "max_draws": 100, "progress": False}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # short chains
        one = rs.models.Mallows(distance="footrule").fit(rk, **options)
        mixture = rs.models.Mallows(distance="footrule", clusters=2).fit(rk, **options)
        rs.report(rk, out=tmp_path / "r", models=[one, mixture])
    methods = (tmp_path / "r" / "methods.txt").read_text()
    assert "Mallows (footrule) fitted by mcmc" in methods
    assert "Mallows (footrule), mixture of 2 clusters fitted by mcmc" in methods
    assert "cluster weights ~ Dirichlet(10)" in methods
    assert "Kendall" not in methods
    ranking = pd.read_csv(tmp_path / "r" / "ranking.csv")
    assert {"rank_mallows_footrule", "rank_mallows_footrule_2clusters"} <= set(ranking.columns)
    html = (tmp_path / "r" / "report.html").read_text()
    assert "use fit.clusters[k].rank_posterior() for cluster k + 1" in html
