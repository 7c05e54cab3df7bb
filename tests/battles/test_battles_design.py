"""The order effect of a battle log is estimated only when the design identifies it (issue 23,
item 2 and the star design): decided from which ordered pairs were played, checked against the
rank of the design matrix, never from the counts."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import optimize

from rankstats.battles.design import order_design
from rankstats.battles.fitting import fit_battles
from rankstats.battles.log import InvalidBattlesError, read_battles
from rankstats.errors import DataWarning


def _log(design, counts):
    """Rows of battles: ``counts[k]`` = (wins of a, wins of b, ties) of ordered pair k."""
    rows = []
    for (a, b), (wa, wb, t) in zip(design, counts, strict=True):
        rows += [(a, b, "a")] * wa + [(a, b, "b")] * wb + [(a, b, "tie")] * t
    return pd.DataFrame(rows, columns=["model_a", "model_b", "winner"])


def _rank_identified(n, item1, item2) -> bool:
    """Independent: η is identified iff rank [B | 1] = rank B + 1 (numpy's SVD rank)."""
    k = len(item1)
    incidence = np.zeros((k, n))
    incidence[np.arange(k), item1] = 1.0
    incidence[np.arange(k), item2] = -1.0
    design = np.column_stack([incidence, np.ones(k)])
    return bool(np.linalg.matrix_rank(design) == np.linalg.matrix_rank(incidence) + 1)


def test_identifiability_equals_the_rank_of_the_design_matrix():
    rng = np.random.default_rng(0)
    seen = {True: 0, False: 0}
    for _ in range(600):
        n = int(rng.integers(2, 8))
        ordered = [(a, b) for a in range(n) for b in range(n) if a != b]
        pick = rng.choice(len(ordered), int(rng.integers(1, min(len(ordered), 2 * n) + 1)), False)
        item1 = np.array([ordered[p][0] for p in pick])
        item2 = np.array([ordered[p][1] for p in pick])
        expected = _rank_identified(n, item1, item2)
        assert order_design(n, item1, item2).identified == expected, (item1, item2)
        seen[expected] += 1
    assert min(seen.values()) > 100  # both kinds were tried


@pytest.mark.parametrize(
    ("design", "identified"),
    [
        ([("x", "y")], False),  # one pair, one order
        ([("h", "a"), ("h", "b"), ("h", "c")], False),  # star, baseline first
        ([("h", "a"), ("b", "h"), ("h", "c")], False),  # star, baseline first or second
        ([("a", "b"), ("c", "b"), ("c", "d"), ("a", "d")], False),  # {a, c} always first
        ([("x", "y"), ("y", "x")], True),  # both orders
        ([("a", "b"), ("b", "c"), ("a", "c")], True),  # one order per pair, a cycle breaks it
    ],
)
def test_designs(design, identified):
    models = sorted({m for pair in design for m in pair})
    item1 = np.array([models.index(a) for a, _ in design])
    item2 = np.array([models.index(b) for _, b in design])
    assert order_design(len(models), item1, item2).identified is identified
    assert _rank_identified(len(models), item1, item2) is identified


def _no_order_mle(frame: pd.DataFrame, models: list[str]) -> np.ndarray:
    """Independent: Davidson BT without order effect, maximised by scipy from the rows."""
    index = {m: k for k, m in enumerate(models)}
    a = frame["model_a"].map(index).to_numpy()
    b = frame["model_b"].map(index).to_numpy()
    w = frame["winner"].to_numpy()
    n = len(models)

    def negative(x):
        theta = np.append(x[: n - 1], 0.0)
        ta, tb = theta[a], theta[b]
        tt = x[n - 1] + 0.5 * (ta + tb)
        log_d = np.logaddexp(np.logaddexp(ta, tb), tt)
        chosen = np.where(w == "a", ta, np.where(w == "b", tb, tt))
        return -np.sum(chosen - log_d)

    x = optimize.minimize(negative, np.zeros(n), method="BFGS", options={"gtol": 1e-9}).x
    theta = np.append(x[: n - 1], 0.0)
    return theta - theta.mean()


# Counts for which the fit with an order effect "succeeded" before (zero-width Fisher intervals,
# arbitrary ratings, exit 0): the baseline h is shown first against a and c, second against b.
STAR_MIXED = [("h", "a"), ("b", "h"), ("h", "c")]
STAR_COUNTS = [(23, 21, 3), (21, 21, 11), (9, 24, 23)]


def test_unidentified_order_effect_is_left_out_with_a_warning():
    frame = _log(STAR_MIXED, STAR_COUNTS)
    battles = read_battles(frame)
    with pytest.warns(DataWarning, match=r"order effect is left out.*star design.*order_effect="):
        fit = fit_battles(battles, n_resamples=0)
    assert fit.order_effect is False and fit.log_order is None
    assert "order_effect_dropped" in fit.info and fit.info["warnings"]
    expected = _no_order_mle(frame, list(battles.models))
    np.testing.assert_allclose(fit.log_worth, expected, atol=1e-5)
    widths = fit.table()["fisher_high"] - fit.table()["fisher_low"]
    assert (widths > 1.0).all()  # no zero-width intervals
    with pytest.raises(InvalidBattlesError, match=r"cannot be estimated.*order_effect=False"):
        fit_battles(battles, n_resamples=0, order_effect=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # explicit: no warning
        fit_battles(battles, n_resamples=0, order_effect=False)


def test_identified_without_both_orders_is_estimated():
    """Each pair always in one order, but a→b, b→c, a→c identifies η: no warning, η fitted."""
    design = [("a", "b"), ("b", "c"), ("a", "c")]
    frame = _log(design, [(30, 20, 5), (25, 22, 6), (35, 12, 4)])
    with warnings.catch_warnings():
        warnings.simplefilter("error", DataWarning)
        fit = fit_battles(read_battles(frame), n_resamples=0)
    assert fit.order_effect is True and np.isfinite(fit.log_order)
    assert np.all(np.diag(fit.covariance)[:3] > 0)


def test_arena_hard_star_design_works_by_default(tmp_path, capsys):
    """arena-hard-auto's log (every battle against claude-3-haiku, shown first): the API and the
    CLI both leave the order effect out with a warning naming the option."""
    from rankstats.cli import main
    from rankstats.datasets import battles_path

    path = battles_path("arena_hard")
    with pytest.warns(DataWarning, match="star design"):
        fit = fit_battles(read_battles(path), n_resamples=0)
    assert fit.table()["model"].iloc[0] == "claude-3-5-sonnet-20240620"
    out = tmp_path / "out"
    argv = ["battles", str(path), "--n-resamples", "20", "--no-figures", "--out", str(out)]
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert "warning: the order effect is left out" in captured.err
    assert "--no-order-effect" in captured.err and "order_effect=" not in captured.err
    summary = json.loads((out / "summary.json").read_text())
    assert any("--no-order-effect" in w for w in summary["warnings"])
    assert summary["info"]["order_effect"] is False
    assert main([*argv[:-2], "--order-effect", "--out", str(tmp_path / "o2")]) == 2
    assert "--no-order-effect" in capsys.readouterr().err
