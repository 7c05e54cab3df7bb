"""Fitting driver shared by the rank models: ``fit(data, method=...)`` for MLE, MAP and NUTS.

A model class supplies four small pieces (see :class:`RankModel`): how to turn user data into
arrays, the NumPy objective (log-likelihood, optionally + log-prior) for Newton–Raphson, the
comparison graph that decides whether the MLE exists, and the PyMC model for NUTS.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from rankstats._pymc import compat as _compat
from rankstats._pymc import shared
from rankstats._pymc.convergence import check_convergence, warn_convergence
from rankstats._pymc.nuts import SAMPLERS, sample_nuts
from rankstats._util.advice import AdviceError
from rankstats._util.arguments import sampling
from rankstats._util.parallel import resolve_n_jobs
from rankstats._util.renamed import renamed_parameters
from rankstats.core.bradley_terry_mle import (
    check_connected,
    check_strongly_connected,
    firth_newton,
    newton,
)
from rankstats.core.firth import FIRTH, check_bias_reduction
from rankstats.models import information
from rankstats.models._fit import Fit, attrs_for, optimum_fit
from rankstats.models.system_covariates import CovariateMap, covariate_map, free_map
from rankstats.models.worth_prior import Worths, informative

METHODS = ("nuts", "mle", "map", "pql")


class RankModel:
    """Base class of :class:`PlackettLuce` and :class:`BradleyTerry`.

    :class:`~rankstats.models.Mallows` is not one (its consensus is a permutation: no NUTS, no
    Newton–Raphson); it takes the same ``fit`` keywords except ``target_accept`` and
    ``bias_reduction``, has a ``name`` and a ``kind`` too and returns a :class:`Fit`
    (docs/user-guide/mallows.md, "Mallows and the other rank models").
    """

    name: ClassVar[str] = ""
    variable: ClassVar[str] = "log_worth"
    prior_scale: float = 1.0
    #: System covariates (a DataFrame indexed by system) and a system random effect:
    #: :mod:`rankstats.models.system_covariates`, :mod:`rankstats.models.worth_prior`.
    covariates: Any = None
    random_effect: bool = False

    def _set_covariates(self, covariates: Any, random_effect: bool) -> None:
        import pandas as pd

        if covariates is not None and not isinstance(covariates, pd.DataFrame):
            raise TypeError(
                "covariates must be a DataFrame (one row per system, indexed by its name), not "
                f"{type(covariates).__name__}"
            )
        if not isinstance(random_effect, bool | np.bool_):
            raise TypeError(f"random_effect must be True or False, not {random_effect!r}")
        self.covariates = covariates
        self.random_effect = bool(random_effect)

    def _covariate_repr(self) -> str:
        out = ""
        if self.covariates is not None:
            out += f", covariates=[{', '.join(map(str, self.covariates.columns))}]"
        if self.random_effect:
            out += ", random_effect=True"
        return out

    @property
    def structured(self) -> bool:
        """Whether the log-worths are a function of covariates or a random effect."""
        return self.covariates is not None or self.random_effect

    def _worths(self, prepared: Any) -> Worths:
        if not self.structured:
            return Worths.free()
        centred = self.random_effect and informative(
            self._objective(prepared, prior=False),
            len(prepared.systems),
            len(self._extra_names(prepared)),
            self.prior_scale,
        )
        return Worths.from_map(self._covariate_map(prepared.systems), self.random_effect, centred)

    def _covariate_map(self, systems: Any) -> CovariateMap:
        if self.covariates is None:
            return free_map(systems)
        return covariate_map(systems, self.covariates)

    # --------------------------------------------------------------- hooks
    def _prepare(self, data: Any) -> Any:
        raise NotImplementedError

    def _extra_names(self, prepared: Any) -> list[str]:
        return []

    def _objective(self, prepared: Any, prior: bool):
        raise NotImplementedError

    def _beats(self, prepared: Any) -> np.ndarray:
        raise NotImplementedError

    def _pymc_model(self, prepared: Any) -> Any:
        raise NotImplementedError

    def _info(self, prepared: Any) -> dict[str, Any]:
        return {}

    def _order_information(self, data: Any, prepared: Any) -> tuple[Any, float, np.ndarray]:
        """``(rankings or None, order-carrying terms, comparison graph)`` for
        :func:`rankstats.models.information.check`."""
        raise NotImplementedError

    # --------------------------------------------------------------- public
    @renamed_parameters(cores="n_jobs", progressbar="progress")
    def fit(
        self,
        data: Any,
        method: str = "nuts",
        draws: int = 1000,
        tune: int = 1000,
        chains: int = 4,
        seed: int | None = 0,
        sampler: str = "auto",
        progress: bool = True,
        target_accept: float = 0.9,
        n_jobs: int | None = None,
        bias_reduction: bool = False,
    ) -> Fit:
        """Fit the model.

        Parameters
        ----------
        data
            See the class docstring for what each model accepts.
        method : {"nuts", "mle", "map", "pql"}
            ``nuts``: posterior sample by the No-U-Turn sampler (Hoffman & Gelman 2014) in PyMC.
            ``mle``: maximum likelihood by Newton–Raphson in NumPy, standard errors from the
            observed information; raises :class:`~rankstats.models.MLEDoesNotExistError` when
            the comparison graph is not strongly connected.  ``map``: the posterior mode under
            the same prior as ``nuts`` (always exists), by the same Newton–Raphson.  With
            ``random_effect=True``, ``mle`` estimates σ by the Laplace approximation of the
            marginal likelihood and ``pql`` by penalised quasi-likelihood, BradleyTerry2's
            ``BTm`` estimator (:mod:`rankstats.models.random_effect_pql`); ``fit.info
            ["estimator"]`` says which (``"laplace"``, ``"pql"``).
        draws, tune, chains : int
            NUTS draws kept and tuning steps per chain, number of chains.
        seed : int or None
            Seeds the sampler (``nuts``) or the normal-approximation draws (``mle`` / ``map``).
        sampler : {"auto", "pymc", "nutpie"}
            NUTS implementation: ``auto`` (default) runs PyMC's, the faster on small models,
            unless nutpie is installed (the optional ``fast`` extra) and the model has 50
            parameters or more (:func:`rankstats._pymc.nuts.resolve_sampler`).  The choice is
            always passed to PyMC explicitly (pymc 6 would otherwise pick one itself) and
            recorded in ``fit.info["sampler"]``.
        progress : bool
            Show sampling progress (Ctrl-C stops sampling): PyMC's bar, drawn only when stderr
            is a terminal and progress is not silenced (:func:`rankstats._util.progress.show`).
        target_accept : float
            NUTS step-size adaptation target.
        n_jobs : int, optional
            Parallel chains (default ``min(chains, os.cpu_count())``; -1: all cores).
        bias_reduction : bool
            With ``method="mle"``: Firth's (1993) bias-reduced estimate, the likelihood
            penalised by Jeffreys' prior, ½ log det I
            (:mod:`rankstats.core.firth`; BradleyTerry2's ``BTm(..., br = TRUE)``): finite when
            systems never win or never lose, standard errors from the inverse information at
            the estimate; with covariates too, not with a random effect.

        Returns
        -------
        Fit
            ``worth``, ``order``, ``pairwise()``, ``rank_distribution()``, ``summary()``,
            ``idata`` (NUTS: with the pointwise log-likelihood per ranking, or per comparison
            for paired counts, in its ``log_likelihood`` group; see
            :mod:`rankstats.models.pointwise_likelihood`).  NUTS fits that fail the R-hat ≤ 1.01 /
            bulk ESS ≥ 400 / no-divergence checks emit a
            :class:`~rankstats.models.ConvergenceWarning` with advice.
        """
        if method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, not {method!r}")
        sampling(draws, tune, chains, seed)
        n_jobs = resolve_n_jobs(n_jobs)
        if sampler not in SAMPLERS:
            raise ValueError(f"sampler must be one of {SAMPLERS}, not {sampler!r}")
        if method == "pql" and not self.random_effect:
            raise AdviceError(
                "{pql} (penalised quasi-likelihood) estimates a random effect: pass {random} "
                "too, or fit {mle} without one",
                pql=("method", "pql"),
                random=("random_effect", True),
                mle=("method", "mle"),
            )
        check_bias_reduction(bias_reduction, method, self.random_effect)
        if self.structured and method == "map":
            raise ValueError(
                "with system covariates or a random effect, fit by maximum likelihood "
                "(method='mle') or sample the posterior (method='nuts'); 'map' is not available"
            )
        prepared = self._prepare(data)
        systems = tuple(prepared.systems)
        extra = self._extra_names(prepared)
        rankings, n_choices, edges = self._order_information(data, prepared)
        found = information.check(
            self.name,
            rankings,
            n_choices,
            edges,
            systems,
            getattr(self, "kind", "subset"),
            "mle" if method == "pql" else method,
        )
        if self.structured and method in ("mle", "pql"):  # may exist on a disconnected graph
            from rankstats.models.covariate_fit import fit_structured_mle

            return fit_structured_mle(self, prepared, seed, found, method, bias_reduction)
        worths = self._worths(prepared)  # covariate problems before any sampling
        info = {**self._info(prepared), "prior_scale": self.prior_scale, **found, **worths.info()}
        if bias_reduction:
            check_connected(systems, self._beats(prepared))
            info["bias_reduction"] = FIRTH
        elif method == "mle":
            check_strongly_connected(systems, self._beats(prepared))
        if method in ("mle", "map"):
            fitter = firth_newton if bias_reduction else newton
            optimum = fitter(
                self._objective(prepared, prior=method == "map"), len(systems), len(extra)
            )
            return optimum_fit(
                self.name,
                method,
                systems,
                optimum.params,
                optimum.covariance,
                optimum.objective,
                extra,
                info,
                seed,
            )
        fit = self._nuts(
            prepared,
            extra,
            info,
            draws,
            tune,
            chains,
            seed,
            sampler,
            progress,
            target_accept,
            n_jobs,
            worths,
        )
        # The pointwise log-likelihood (ArviZ ``log_likelihood`` group), in NumPy from the draws.
        from rankstats.models import pointwise_likelihood as pointwise

        pointwise.add_to_nuts_fit(self, data, prepared, fit)
        return fit

    def _nuts(
        self,
        prepared,
        extra,
        info,
        draws,
        tune,
        chains,
        seed,
        sampler,
        progress,
        target_accept,
        n_jobs,
        worths: Worths | None = None,
    ) -> Fit:
        import pandas as pd

        worths = worths or Worths.free()
        # One model per structure and process, its data set for this fit; held until sampled.
        with shared.LOCK:
            model = self._pymc_model(prepared)
            idata, sampler = sample_nuts(
                model,
                sampler,
                draws=draws,
                tune=tune,
                chains=chains,
                n_jobs=n_jobs,
                seed=seed,
                progress=progress,
                target_accept=target_accept,
                n_parameters=len(prepared.systems) + len(extra),
                coords={"system": list(prepared.systems), **worths.coords},
            )
        variables = [self.variable, *extra, *worths.variables]
        problems = check_convergence(idata, variables)
        warn_convergence(problems)
        posterior = _compat.group(idata)
        worth = posterior[self.variable].mean(dim=("chain", "draw")).to_numpy()
        parameters = {}
        for name in extra:
            values = posterior[name].to_numpy().ravel()
            parameters[name] = float(values.mean())
            parameters[f"{name}_se"] = float(values.std(ddof=1))
            if name.startswith("log_"):
                natural = np.exp(values)
                parameters[name[4:]] = float(natural.mean())
                parameters[name[4:] + "_se"] = float(natural.std(ddof=1))
        parameters.update(worths.parameters(posterior))
        info = {
            **info,
            "sampler": sampler,
            "draws": draws,
            "tune": tune,
            "chains": chains,
            "seed": seed,
            "target_accept": target_accept,
            "converged": not problems,
            "problems": "; ".join(problems),
        }
        _compat.set_attrs(
            idata, attrs_for(self.name, "nuts", self.variable, None, None, None, parameters, info)
        )
        systems = list(prepared.systems)
        return Fit(
            self.name,
            "nuts",
            tuple(systems),
            idata,
            pd.Series(worth, index=systems, name=self.variable),
            parameters=parameters,
            info=info,
        )
