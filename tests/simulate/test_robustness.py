"""Robustness experiments (rs.simulate.robustness / perturbation): the fast path equals
rs.aggregate, determinism, the 2022 ordering, argument checks before any work, and the
generators ← experiments import direction."""

import subprocess
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import rankstats as rs
from rankstats.aggregation.aggregators import estimate
from rankstats.core.metrics import kendall_distance
from rankstats.core.rankings import average_ranks
from rankstats.core.reduction import reduce_scores
from rankstats.simulate import gumbel_cube
from rankstats.simulate.corruptions import Corruptions
from rankstats.simulate.cube_aggregates import cube_aggregate, cube_scores
from rankstats.simulate.robustness_experiments import _cube_arguments


@pytest.mark.parametrize("pattern", ["cell", "block"])
def test_fast_path_equals_aggregate(pattern):
    sim = rs.simulate.gumbel(
        7, 5, 6, phi=0.3, seed=5, missing_rate=0.35, missing_pattern=pattern, round_to=1
    )
    corruptions = Corruptions(missing_rate=0.35, missing_pattern=pattern, round_to=1)
    cube = gumbel_cube(7, 5, 6, 0.3, 1.0, np.random.default_rng(5), corruptions=corruptions)
    for method in ("mean", "borda", "borda2"):
        np.testing.assert_allclose(
            cube_aggregate(cube, method), rs.aggregate(sim, method=method).scores, err_msg=method
        )


def test_fast_path_equals_the_one_estimator_on_the_one_reduction():
    """cube_scores = rankstats.aggregation.aggregators.estimate on
    rankstats.core.reduction.reduce_scores of the same (task, instance) rows: the route of
    rs.aggregate, the streamed scan and the cluster."""
    corruptions = Corruptions(missing_rate=0.3, round_to=1)
    cube = gumbel_cube(8, 5, 6, 0.4, 1.0, np.random.default_rng(3), corruptions=corruptions)
    n_sys, n_tasks, n_inst = cube.shape
    rows = cube.transpose(1, 2, 0).reshape(n_tasks * n_inst, n_sys)
    task = np.repeat(np.arange(n_tasks), n_inst)
    stats = reduce_scores(rows, task, n_tasks, tuple(f"s{i}" for i in range(n_sys)))
    for method, value in cube_scores(cube).items():
        expected = estimate(stats, method).scores.to_numpy()
        np.testing.assert_allclose(value, expected, rtol=1e-12, err_msg=method)


def test_cube_scores_computes_every_method_once_and_refuses_the_others():
    corruptions = Corruptions(missing_rate=0.2)
    cube = gumbel_cube(6, 4, 5, 0.4, 1.0, np.random.default_rng(2), corruptions=corruptions)
    together = cube_scores(cube)
    assert list(together) == ["mean", "borda", "borda2"]
    for method, value in together.items():
        np.testing.assert_array_equal(value, cube_aggregate(cube, method))
    with pytest.raises(ValueError, match="no fast path for 'copeland'"):
        cube_scores(cube, ["borda", "copeland"])


def test_robustness_rows_are_the_metrics_of_the_one_implementation():
    """Each row = metrics.kendall_distance / τ_b of the replicate's ranking against the truth,
    recomputed here from the replicate's own seed."""
    base = {"n_systems": 6, "n_tasks": 5, "n_instances": 4}
    grid = {"phi": [0.3, 0.8]}
    res = rs.simulate.robustness(
        ["borda", "borda2"], grid=grid, n_replications=3, seed=4, base=base
    )
    cell_seeds = np.random.SeedSequence(4).spawn(2)
    args = _cube_arguments({**base, "phi": 0.8})
    sizes = {key: args.pop(key) for key in ("n_systems", "n_tasks", "n_instances", "phi", "scale")}
    truth = np.arange(6, 0, -1.0)
    for rep, seq in enumerate(cell_seeds[1].spawn(3)):
        rng = np.random.default_rng(seq)
        cube = gumbel_cube(seed=rng, corruptions=Corruptions(**args), **sizes)
        for method in ("borda", "borda2"):
            rank = average_ranks(cube_aggregate(cube, method)[None, :])[0]
            t = res.table
            row = t[(t.phi == 0.8) & (t.rep == rep) & (t.aggregator == method)].iloc[0]
            assert row.kendall_distance == kendall_distance(rank, truth) / 15
            assert row.kendall_tau == pytest.approx(stats.kendalltau(rank, truth).statistic)


def test_importing_the_generators_does_not_import_the_experiments():
    """robustness.py imports simulate.py, never the reverse: ``import rankstats.simulate`` loads
    no experiment code, and rs.simulate.robustness & co. are found when they are asked for."""
    code = textwrap.dedent(
        """
        import sys
        import rankstats.simulate as sim
        assert "rankstats.simulate.robustness_experiments" not in sys.modules, "imported early"
        from rankstats.core.metrics import agreement
        from rankstats.simulate.robustness_experiments import perturb, perturbation, robustness
        assert sim.robustness is robustness and sim.perturbation is perturbation
        assert sim.perturb is perturb and sim.agreement is agreement
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        rs.simulate.nope  # noqa: B018


def test_robustness_is_deterministic_and_independent_of_n_jobs():
    kwargs = dict(
        grid={"phi": [0.2, 1.0], "missing_rate": [0.0, 0.3]},
        n_replications=3,
        seed=7,
        base={"n_systems": 6, "n_tasks": 5, "n_instances": 4},
    )
    one = rs.simulate.robustness(**kwargs)
    again = rs.simulate.robustness(**kwargs)
    two = rs.simulate.robustness(n_jobs=2, **kwargs)
    pd.testing.assert_frame_equal(one.table, again.table)
    pd.testing.assert_frame_equal(one.table, two.table)
    assert len(one.table) == 4 * 3 * 3
    assert one.plot(x="phi", panel="missing_rate").axes


def test_two_level_borda_is_the_most_robust_to_manipulation():
    # Colombo et al. (2022, Fig. 2): with adversarial tasks, σ^2l > σ^l > σ^μ.
    res = rs.simulate.robustness(
        grid={"phi": [0.1], "adversarial_tasks": [3, 5]}, n_replications=20, seed=0
    )
    tau = res.summary().groupby("aggregator")["mean"].mean()
    assert tau["borda2"] > tau["borda"] > tau["mean"]
    assert tau["borda2"] - tau["mean"] > 0.5


def test_custom_aggregators_and_registered_names():
    res = rs.simulate.robustness(
        ["copeland", lambda s: rs.aggregate(s, "median")],
        grid={"phi": [1.0]},
        n_replications=2,
        base={"n_systems": 5, "n_tasks": 4, "n_instances": 3},
    )
    assert set(res.table.aggregator) == {"copeland", "<lambda>"}
    with pytest.raises(ValueError, match="unknown simulation parameter"):
        rs.simulate.robustness(grid={"temperature": [1]}, n_replications=1)


def test_perturbation_and_agreement_on_real_data():
    res = rs.simulate.perturbation(
        rs.load_dataset("glue"), grid={"missing_rate": [0.0, 0.3]}, n_replications=3, seed=1
    )
    table = res.summary()
    full = table[table.missing_rate == 0.0]
    assert np.allclose(full["mean"], 1.0)  # nothing removed: every aggregator agrees with itself
    assert (table[table.missing_rate == 0.3]["mean"] < 1.0).all()
    # Two worker processes: the same table (every replicate has its own SeedSequence child).
    parallel = rs.simulate.perturbation(
        rs.load_dataset("glue"),
        grid={"missing_rate": [0.0, 0.3]},
        n_replications=3,
        seed=1,
        n_jobs=2,
    )
    pd.testing.assert_frame_equal(parallel.table, res.table)
    x = rs.load_dataset("xtreme_missing")
    agree = rs.agreement({m: rs.aggregate(x, m) for m in ("mean", "borda")})
    b = rs.aggregate(x, "borda").scores
    m = rs.aggregate(x, "mean").scores
    assert agree.loc[0, "kendall_tau"] == pytest.approx(stats.kendalltau(m, b).statistic)


def _never(*args, **kwargs):
    raise AssertionError("work started before the arguments were checked")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n_replications": 0}, r"n_replications must be an integer ≥ 1, not 0"),
        ({"n_replications": -3}, r"n_replications must be an integer ≥ 1"),
        ({"n_jobs": 0}, r"n_jobs must be a positive integer \(≥ 1\) or -1"),
        ({"n_jobs": -2}, r"n_jobs must be"),
        ({"top_k": 0}, r"top_k"),
        ({"top_k": 9}, r"top_k \(≤ n_systems = 5\)"),
        ({"grid": {"phi": []}}, r"grid\['phi'\] must be a non-empty list"),
        ({"grid": {"missing_rate": [0.1, 1.2]}}, r"missing_rate must be a share in \[0, 1\)"),
        ({"grid": {"adversarial_tasks": [0, 7]}}, r"adversarial_tasks must be an integer in"),
        ({"grid": {"nope": [1]}}, r"unknown simulation parameter"),
        ({"aggregators": []}, r"aggregators must be a non-empty list"),
    ],
)
def test_robustness_counts_are_checked_before_any_work(monkeypatch, kwargs, message):
    from rankstats.simulate import robustness_experiments as mod

    monkeypatch.setattr(mod, "_run_cell", _never)
    monkeypatch.setattr(mod, "run_cells", _never)
    base = {"n_systems": 5, "n_tasks": 4, "n_instances": 3}
    with pytest.raises(ValueError, match=message):
        rs.simulate.robustness(**{"base": base, "n_replications": 2, **kwargs})


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n_replications": 0}, r"n_replications must be an integer ≥ 1"),
        ({"n_jobs": 0}, r"n_jobs must be"),
        ({"grid": {"missing_rate": [1.0]}}, r"missing_rate must be a share in \[0, 1\)"),
        ({"grid": {"keep_tasks": [0]}}, r"keep_tasks must be an integer in \[1, "),
        ({"grid": {"drop_systems": [-1]}}, r"drop_systems must be an integer in \[0, "),
    ],
)
def test_perturbation_counts_are_checked_before_any_work(monkeypatch, kwargs, message):
    from rankstats.simulate import robustness_experiments as mod

    monkeypatch.setattr(mod, "aggregate", _never)
    monkeypatch.setattr(mod, "run_cells", _never)
    with pytest.raises(ValueError, match=message):
        rs.simulate.perturbation(rs.load_dataset("xtreme"), **{"n_replications": 2, **kwargs})
