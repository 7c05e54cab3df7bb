r"""Bayesian Mallows model with Kendall distance for partial rankings and ties.

.. math:: P(\pi \mid \sigma, \theta) = \frac{e^{-\theta\, d(\pi, \sigma)}}{Z_n(\theta)},
          \qquad \log Z_n(\theta) = \sum_{j=1}^{n} \log\frac{1 - e^{-j\theta}}{1 - e^{-\theta}},

with :math:`d` the Kendall distance, consensus :math:`\sigma` uniform a priori and dispersion
:math:`\theta > 0`.  Sub-rankings, top-k rankings and ties are handled through latent complete
rankings: an unranked item's position and the order inside a tied group are latent.

Why not PyMC: :math:`\sigma` is a permutation (discrete, :math:`n!` values) and the latent
completions are permutations too; NUTS cannot move on them, and every exact full conditional is
cheap (``_mallows_sampler``), so rankstats runs its own Gibbs / slice sampler in NumPy and returns
standard ArviZ data (R-hat, ESS from ArviZ).  References: Mallows (1957); Fligner & Verducci
(1986); Vitelli, Sørensen, Crispino, Frigessi & Arjas (2018), *Probabilistic preference learning
with the Mallows rank model*, JMLR 18 (BayesMallows).
"""

from __future__ import annotations

import json
import sys
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import optimize

from rankstats.errors import InvalidRankingsError
from rankstats.models import _compat
from rankstats.models._fit import (
    ESS_MIN,
    RHAT_MAX,
    Fit,
    register_model,
    warn_convergence,
)
from rankstats.models._mallows_math import log_z, pair_probability
from rankstats.models._mallows_sampler import pair_counts, run_chain, total_distance
from rankstats.rankings import Rankings, default_level
from rankstats.scores import Scores

PRIORS = ("gamma", "bayesmallows")


def mallows_pairs(draws: dict[str, np.ndarray], rows: np.ndarray) -> np.ndarray:
    """``P(row item above column item)`` for every draw of (σ positions, θ)."""
    pos = draws["position"]
    theta = draws["theta"].reshape(-1, 1, 1)
    gap = pos[:, None, :] - pos[:, rows, None]  # > 0: the row item is above in σ
    p = pair_probability(np.maximum(np.abs(gap), 1), theta)
    return np.where(gap > 0, p, np.where(gap < 0, 1 - p, 0.5))


@dataclass(frozen=True, eq=False, repr=False)
class MallowsFit(Fit):
    """A fitted Mallows model: :class:`~rankstats.models.Fit` with a Kemeny consensus summary.

    ``worth`` is the posterior mean consensus position (1 = best); ``order`` is the ranking that
    minimises the expected Kendall distance to the posterior draws of σ (their Kemeny consensus,
    solved exactly by :func:`rankstats.kemeny` within 60 s, else its best heuristic with a gap).
    """

    @property
    def order(self) -> list[str]:
        return list(self.info["consensus"])

    def point(self) -> dict[str, np.ndarray]:
        theta = self.theta if np.isfinite(self.theta) else 50.0
        return {"position": self.worth.to_numpy()[None, :], "theta": np.array([theta])}

    @property
    def theta(self) -> float:
        """Posterior mean (``mcmc``) or maximum-likelihood (``map``) dispersion θ."""
        return float(self.parameters["theta"])

    def _objective_label(self) -> str:
        # "map" maximises the likelihood in θ (σ has a uniform prior).
        return "log-likelihood"


def _persisted(
    theta: float, consensus: list[str], n_rankings: int, problems: list[str]
) -> dict[str, object]:
    """Attributes that let :meth:`Fit.from_idata` rebuild a :class:`MallowsFit` from NetCDF."""
    return {
        "param_theta": theta,
        "info_consensus": json.dumps(consensus),
        "info_n_rankings": n_rankings,
        "info_convergence_problems": json.dumps(problems),
    }


def from_attributes(fit: Fit) -> MallowsFit:
    """The :class:`MallowsFit` of a generic :class:`Fit` read back from NetCDF."""
    info = dict(fit.info)
    for key in ("consensus", "convergence_problems"):
        if isinstance(info.get(key), str):
            info[key] = json.loads(info[key])
    if "kemeny_optimal" in info:
        info["kemeny_optimal"] = bool(info["kemeny_optimal"])
    return MallowsFit(
        model=fit.model,
        method=fit.method,
        systems=fit.systems,
        idata=fit.idata,
        worth=fit.worth.rename("position"),
        log_likelihood=fit.log_likelihood,
        parameters=fit.parameters,
        info=info,
    )


register_model(
    "mallows", mallows_pairs, variable="position", higher_is_better=False, rebuild=from_attributes
)


def _consensus_of_draws(positions: np.ndarray, systems: tuple[str, ...]) -> list[str]:
    from rankstats.kemeny import kemeny
    from rankstats.pairwise import Pairwise

    wins = np.count_nonzero(positions[:, :, None] < positions[:, None, :], axis=0).astype(float)
    n = len(systems)
    compared = np.full((n, n), float(len(positions)))
    np.fill_diagonal(compared, 0.0)
    pw = Pairwise(wins, wins, compared, len(positions), systems, np.full(n, float(len(positions))))
    return list(kemeny(pw, method="auto", time_limit=60).order)


def _convergence(theta: np.ndarray, pos: np.ndarray) -> list[str]:
    """R-hat / ESS problems of θ and of the consensus positions that vary at all (a position
    that is the same in every draw is certain, not unconverged: its R-hat is undefined)."""
    import xarray as xr

    varying = pos.reshape(-1, pos.shape[-1]).std(axis=0) > 0
    data = xr.Dataset(
        {
            "theta": (("chain", "draw"), theta),
            "position": (("chain", "draw", "item"), pos[:, :, varying]),
        }
    )
    diag = _compat.diagnostics(data)
    problems = []
    names = ["theta"] + (["position"] if varying.any() else [])
    rhat = max(float(np.nanmax(diag["r_hat"][v].to_numpy())) for v in names)
    ess = min(float(np.nanmin(diag["ess_bulk"][v].to_numpy())) for v in names)
    if not np.isfinite(rhat) or rhat > RHAT_MAX:
        problems.append(f"max R-hat = {rhat:.3f} > {RHAT_MAX}")
    if not np.isfinite(ess) or ess < ESS_MIN:
        problems.append(f"min bulk ESS = {ess:.0f} < {ESS_MIN}")
    return problems


class Mallows:
    """Bayesian Mallows (Kendall) model.

    Parameters
    ----------
    prior : {"gamma", "bayesmallows"}
        ``"gamma"`` (default): θ ~ Gamma(shape, rate), default shape 1, rate 0.1 (an exponential
        with mean 10: weak, since rankings of benchmark tasks typically give θ between 0.05 and
        2). ``"bayesmallows"``: the parametrisation of the BayesMallows R package, α = n θ with
        α ~ Exponential(rate 0.001), i.e. θ ~ Exponential(rate 0.001 n).
    shape, rate : float
        Gamma prior parameters (``prior="gamma"``).

    Examples
    --------
    >>> import rankstats as rs
    >>> rk = rs.Rankings.from_orderings([["a", "b", "c"], ["b", "a", "c"], ["a", "c"]] * 5)
    >>> fit = rs.models.Mallows().fit(rk, draws=3000, tune=500, chains=2, progressbar=False)
    >>> fit.order
    ['a', 'b', 'c']
    """

    def __init__(self, prior: str = "gamma", shape: float = 1.0, rate: float = 0.1) -> None:
        if prior not in PRIORS:
            raise ValueError(f"prior must be one of {PRIORS}, not {prior!r}")
        if shape <= 0 or rate <= 0:
            raise ValueError(f"Gamma prior needs shape > 0 and rate > 0 (got {shape}, {rate})")
        self.prior, self.shape, self.rate = prior, shape, rate

    def _log_prior(self, n: int):
        if self.prior == "bayesmallows":
            rate = 0.001 * n
            return lambda t: -rate * t
        shape, rate = self.shape, self.rate
        return lambda t: (shape - 1) * np.log(t) - rate * t

    @staticmethod
    def _prepare(data: Rankings | Scores) -> Rankings:
        if isinstance(data, Scores):
            data = Rankings.from_scores(data, by=default_level(data))
        if not isinstance(data, Rankings):
            raise TypeError(f"Mallows.fit takes Rankings or Scores, not {type(data).__name__}")
        counts = (~np.isnan(data.ranks)).sum(axis=1)
        short = np.flatnonzero(counts < 2)
        if len(short):
            raise InvalidRankingsError(
                f"ranking(s) {list(data.rankers[short][:5])} rank fewer than two systems; "
                "drop them (they carry no information)"
            )
        never = [
            s
            for s, c in zip(data.systems, (~np.isnan(data.ranks)).sum(axis=0), strict=True)
            if c == 0
        ]
        if never:
            raise InvalidRankingsError(
                f"system(s) {never[:5]} appear in no ranking: their consensus position is "
                "determined by the prior only; remove them"
            )
        return data

    def fit(
        self,
        data: Rankings | Scores,
        method: str = "mcmc",
        draws: int = 1000,
        tune: int = 500,
        chains: int = 4,
        seed: int | None = 0,
        progressbar: bool = True,
    ) -> MallowsFit:
        """Fit by MCMC (Gibbs + slice sampling) or MAP (Kemeny consensus + ML dispersion).

        Parameters
        ----------
        data : Rankings or Scores
            Partial rankings (NaN = unranked; ties allowed).
        method : {"mcmc", "map"}
            ``map``: σ = the exact Kemeny consensus and θ solving the maximum-likelihood
            equation :math:`E_\\theta[d] = \\bar d` (complete rankings only: with unranked items
            the marginal likelihood is not that of a Kemeny problem — use ``mcmc``).
        draws, tune, chains : int
            Kept sweeps per chain, discarded sweeps, number of chains.
        seed : int
            Chains are seeded by ``SeedSequence(seed).spawn(chains)``.
        progressbar : bool
            Progress on stderr.

        Returns
        -------
        MallowsFit
            ``idata`` (posterior: ``theta`` and ``position`` of each system in σ), ``worth``
            (posterior mean position), ``order``, ``pairwise()``, ``rank_distribution()``,
            ``summary()`` (R-hat, ESS, MCSE).
        """
        rk = self._prepare(data)
        if method == "map":
            return self._fit_map(rk)
        if method != "mcmc":
            raise ValueError(f"method must be 'mcmc' or 'map', not {method!r}")
        if draws < 1 or tune < 0 or chains < 1:
            raise ValueError("need draws ≥ 1, tune ≥ 0, chains ≥ 1")
        n = rk.n_systems
        from rankstats.aggregate import aggregate

        start = np.array([rk.systems.index(s) for s in aggregate(rk, method="borda").order])
        log_prior = self._log_prior(n)
        thetas, positions = [], []
        total = chains * (tune + draws)
        interrupted = False
        for c, seq in enumerate(np.random.SeedSequence(seed).spawn(chains)):

            def report(sweep: int, c: int = c) -> None:
                done = c * (tune + draws) + sweep + 1
                if progressbar and (done % max(1, total // 50) == 0 or done == total):
                    sys.stderr.write(f"\rMallows Gibbs sampler: {done}/{total} sweeps")
                    if done == total:
                        sys.stderr.write("\n")

            try:
                t, p = run_chain(
                    rk.ranks,
                    draws,
                    tune,
                    log_prior,
                    np.random.default_rng(seq),
                    start,
                    callback=report,
                )
            except KeyboardInterrupt as err:
                interrupted = True
                if len(err.args) == 3 and len(err.args[1]) > 1 and not thetas:
                    thetas.append(err.args[1])
                    positions.append(err.args[2])
                break
            thetas.append(t)
            positions.append(p)
        if not thetas:
            raise KeyboardInterrupt("interrupted before any draw was kept")
        if interrupted:
            warnings.warn(
                "sampling interrupted: the fit holds the chains finished so far",
                RuntimeWarning,
                stacklevel=2,
            )
        length = min(len(t) for t in thetas)
        theta = np.stack([t[:length] for t in thetas])
        pos = np.stack([p[:length] for p in positions])
        idata = _compat.from_dict(
            {"theta": theta, "position": pos},
            coords={"system": list(rk.systems)},
            dims={"position": ["system"]},
            attrs={
                "rankstats_model": "mallows",
                "rankstats_method": "mcmc",
                "prior": self.prior,
                "shape": self.shape,
                "rate": self.rate,
                "draws": draws,
                "tune": tune,
                "chains": chains,
                "seed": str(seed),
            },
        )
        problems = _convergence(theta, pos) if chains > 1 else []
        warn_convergence(
            problems,
            hint="run longer chains (draws=, tune=) or more chains; items whose consensus "
            "positions swap freely (weak data) mix slowly",
        )
        flat_pos = pos.reshape(-1, n)
        consensus = _consensus_of_draws(flat_pos, rk.systems)
        _compat.set_attrs(
            idata, _persisted(float(theta.mean()), consensus, rk.n_rankings, problems)
        )
        return MallowsFit(
            model="mallows",
            method="mcmc",
            systems=rk.systems,
            idata=idata,
            worth=pd.Series(flat_pos.mean(axis=0), index=list(rk.systems), name="position"),
            parameters={"theta": float(theta.mean())},
            info={
                "n_rankings": rk.n_rankings,
                "prior": self.prior,
                "consensus": consensus,
                "convergence_problems": problems,
                "interrupted": interrupted,
            },
        )

    def _fit_map(self, rk: Rankings) -> MallowsFit:
        from rankstats.kemeny import kemeny

        observed = ~np.isnan(rk.ranks)
        if not observed.all() or np.any(rk.ranks % 1 != 0):
            raise ValueError(
                "method='map' needs complete rankings without ties (the Kemeny consensus is the "
                "MAP of σ only then); use method='mcmc' for partial or tied rankings"
            )
        n, n_rankings = rk.n_systems, rk.n_rankings
        result = kemeny(rk, method="auto", time_limit=60)
        index = {s: i for i, s in enumerate(rk.systems)}
        sigma_pos = np.empty(n, dtype=np.int64)
        sigma_pos[[index[s] for s in result.order]] = np.arange(n)
        positions = (rk.ranks - 1).astype(np.int64)
        mean_d = total_distance(pair_counts(positions), sigma_pos) / n_rankings
        from rankstats.simulate import mallows_expected_distance

        max_d = n * (n - 1) / 4  # E[d] at θ → 0
        if mean_d <= 0:
            theta = np.inf
        elif mean_d >= max_d:
            theta = 0.0
        else:
            theta = optimize.brentq(lambda t: mallows_expected_distance(n, t) - mean_d, 1e-9, 50.0)
        finite = theta if np.isfinite(theta) else 50.0
        idata = _compat.from_dict(
            {"theta": np.full((1, 1), finite), "position": (sigma_pos + 1.0)[None, None, :]},
            coords={"system": list(rk.systems)},
            dims={"position": ["system"]},
            attrs={"rankstats_model": "mallows", "rankstats_method": "map"},
        )
        loglik = -finite * mean_d * n_rankings - n_rankings * float(log_z(n, finite))
        _compat.set_attrs(
            idata,
            {
                **_persisted(float(theta), list(result.order), n_rankings, []),
                "log_likelihood": loglik,
                "info_kemeny_optimal": int(bool(result.optimal)),
                "info_mean_distance": mean_d,
            },
        )
        return MallowsFit(
            model="mallows",
            method="map",
            systems=rk.systems,
            idata=idata,
            worth=pd.Series(sigma_pos + 1.0, index=list(rk.systems), name="position"),
            log_likelihood=loglik,
            parameters={"theta": float(theta)},
            info={
                "n_rankings": n_rankings,
                "consensus": list(result.order),
                "kemeny_optimal": bool(result.optimal),
                "mean_distance": mean_d,
            },
        )

    def __repr__(self) -> str:
        if self.prior == "bayesmallows":
            return "Mallows(prior='bayesmallows': α = nθ ~ Exp(0.001))"
        return f"Mallows(prior=Gamma(shape={self.shape}, rate={self.rate}))"
