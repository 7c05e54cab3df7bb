"""``rankstats fit --model mallows --method mle``: the EM mixture on the command line prints and
writes what :func:`rankstats.models.mallows_em` fits, and refuses the sampler's options."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import rankstats as rs
from rankstats.cli import main
from rankstats.core.permutations.sampling import sample_mallows


@pytest.fixture
def two_groups(tmp_path):
    """A rank-matrix file: 30 rankings near a … f, 20 near f … a."""
    rng = np.random.default_rng(5)
    ranks = np.vstack(
        [
            sample_mallows(np.arange(1, 7), 8.0, "footrule", 30, rng),
            sample_mallows(np.arange(6, 0, -1), 8.0, "footrule", 20, rng),
        ]
    )
    frame = pd.DataFrame(ranks, columns=list("abcdef"))
    frame.insert(0, "ranker", [f"r{j}" for j in range(50)])
    path = tmp_path / "groups.csv"
    frame.to_csv(path, index=False)
    return path


def test_the_em_mixture_prints_and_writes_the_library_fit(two_groups, tmp_path, capsys):
    out = tmp_path / "out"
    args = ["fit", str(two_groups), "--format", "rank-matrix", "--model", "mallows"]
    options = ["--method", "mle", "--clusters", "2", "--distance", "footrule", "--starts", "5"]
    assert main([*args, *options, "--seed", "3", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    fit = rs.models.mallows_em(
        rs.read_rankings(two_groups, "rank-matrix"), 2, distance="footrule", starts=5, seed=3
    )
    assert "mixture of 2 by maximum likelihood (EM, 5 starts, seed 3)" in text
    assert f"BIC {fit.bic:.2f}" in text
    clusters = pd.read_csv(out / "mallows_clusters.csv")
    np.testing.assert_allclose(clusters["weight"], fit.weight, rtol=1e-12)
    np.testing.assert_allclose(clusters["alpha"], fit.alpha, rtol=1e-12)
    assert sorted(clusters["consensus"]) == ["a > b > c > d > e > f", "f > e > d > c > b > a"]
    assignments = pd.read_csv(out / "mallows_assignments.csv")
    assert assignments["cluster"].tolist() == fit.assignments()["cluster"].tolist()
    assert assignments["ranker"].tolist() == [f"r{j}" for j in range(50)]
    record = json.loads((out / "mallows_fit.json").read_text())
    assert record["log_likelihood"] == pytest.approx(fit.log_likelihood, rel=1e-12)
    assert record["starts"] == 5 and record["clusters"] == 2


def test_the_sampler_options_are_refused_with_em(two_groups, capsys):
    base = ["fit", str(two_groups), "--format", "rank-matrix", "--model", "mallows"]
    assert main([*base, "--method", "mle", "--top-k", "2"]) == 2
    err = capsys.readouterr().err
    assert "--top-k belongs to the sampled Mallows fit" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert main([*base, "--method", "mle", "--clusters", "51"]) == 2
    assert "--clusters 51 is more than the 50 rankings" in capsys.readouterr().err
    assert main([*base, "--starts", "3", "--method", "map"]) == 2
    assert "--starts is an option of the EM fit" in capsys.readouterr().err
    assert main([*base[:-1], "pl", "--starts", "3", "--method", "mle"]) == 2
    assert "--starts is a Mallows option" in capsys.readouterr().err
