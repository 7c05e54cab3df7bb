"""The item table and the flags of an :class:`~rankstats.irt.result.IRTFit`."""

from __future__ import annotations

import numpy as np
import pandas as pd


def _se_columns(fit) -> dict[str, np.ndarray]:
    """Standard errors of slope, intercept(s) and guessing, per item, from the covariance."""
    model, items, se = fit.model, fit.em.items, fit.standard_errors
    n = len(items.slope)
    cov = fit.em.covariance
    if model == "rasch":
        # The slope is fixed at 1 (the shared slope is the latent SD: IRTFit.latent_sd_se).
        return {"se_d": se[1:], "cov_ad": np.zeros(n), "se_a": np.full(n, np.nan)}
    if model in ("2pl", "3pl"):
        width = 2 if model == "2pl" else 3
        out = {"se_a": se[0::width], "se_d": se[1::width]}
        out["cov_ad"] = (
            np.full(n, np.nan)
            if cov is None
            else cov[np.arange(n) * width, np.arange(n) * width + 1]
        )
        if model == "3pl":
            g = items.guessing
            out["se_g"] = se[2::3] * g * (1 - g)  # delta method through logit(g)
        return out
    used = ~np.isnan(items.intercept)
    se_d = np.full(items.intercept.shape, np.nan)
    se_d[used] = se[n:]
    return {"se_a": se[:n], "se_d": se_d, "cov_ad": np.full(items.intercept.shape, np.nan)}


def item_table(fit) -> pd.DataFrame:
    """One row per fitted item; graded items get ``d1, d2, ...`` and ``b1, b2, ...``."""
    items, model = fit.em.items, fit.model
    ses = _se_columns(fit)
    values = fit.responses.values
    table = pd.DataFrame({"item": list(fit.responses.items)})
    slope = np.ones(len(items.slope)) if model == "rasch" else items.slope
    table["a"], table["se_a"] = slope, ses["se_a"]
    if model == "graded":
        for k in range(items.intercept.shape[1]):
            table[f"d{k + 1}"] = items.intercept[:, k]
            table[f"se_d{k + 1}"] = ses["se_d"][:, k]
        for k in range(items.intercept.shape[1]):
            table[f"b{k + 1}"] = -items.intercept[:, k] / slope
    else:
        d = items.intercept[:, 0]
        table["d"], table["se_d"] = d, ses["se_d"]
        if model == "3pl":
            table["g"], table["se_g"] = items.guessing, ses["se_g"]
        table["b"] = -d / slope
        # Delta method for b = −d/a: ∇b = (d/a², −1/a).
        var_b = (
            ses["se_d"] ** 2 / slope**2
            + d**2 * ses["se_a"] ** 2 / slope**4
            - 2 * d * ses["cov_ad"] / slope**3
        )
        table["se_b"] = np.sqrt(np.clip(var_b, 0.0, None))
    table["n_systems"] = (~np.isnan(values)).sum(axis=0)
    table["mean_response"] = np.nanmean(values, axis=0)
    return table


#: A slope beyond this is a sign of separation (no finite maximum likelihood estimate).
RUNAWAY_SLOPE = 10.0


def flag_table(fit) -> pd.DataFrame:
    """Items flagged as possibly broken, with the reason."""
    rows = [(name, "left out", reason) for name, reason in fit.excluded.items()]
    items = fit.em.items
    for name, a in zip(fit.responses.items, items.slope, strict=True):
        if fit.model != "rasch" and a < 0:
            rows.append((name, "negative discrimination", f"slope a = {a:.3f} < 0"))
        if fit.model != "rasch" and abs(a) > RUNAWAY_SLOPE:
            rows.append(
                (
                    name,
                    "runaway slope",
                    f"|a| = {abs(a):.3g}: the item separates the systems "
                    "perfectly; fit with a slope prior (ItemPrior(slope_sd=...))",
                )
            )
    vector = items.vector(fit.model)
    if fit.model == "3pl":
        on_bound = np.abs(vector.reshape(-1, 3)) >= 30.0 - 1e-6
        for name, row, g in zip(fit.responses.items, on_bound, items.guessing, strict=True):
            if row.any():
                rows.append((name, "not converged", f"a parameter reached its bound (g = {g:.2g})"))
    if not fit.converged:
        rows.append(
            (
                "(all)",
                "not converged",
                "EM and the L-BFGS polish did not reach the optimum (NotConvergedWarning)",
            )
        )
    return pd.DataFrame(rows, columns=["item", "flag", "detail"])
