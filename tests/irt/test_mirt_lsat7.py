"""Estimates on LSAT7 / LSAT6 equal mirt's (Chalmers 2012) to the digits mirt's own tests print.

Reference values: tests/testthat/test-01-mirtOne.R and test-15-IRTpars.R of
github.com/philchalmers/mirt at commit 2fc2b236 (mirt's default quadrature for one factor: 61
points on [−6, 6], the grid used here). mirt stops EM at TOL = 1e-4, so its values carry about
three correct decimals; the comparisons are to 1e-3 unless stated. The data: tests/data/lsat7.csv
and lsat6.csv (provenance on their first line).
"""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import rankstats as rs
from rankstats.irt.responses import expand_patterns, responses_from_wide

DATA = Path(__file__).parents[1] / "data"


def lsat(name):
    patterns = pd.read_csv(DATA / f"{name}.csv", comment="#")
    return responses_from_wide(expand_patterns(patterns, "count"))


@pytest.fixture(scope="module")
def lsat7():
    return lsat("lsat7")


@pytest.fixture(scope="module")
def two_pl(lsat7):
    return rs.irt.fit(lsat7, "2pl", tol=1e-6)


def test_data_is_bock_lieberman():
    r = lsat("lsat7")
    assert r.shape == (1000, 5)
    np.testing.assert_array_equal(np.nansum(r.values, axis=0), [828, 658, 772, 606, 843])


def test_2pl_parameters_equal_mirt(two_pl):
    # test-01-mirtOne.R, modm1 (SE.type = "SEM"): a1, d per item.
    a = [0.9876, 1.0808, 1.7075, 0.765, 0.7357]
    d = [1.8559, 0.808, 1.8052, 0.486, 1.8545]
    np.testing.assert_allclose(two_pl.items["a"], a, atol=1e-3)
    np.testing.assert_allclose(two_pl.items["d"], d, atol=1e-3)
    # mirt's printed log-likelihood of mirt(LSAT7, 1) is −2658.805.
    assert two_pl.loglik == pytest.approx(-2658.805, abs=1e-3)


def test_2pl_standard_errors_equal_mirt_richardson(two_pl):
    # test-01-mirtOne.R, modm2 (SE.type = "Richardson"): 95 % intervals estimate ± 1.96 SE.
    low_high = {
        "a": [
            (0.6406, 1.3354),
            (0.7501, 1.4119),
            (1.0779, 2.334),
            (0.5022, 1.028),
            (0.4395, 1.032),
        ],
        "d": [
            (1.5984, 2.1138),
            (0.6291, 0.9869),
            (1.4036, 2.205),
            (0.3392, 0.6328),
            (1.6302, 2.0787),
        ],
    }
    for name, pairs in low_high.items():
        se = np.array([(hi - lo) / (2 * 1.959964) for lo, hi in pairs])
        np.testing.assert_allclose(two_pl.items[f"se_{name}"], se, rtol=0.01)


def test_rasch_equals_mirt(lsat7):
    fit = rs.irt.fit(lsat7, "rasch", tol=1e-6)
    # test-15-IRTpars.R, mod2 / mod3: d, b = −d and SE(d1) = 0.100416.
    d = [1.8680155, 0.7908857, 1.4607798, 0.5214175, 1.9927099]
    np.testing.assert_allclose(fit.items["d"], d, atol=5e-4)
    np.testing.assert_allclose(fit.items["b"], -np.array(d), atol=5e-4)
    assert fit.items["se_d"][0] == pytest.approx(0.100416, abs=2e-4)
    # test-01-mirtOne.R, modm4 (one slope shared by the items): a = 1.011 = the latent SD.
    assert fit.latent_sd == pytest.approx(1.011, abs=1e-3)
    # modm4's interval for the shared slope, 0.885–1.138 (crossprod SEs): SE about 0.065.
    assert fit.latent_sd_se == pytest.approx((1.138 - 0.885) / 3.92, rel=0.05)
    assert np.isnan(fit.items["se_a"]).all()


def test_rasch_lsat6_equals_mirt():
    fit = rs.irt.fit(lsat("lsat6"), "rasch", tol=1e-6)
    # test-01-mirtOne.R, LSAT6 Rasch with SE.type = "SEM": d and the latent variance 0.57.
    np.testing.assert_allclose(fit.items["d"], [2.73, 0.999, 0.24, 1.306, 2.099], atol=2e-3)
    assert fit.latent_sd**2 == pytest.approx(0.57, abs=5e-3)


def test_abilities_equal_mirt(lsat7, two_pl):
    rows = [0, 12, 31]  # the first rows of the patterns 00000, 00001, 00010
    # test-01-mirtOne.R, fm1 / fm2 (EAP, MAP), which mirt checks to 1e-2 itself.
    eap = two_pl.theta[rows]
    np.testing.assert_allclose(eap, [-1.8665957, -1.5266920, -1.5134024], atol=5e-3)
    map_ = rs.irt.fit(lsat7, "2pl", method="MAP", tol=1e-6).theta[rows]
    np.testing.assert_allclose(map_, [-1.8165552, -1.4946906, -1.4822982], atol=2e-3)


def test_s_x2_equals_mirt(two_pl):
    fit = two_pl.item_fit()
    np.testing.assert_allclose(
        fit["s_x2"], [4.749440, 14.451071, 1.270381, 5.237400, 0.941125], rtol=5e-3
    )
    np.testing.assert_array_equal(fit["df"], [2, 2, 2, 2, 2])


def test_3pl_difficulties_equal_mirt(lsat7):
    fit = rs.irt.fit(lsat7, "3pl", tol=1e-4)
    # test-15-IRTpars.R, mod0: b. Item 2's guessing (0.295 in mirt) is weakly determined: the
    # likelihood is flat along it, and mirt stops at TOL = 1e-4, so item 2 is compared loosely.
    b = np.array([-1.85291884, -0.04877029, -1.06840017, -0.65462572, -2.43551721])
    keep = [0, 2, 3, 4]
    np.testing.assert_allclose(fit.items["b"].to_numpy()[keep], b[keep], atol=3e-3)
    assert fit.items["g"][1] == pytest.approx(0.295, abs=0.02)
    assert fit.loglik >= rs.irt.fit(lsat7, "2pl").loglik - 1e-6  # 3PL nests the 2PL


def test_eap_equals_adaptive_integration(lsat7, two_pl):
    """The EAP on the grid against scipy's adaptive quadrature of the same posterior."""
    from scipy.integrate import quad
    from scipy.special import expit

    a, d = two_pl.em.items.slope, two_pl.em.items.intercept[:, 0]
    for row in (0, 12, 31, 999):
        y = lsat7.values[row]

        def density(t, y=y):
            p = expit(a * t + d)
            return np.prod(np.where(y == 1, p, 1 - p)) * np.exp(-t * t / 2)

        mass = quad(density, -12, 12, epsabs=1e-13)[0]
        mean = quad(lambda t: t * density(t), -12, 12, epsabs=1e-13)[0] / mass
        second = quad(lambda t: t * t * density(t), -12, 12, epsabs=1e-13)[0] / mass
        assert two_pl.theta[row] == pytest.approx(mean, abs=1e-4)
        assert two_pl.theta_se[row] == pytest.approx(np.sqrt(second - mean**2), abs=1e-4)
