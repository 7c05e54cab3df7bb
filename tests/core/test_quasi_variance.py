"""Quasi-variances (Firth & de Menezes 2004) against qvcalc's printed examples, exact cases and an
independent optimiser."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import linalg, optimize

from rankstats.core.quasi_variance import quasi_variances

DATA = Path(__file__).resolve().parents[1] / "data"


def _ship_type_covariance() -> tuple[np.ndarray, np.ndarray]:
    """qvcalc's example: the quasi-Poisson log-linear model of McCullagh & Nelder (1989,
    §6.3.2), ``incidents ~ type + year + period`` with offset log(service), service > 0;
    dispersion = Pearson χ² / df (R's quasipoisson), fitted here by statsmodels."""
    sm = pytest.importorskip("statsmodels.api")
    ships = pd.read_csv(DATA / "ships.csv", comment="#")
    ships = ships[ships["service"] > 0]
    factors = ships[["type", "year", "period"]].astype(str)
    x = sm.add_constant(pd.get_dummies(factors, drop_first=True).astype(float))
    model = sm.GLM(
        ships["incidents"], x, family=sm.families.Poisson(), offset=np.log(ships["service"])
    ).fit(scale="X2")
    columns = [c for c in x.columns if c.startswith("type_")]
    cov = np.zeros((5, 5))  # type A is the reference level: its row and column are 0
    cov[1:, 1:] = model.cov_params().loc[columns, columns].to_numpy()
    return cov, np.r_[0.0, model.params[columns].to_numpy()]


def test_ship_damage_example_reproduces_qvcalc():
    # summary(qvcalc(shipmodel, "type"), digits = 4), as printed in qvcalc's reference page.
    cov, estimates = _ship_type_covariance()
    qv = quasi_variances(cov, estimates, list("ABCDE"))
    np.testing.assert_allclose(
        qv.table["estimate"], [0.0, -0.54334, -0.68740, -0.07596, 0.32558], atol=5e-6
    )
    np.testing.assert_allclose(qv.table["se"], [0.0, 0.2309, 0.4279, 0.3779, 0.3067], atol=5e-5)
    np.testing.assert_allclose(
        qv.table["quasi_se"], [0.2010, 0.1127, 0.3753, 0.3239, 0.2322], atol=5e-5
    )
    np.testing.assert_allclose(
        qv.table["quasi_var"], [0.04039, 0.01270, 0.14081, 0.10491, 0.05390], atol=5e-6
    )
    # "Worst relative errors in SEs of simple contrasts (%): -0.7 0.9"
    assert np.round(100 * np.array(qv.worst_pair), 1).tolist() == [-0.7, 0.9]
    # "Worst relative errors over *all* contrasts (%): -2.1 1.6"
    assert np.round(100 * np.array(qv.worst_contrast), 1).tolist() == [-2.1, 1.6]


def test_prestige_example_with_a_negative_quasi_variance():
    # qvcalc's documented lm(prestige ~ type + education) example (car::Prestige): three
    # levels, so the approximation is exact, and one quasi-variance is negative.
    data = pd.read_csv(DATA / "prestige.csv", comment="#").dropna(subset=["type"])
    x = np.column_stack(
        [np.ones(len(data)), data["type"] == "prof", data["type"] == "wc", data["education"]]
    ).astype(float)
    y = data["prestige"].to_numpy()
    beta = np.linalg.lstsq(x, y, rcond=None)[0]
    residual = y - x @ beta
    cov_beta = residual @ residual / (len(y) - x.shape[1]) * np.linalg.inv(x.T @ x)
    cov = np.zeros((3, 3))
    cov[1:, 1:] = cov_beta[1:3, 1:3]
    qv = quasi_variances(cov, np.r_[0.0, beta[1:3]], ["bc", "prof", "wc"])
    table = qv.table.set_index("system")
    np.testing.assert_allclose(table["estimate"], [0.0, 6.142444, -5.458495], atol=5e-7)
    np.testing.assert_allclose(table["se"], [0.0, 4.258961, 2.690667], atol=5e-7)
    np.testing.assert_allclose(table["quasi_var"], [8.261952, 9.876793, -1.022262], atol=5e-7)
    np.testing.assert_allclose(table["quasi_se"].iloc[:2], [2.874361, 3.142737], atol=5e-7)
    assert np.isnan(table.loc["wc", "quasi_se"])
    np.testing.assert_allclose(qv.worst_pair, 0.0, atol=1e-12)
    np.testing.assert_allclose(qv.worst_contrast, 0.0, atol=1e-9)


@pytest.mark.parametrize("reference", [None, 0, 3])
def test_a_covariance_of_quasi_variance_form_is_reproduced_exactly(reference):
    rng = np.random.default_rng(1)
    q = rng.uniform(0.05, 2.0, 6)
    shift = rng.normal(size=6)
    # diag(q) + a 1' + 1 a' changes no difference's variance: any parametrisation of it.
    cov = np.diag(q) + shift[:, None] + shift[None, :] + 3.0
    if reference is not None:  # the estimates relative to one system (its row and column 0)
        t = np.eye(6)
        t[:, reference] -= 1.0
        cov = t @ cov @ t.T
    qv = quasi_variances(cov)
    np.testing.assert_allclose(qv.table["quasi_var"], q, rtol=1e-10)
    np.testing.assert_allclose(qv.pairs["relative_error"], 0.0, atol=1e-10)
    np.testing.assert_allclose(qv.worst_contrast, 0.0, atol=1e-8)
    assert qv.iterations == 0  # the linear start is the exact solution


def _random_covariance(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(n, n + 3))
    return a @ a.T / n + np.diag(rng.uniform(0.1, 1.0, n))


@pytest.mark.parametrize(("n", "seed"), [(4, 0), (9, 1), (25, 2)])
def test_the_optimum_agrees_with_an_independent_optimiser(n, seed):
    cov = _random_covariance(n, seed)
    qv = quasi_variances(cov)
    d = np.diag(cov)
    v = d[:, None] + d[None, :] - 2 * cov
    a, b = np.triu_indices(n, 1)

    def residuals(log_q):  # positivity through the log: another parametrisation, another solver
        q = np.exp(log_q)
        return np.log(q[a] + q[b]) - np.log(v[a, b])

    ref = optimize.least_squares(residuals, np.log(np.diag(cov)), xtol=1e-15, ftol=1e-15)
    np.testing.assert_allclose(qv.table["quasi_var"], np.exp(ref.x), rtol=1e-6)
    np.testing.assert_allclose(
        qv.pairs["relative_error"], np.sqrt(np.exp(residuals(ref.x))) - 1, atol=1e-7
    )


def test_worst_contrast_errors_against_an_orthonormal_contrast_basis():
    cov = _random_covariance(7, 5)
    qv = quasi_variances(cov)
    q = qv.table["quasi_var"].to_numpy()
    # Any orthonormal basis of the contrasts (here the null space of 1') gives the same extremes.
    basis = linalg.null_space(np.ones((1, 7)))
    values = linalg.eigvalsh(basis.T @ np.diag(q) @ basis, basis.T @ cov @ basis)
    np.testing.assert_allclose(qv.worst_contrast, np.sqrt(values[[0, -1]]) - 1, atol=1e-10)
    # and no pair is outside them
    assert qv.worst_contrast[0] <= qv.worst_pair[0] <= qv.worst_pair[1] <= qv.worst_contrast[1]


def test_centred_and_reference_parametrisations_agree_and_intervals():
    cov = _random_covariance(5, 3)
    centre = np.eye(5) - 1 / 5
    t = np.eye(5)
    t[:, 2] -= 1.0
    one = quasi_variances(centre @ cov @ centre, estimates=[1.0, 2.0, 3.0, 4.0, 5.0])
    two = quasi_variances(t @ cov @ t.T)
    np.testing.assert_allclose(one.table["quasi_var"], two.table["quasi_var"], rtol=1e-9)
    ci = one.comparison_intervals(0.95)
    half = 1.959963984540054 * one.table["quasi_se"]
    np.testing.assert_allclose(ci["high"] - ci["low"], 2 * half)
    assert "worst relative errors" in repr(one)


def test_two_systems_split_the_variance_and_bad_input_is_named():
    qv = quasi_variances(np.array([[1.0, 0.2], [0.2, 0.5]]), systems=["a", "b"])
    np.testing.assert_allclose(qv.table["quasi_var"], [0.55, 0.55])
    assert qv.worst_pair == (0.0, 0.0)
    frame = pd.DataFrame(np.eye(3), index=["x", "y", "z"])
    assert quasi_variances(frame).table["system"].tolist() == ["x", "y", "z"]
    with pytest.raises(ValueError, match="systems 'x' and 'y' has variance"):
        quasi_variances(np.ones((3, 3)), systems=["x", "y", "z"])
    with pytest.raises(ValueError, match="square"):
        quasi_variances(np.ones((2, 3)))
    with pytest.raises(ValueError, match="at least 2"):
        quasi_variances(np.ones((1, 1)))
    with pytest.raises(ValueError, match="symmetric"):
        quasi_variances(np.array([[1.0, 0.5, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]))
    with pytest.raises(ValueError, match="one number per system"):
        quasi_variances(np.eye(3), estimates=[1.0, 2.0])
    with pytest.raises(ValueError, match="confidence"):
        quasi_variances(np.eye(3)).comparison_intervals(1.5)


@pytest.mark.parametrize("scale", [1e-6, 1.0, 1e6])
def test_quasi_variances_scale_with_the_covariance(scale):
    # A small covariance (a well-measured battle fit) converges like a large one: q(cC) = c q(C).
    cov = _random_covariance(8, 4)
    base = quasi_variances(cov).table["quasi_var"].to_numpy()
    scaled = quasi_variances(scale * cov)
    np.testing.assert_allclose(scaled.table["quasi_var"], scale * base, rtol=1e-8)
