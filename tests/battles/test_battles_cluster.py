"""The cluster bootstrap of battles (questions judged several times): issue 23, "battles with
repeated judgments".  Checked against Monte Carlo truth, nominal coverage and the battle
bootstrap (one battle per cluster)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from rankstats.battles.fitting import fit_battles
from rankstats.battles.log import read_battles
from rankstats.errors import DataWarning

THETA = np.array([0.8, 0.3, 0.0, -0.4, -0.7])
ETA, LOG_NU = 0.2, -1.0


def _outcomes(a, b, rng):
    """Davidson BT with order effect: 0 = a wins, 1 = b wins, 2 = tie (vectorised)."""
    ta, tb = THETA[a] + ETA, THETA[b]
    pa, pb, pt = np.exp(ta), np.exp(tb), np.exp(LOG_NU + 0.5 * (ta + tb))
    u = rng.random(len(a)) * (pa + pb + pt)
    return np.where(u < pa, 0, np.where(u < pa + pb, 1, 2))


def clustered_log(n_questions, judgments, copy, seed):
    """Each question: a random ordered pair and a base outcome; each of its ``judgments`` copies
    the base outcome with probability ``copy``, else is a fresh draw.  Every judgment is
    marginally Bradley–Terry(θ), so the MLE estimates θ; judgments of a question correlate."""
    rng = np.random.default_rng(seed)
    n = len(THETA)
    a = rng.integers(0, n, n_questions)
    b = (a + rng.integers(1, n, n_questions)) % n
    base = _outcomes(a, b, rng)
    a_rep, b_rep = np.repeat(a, judgments), np.repeat(b, judgments)
    fresh = _outcomes(a_rep, b_rep, rng)
    keep = rng.random(len(a_rep)) < copy
    outcome = np.where(keep, np.repeat(base, judgments), fresh)
    names = np.array([f"m{k}" for k in range(n)], dtype=object)
    return pd.DataFrame(
        {
            "question": np.repeat(np.arange(n_questions), judgments),
            "model_a": names[a_rep],
            "model_b": names[b_rep],
            "winner": np.array(["a", "b", "tie"], dtype=object)[outcome],
        }
    )


NAMES = [f"m{k}" for k in range(len(THETA))]


def _centred_truth():
    return THETA - THETA.mean()


def _replicates(fit):
    """Bootstrap replicates of the centred log-worths, columns in the order of NAMES."""
    return fit.bootstrap_distribution[:, [fit.models.index(m) for m in NAMES]]


def test_cluster_counts_add_up_to_the_pair_counts():
    frame = clustered_log(60, 3, 0.5, seed=1)
    battles = read_battles(frame, cluster="question")
    assert battles.n_clusters == 60 and battles.cluster == "question"
    cells = battles.cluster_cells()
    pairs = battles.pairs()
    totals = np.asarray(cells.sum(axis=0)).ravel().reshape(-1, 3)
    np.testing.assert_array_equal(totals[:, 0], pairs.wins1)
    np.testing.assert_array_equal(totals[:, 1], pairs.wins2)
    np.testing.assert_array_equal(totals[:, 2], pairs.ties)
    # Independent: battles per question from the rows.
    per_question = frame.groupby("question").size().to_numpy()
    np.testing.assert_array_equal(np.asarray(cells.sum(axis=1)).ravel(), per_question)
    assert "60 clusters (question)" in repr(battles)


def test_cluster_bootstrap_matches_the_monte_carlo_spread():
    """Judgments within a question strongly correlated (4 judgments, 90 % copies): the spread of
    the MLE over repeated logs (Monte Carlo truth) is matched by the cluster bootstrap, and the
    battle bootstrap is far too narrow."""
    q, k, copy = 300, 4, 0.9
    mles = np.array(
        [
            fit_battles(read_battles(clustered_log(q, k, copy, s)), n_resamples=0)
            .ratings("log")
            .loc[NAMES]
            for s in range(200, 260)
        ]
    )
    truth_sd = mles.std(axis=0, ddof=1)
    frame = clustered_log(q, k, copy, seed=7)
    by_cluster = fit_battles(read_battles(frame, cluster="question"), n_resamples=400, seed=1)
    by_battle = fit_battles(read_battles(frame), n_resamples=400, seed=1)
    assert by_cluster.info["bootstrap_unit"] == "cluster (question)"
    sd_cluster = _replicates(by_cluster).std(axis=0)
    sd_battle = _replicates(by_battle).std(axis=0)
    # 60 Monte Carlo logs: sd known to about ±20 %; the bootstrap sd to about ±10 %.
    np.testing.assert_allclose(sd_cluster / truth_sd, 1.0, atol=0.35)
    assert np.all(sd_battle / truth_sd < 0.75)
    width = by_cluster.table(scale="log").set_index("model")
    narrow = by_battle.table(scale="log").set_index("model")
    ratio = (width["bootstrap_high"] - width["bootstrap_low"]) / (
        narrow["bootstrap_high"] - narrow["bootstrap_low"]
    )
    assert (ratio > 1.4).all()


def test_one_battle_per_cluster_is_the_battle_bootstrap():
    """With one battle per cluster, resampling clusters is resampling battles: the replicate
    distributions agree (two-sample Kolmogorov–Smirnov per parameter, and the spreads)."""
    frame = clustered_log(1500, 1, 0.0, seed=3)
    frame["question"] = np.arange(len(frame))
    by_cluster = fit_battles(read_battles(frame, cluster="question"), n_resamples=1500, seed=5)
    by_battle = fit_battles(read_battles(frame), n_resamples=1500, seed=6)
    a, b = _replicates(by_cluster), _replicates(by_battle)
    pvalues = [stats.ks_2samp(a[:, j], b[:, j]).pvalue for j in range(a.shape[1])]
    assert min(pvalues) > 0.001 / len(pvalues)
    np.testing.assert_allclose(a.std(axis=0), b.std(axis=0), rtol=0.12)


@pytest.mark.slow
def test_cluster_bootstrap_covers_at_the_nominal_rate():
    """80 logs of 200 questions × 4 strongly correlated judgments: the 95 % cluster-bootstrap
    intervals of the centred log-worths cover the truth at about 95 %, the battle bootstrap's
    far less.

    Sized on the per-log coverage (share of the 5 models covered; sd 0.10 for the cluster
    bootstrap, 0.23 for the battle bootstrap, over 50 logs): with 80 logs the SE of the mean
    coverage is 0.011 and 0.026, so a true 0.95 lies 3.5 SE inside [0.91, 0.99], a too-narrow
    0.88 fails with probability 0.997, and the battle bootstrap's 0.74 is 4 SE below 0.85."""
    truth = _centred_truth()
    hits_cluster, hits_battle = [], []
    for s in range(80):
        frame = clustered_log(200, 4, 0.9, seed=1000 + s)
        for cluster, hits in (("question", hits_cluster), (None, hits_battle)):
            fit = fit_battles(read_battles(frame, cluster=cluster), n_resamples=300, seed=s)
            t = fit.table(scale="log").set_index("model").loc[NAMES]
            hits.append((t["bootstrap_low"] <= truth) & (truth <= t["bootstrap_high"]))
    cover_cluster = float(np.mean(hits_cluster))
    cover_battle = float(np.mean(hits_battle))
    # 400 interval checks (80 logs × 5 models, correlated within a log): Monte Carlo SE ≈ 0.011.
    assert 0.91 <= cover_cluster <= 0.99, cover_cluster
    assert cover_battle < 0.85, cover_battle


def test_clusters_without_bootstrap_warn():
    frame = clustered_log(40, 2, 0.5, seed=2)
    with pytest.warns(DataWarning, match=r"clusters \(question\) are used by the bootstrap only"):
        fit_battles(read_battles(frame, cluster="question"), n_resamples=0)


def _triangle_log():
    """20 questions of a→b and b→c battles; only question 0 also has a→c, the one pair that
    identifies the order effect (a→b, b→c alone do not)."""
    rows = []
    for q in range(20):
        for a, b in (("a", "b"), ("b", "c")):
            rows += [(q, a, b, w) for w in ("a", "a", "b", "tie", "a", "b")]
    rows += [(0, "a", "c", w) for w in ("a", "a", "a", "b", "tie", "a", "b", "a")]
    return pd.DataFrame(rows, columns=["question", "model_a", "model_b", "winner"])


def test_replicates_that_cannot_identify_the_order_effect_are_counted_not_fitted():
    """A replicate without question 0 has no a→c battle: its order effect is not identified and
    its ratings would be arbitrary.  Such replicates are NaN and counted; they are the
    replicates that never draw question 0, probability (1 − 1/20)^20 = 0.358."""
    battles = read_battles(_triangle_log(), cluster="question")
    with pytest.warns(DataWarning, match="cannot identify the order effect"):
        fit = fit_battles(battles, n_resamples=400, seed=3)
    assert fit.order_effect is True
    failed = fit.info["bootstrap_failed"]
    p = (1 - 1 / 20) ** 20
    assert abs(failed - 400 * p) < 4 * np.sqrt(400 * p * (1 - p)), failed
    assert np.isnan(fit.bootstrap_distribution).all(axis=1).sum() == failed


@pytest.mark.parametrize("styled", [False, True])
def test_one_cluster_is_refused_and_few_clusters_warn(styled):
    """One cluster: every replicate redraws that cluster, i.e. the data itself (zero-width
    intervals): refused naming cluster=; below FEW_CLUSTERS a warning kept in the fit's info.
    The same for the bootstrap of style control (covariates)."""
    from rankstats.battles.fitting import FEW_CLUSTERS
    from rankstats.battles.log_files import InvalidBattlesError

    frame = clustered_log(300, 2, 0.3, seed=4)
    frame["z"] = np.random.default_rng(0).normal(size=len(frame))
    covariates = ["z"] if styled else None
    one = read_battles(frame.assign(question=7), cluster="question", covariates=covariates)
    with pytest.raises(InvalidBattlesError, match=r"needs at least 2 clusters.*cluster="):
        fit_battles(one, n_resamples=20, seed=0)
    with pytest.warns(DataWarning, match="used by the bootstrap only"):
        assert fit_battles(one, n_resamples=0).info["n_clusters"] == 1
    few = frame.assign(question=frame["question"] % 5)
    with pytest.warns(DataWarning, match=f"only 5 clusters \\(fewer than {FEW_CLUSTERS}\\)"):
        fit = fit_battles(read_battles(few, cluster="question", covariates=covariates),
                          n_resamples=20, seed=0)  # fmt: skip
    assert any("only 5 clusters" in w for w in fit.info["warnings"])
    with warnings.catch_warnings():
        warnings.simplefilter("error", DataWarning)  # 300 clusters: no warning
        fit_battles(read_battles(frame, cluster="question", covariates=covariates),
                    n_resamples=20, seed=0)  # fmt: skip
