"""``rankstats fit --model mallows --clusters K`` and assessors' preferences on the command line
(``--format preferences``, ``--preferences NAME``): the same numbers as the library, the files,
and one-line refusals."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import rankstats as rs
from rankstats.cli import main
from rankstats.core.permutations.sampling import sample_mallows

SETTINGS = ["--draws", "100", "--tune", "400", "--chains", "2", "--max-draws", "100"]


@pytest.fixture
def two_groups(tmp_path):
    """A rank-matrix file: 20 assessors near a … f, 20 near f … a."""
    rng = np.random.default_rng(3)
    ranks = np.vstack(
        [
            sample_mallows(np.arange(1, 7), 10.0, "footrule", 20, rng),
            sample_mallows(np.arange(6, 0, -1), 10.0, "footrule", 20, rng),
        ]
    )
    frame = pd.DataFrame(ranks, columns=list("abcdef"))
    frame.insert(0, "ranker", [f"r{j}" for j in range(40)])
    path = tmp_path / "groups.csv"
    frame.to_csv(path, index=False)
    return path


def test_clusters_print_and_write_what_the_library_fits(two_groups, tmp_path, capsys):
    out = tmp_path / "out"
    args = ["fit", str(two_groups), "--format", "rank-matrix", "--model", "mallows"]
    options = ["--distance", "footrule", "--clusters", "2", "--top-k", "2", "--no-progress"]
    code = main([*args, *options, "--out", str(out), *SETTINGS])
    assert code == 0
    text = capsys.readouterr().out
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = rs.models.Mallows(distance="footrule", clusters=2).fit(
            rs.read_rankings(two_groups, "rank-matrix"),
            draws=100, tune=400, chains=2, max_draws=100, progress=False,
        )  # fmt: skip
    assert "Mallows (footrule) mixture of 2" in text and "--clusters 2" in text
    clusters = pd.read_csv(out / "mallows_clusters.csv")
    np.testing.assert_allclose(clusters["weight"], fit.weights()["weight"], rtol=1e-9)
    alphas = [fit.parameters["alpha[1]"], fit.parameters["alpha[2]"]]
    np.testing.assert_allclose(clusters["alpha"], alphas, rtol=1e-9)
    assignments = pd.read_csv(out / "mallows_assignments.csv")
    assert assignments["cluster"].tolist() == fit.assignments()["cluster"].tolist()
    consensus = pd.read_csv(out / "mallows_consensus.csv")
    assert consensus["cluster 1"].tolist() == fit.clusters[0].order
    assert sorted([fit.clusters[0].order, fit.clusters[1].order]) == [
        list("abcdef"), list("fedcba")
    ]  # fmt: skip
    top = pd.read_csv(out / "mallows_top_k.csv")
    pd.testing.assert_frame_equal(top, fit.top_k(2), check_exact=False, rtol=1e-9)
    assert "new assessor (cluster unknown)" in text


def test_cluster_options_are_refused_where_they_do_not_apply(two_groups, capsys):
    base = ["fit", str(two_groups), "--format", "rank-matrix"]
    assert main([*base, "--model", "pl", "--clusters", "2", "--method", "mle"]) == 2
    assert "--clusters is a Mallows option" in capsys.readouterr().err
    assert main([*base, "--model", "mallows", "--clusters", "41"]) == 2
    assert "--clusters 41 is more than the 40 assessors" in capsys.readouterr().err
    assert main([*base, "--model", "mallows", "--clusters", "2", "--method", "map"]) == 2
    assert "--method mcmc (sampled) or mle (EM)" in capsys.readouterr().err
    assert main([*base, "--model", "pl", "mallows", "--compare", "--clusters", "2"]) == 2
    assert "--clusters applies to one Mallows fit" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main([*base, "--model", "mallows", "--clusters", "0"])


def test_a_preferences_file_is_fitted_as_the_library_fits_it(tmp_path, capsys):
    path = tmp_path / "prefs.csv"
    rows = [(j, "a", "b") for j in range(5)] + [(j, "b", "c") for j in range(5)]
    pd.DataFrame(rows, columns=["who", "top", "bottom"]).to_csv(path, index=False)
    out = tmp_path / "out"
    args = ["fit", str(path), "--format", "preferences", "--model", "mallows", "--ranker", "who"]
    options = ["--preferred", "top", "--other", "bottom", "--distance", "footrule"]
    code = main([*args, *options, "--no-progress", "--out", str(out), *SETTINGS])
    assert code == 0
    prefs = rs.read_preferences(path, "who", "top", "bottom")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = rs.models.Mallows(distance="footrule").fit(
            prefs, draws=100, tune=400, chains=2, max_draws=100, progress=False
        )
    table = pd.read_csv(out / "mallows_consensus.csv")
    assert table["system"].tolist() == fit.order == ["a", "b", "c"]
    np.testing.assert_allclose(table["position"], fit.worth[fit.order], rtol=1e-9)


def test_preferences_are_refused_one_line(tmp_path, capsys):
    cycle = tmp_path / "cycle.csv"
    cycle.write_text("assessor,preferred,other\n1,a,b\n1,b,c\n1,c,a\n2,a,b\n")
    base = ["fit", str(cycle), "--format", "preferences"]
    assert main([*base, "--model", "mallows"]) == 2
    err = capsys.readouterr().err
    assert "assessor '1' states preferences with a cycle: a ≻ b ≻ c ≻ a" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    good = tmp_path / "good.csv"
    good.write_text("assessor,preferred,other\n1,a,b\n")
    assert main(["fit", str(good), "--format", "preferences", "--model", "pl"]) == 2
    assert "fitted by --model mallows only" in capsys.readouterr().err
    assert main(["fit", "--preferences", "beach", "--model", "bt"]) == 2
    assert "fitted by --model mallows only" in capsys.readouterr().err
    assert main(["fit", str(good), "--format", "preferences", "--model", "mallows",
                 "--method", "map"]) == 2  # fmt: skip
    assert "--method mcmc only" in capsys.readouterr().err
    missing = tmp_path / "missing.csv"
    missing.write_text("assessor,top,other\n1,a,b\n")
    assert main(["fit", str(missing), "--format", "preferences", "--model", "mallows"]) == 2
    assert "no column 'preferred' for --preferred" in capsys.readouterr().err


def test_mistaken_preferences_on_the_command_line(tmp_path, capsys):
    path = tmp_path / "cycles.csv"
    rows = [(j, "a", "b") for j in range(6)] + [(j, "b", "c") for j in range(6)]
    rows += [(6, "c", "a"), (6, "a", "b"), (6, "b", "c")]
    pd.DataFrame(rows, columns=["assessor", "preferred", "other"]).to_csv(path, index=False)
    base = ["fit", str(path), "--format", "preferences", "--model", "mallows"]
    assert main([*base, "--out", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err
    assert "a ≻ b ≻ c ≻ a" in err and "--error-model bernoulli fits preferences" in err
    out = tmp_path / "out"
    options = ["--distance", "footrule", "--error-model", "bernoulli", "--no-progress"]
    assert main([*base, *options, "--out", str(out), *SETTINGS]) == 0
    text = capsys.readouterr().out
    assert "error probability of a stated preference" in text and "--error-model bernoulli" in text
    assert pd.read_csv(out / "mallows_consensus.csv")["system"].tolist() == ["a", "b", "c"]
    assert main(["fit", "--rankings", "salad", "--model", "mallows", "--error-model",
                 "bernoulli"]) == 2  # fmt: skip
    assert "not rankings" in capsys.readouterr().err
