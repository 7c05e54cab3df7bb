"""Defects found in review of rs.simulate (each test failed before its fix)."""

import numpy as np
import pytest

import rankstats as rs


@pytest.mark.parametrize("phi", [0.0, -0.5, np.nan, np.inf])
def test_gumbel_rejects_a_phi_for_which_the_recorded_truth_would_be_wrong(phi):
    # With φ ≤ 0 system 1 is at least as good as system N, so `.truth` (sysNN first) would be
    # false; NaN / inf give no benchmark at all.
    with pytest.raises(ValueError, match="phi"):
        rs.simulate.gumbel(n_systems=4, n_tasks=3, n_instances=2, phi=phi)


def test_gumbel_truth_matches_the_generating_law_for_a_valid_phi():
    sim = rs.simulate.gumbel(n_systems=5, n_tasks=40, n_instances=50, phi=1.0, seed=3)
    means = sim.to_wide().mean(axis=1).sort_values(ascending=False)
    assert tuple(means.index) == sim.truth


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_plackett_luce_rejects_non_finite_log_worths(bad):
    # A NaN log-worth used to be sorted last silently.
    with pytest.raises(ValueError, match="finite"):
        rs.simulate.plackett_luce([0.0, bad, 1.0], size=3, log=True)


@pytest.mark.parametrize(
    ("argument", "value"),
    [
        ("n_systems", 1),
        ("n_systems", 2.5),
        ("n_tasks", 0),
        ("n_instances", 0),
        ("missing", 1.0),
        ("missing", -0.1),
        ("scale", 0.0),
        ("scale", np.inf),
        ("phi", np.inf),
        ("adversarial_tasks", 4),
        ("adversarial_tasks", -1),
        ("round_to", -1),
        ("outliers", (1.5, 3.0)),
        ("instance_types", (0, 1.0)),
        ("rescale", {"task01": 0.0}),
    ],
)
def test_every_generator_argument_is_checked_and_named(argument, value):
    kwargs = {"n_systems": 4, "n_tasks": 3, "n_instances": 2, argument: value}
    with pytest.raises(ValueError, match=argument):
        rs.simulate.gumbel(**kwargs)


def test_samplers_name_their_bad_counts():
    with pytest.raises(ValueError, match="size must be an integer ≥ 1"):
        rs.simulate.plackett_luce([1.0, 2.0], size=0)
    with pytest.raises(ValueError, match="size"):
        rs.simulate.mallows(3, theta=1.0, size=0)
    with pytest.raises(ValueError, match="theta"):
        rs.simulate.mallows(3, theta=np.inf, size=2)


def _never(*args, **kwargs):
    raise AssertionError("work started before the arguments were checked")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n_rep": 0}, r"n_rep must be an integer ≥ 1, got 0"),
        ({"n_rep": -3}, r"n_rep must be an integer ≥ 1"),
        ({"n_jobs": 0}, r"n_jobs must be a positive integer \(≥ 1\) or -1"),
        ({"n_jobs": -2}, r"n_jobs must be"),
        ({"top_k": 0}, r"top_k"),
        ({"top_k": 9}, r"top_k \(≤ n_systems = 5\)"),
        ({"grid": {"phi": []}}, r"grid\['phi'\] must be a non-empty list"),
        ({"grid": {"missing": [0.1, 1.2]}}, r"missing must be a share in \[0, 1\)"),
        ({"grid": {"adversarial_tasks": [0, 7]}}, r"adversarial_tasks must be an integer in"),
        ({"grid": {"nope": [1]}}, r"unknown simulation parameter"),
        ({"aggregators": []}, r"aggregators must be a non-empty list"),
    ],
)
def test_robustness_counts_are_checked_before_any_work(monkeypatch, kwargs, message):
    from rankstats import robustness as mod

    monkeypatch.setattr(mod, "_run_cell", _never)
    monkeypatch.setattr(mod, "_cell_results", _never)
    base = {"n_systems": 5, "n_tasks": 4, "n_instances": 3}
    with pytest.raises(ValueError, match=message):
        rs.simulate.robustness(**{"base": base, "n_rep": 2, **kwargs})


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n_rep": 0}, r"n_rep must be an integer ≥ 1"),
        ({"n_jobs": 0}, r"n_jobs must be"),
        ({"grid": {"missing": [1.0]}}, r"missing must be a share in \[0, 1\)"),
        ({"grid": {"keep_tasks": [0]}}, r"keep_tasks must be an integer in \[1, "),
        ({"grid": {"drop_systems": [-1]}}, r"drop_systems must be an integer in \[0, "),
    ],
)
def test_perturbation_counts_are_checked_before_any_work(monkeypatch, kwargs, message):
    from rankstats import robustness as mod

    monkeypatch.setattr(mod, "aggregate", _never)
    monkeypatch.setattr(mod, "_cell_results", _never)
    with pytest.raises(ValueError, match=message):
        rs.simulate.perturbation(rs.load_dataset("xtreme"), **{"n_rep": 2, **kwargs})
