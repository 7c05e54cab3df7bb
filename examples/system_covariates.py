"""How much of a leaderboard does model size explain? Rank models with system covariates and a
system random effect.

Run: ``python examples/system_covariates.py`` (a few seconds; maximum likelihood), or
``python examples/system_covariates.py --posterior`` (also the three posteriors by NUTS and
their comparison by PSIS-LOO; about a minute).

open_clip's zero-shot leaderboard (bundled: 121 CLIP models × 38 tasks, with each model's
parameter count and FLOPs; ``rankstats/datasets/data/PROVENANCE.md``) is ranked task by task.
Plackett–Luce, the likelihood of the task rankings themselves, is fitted three ways: one worth
per model (free), log-worth = log(parameters)·β₁ + log(FLOPs)·β₂ (size only), and size plus a
random effect u ~ N(0, σ²) per model (size + u: what size does not explain, shrunk towards it).
"""

import sys

import numpy as np
import pandas as pd

import rankstats as rs

scores = rs.load_dataset("openclip")
raw = pd.read_csv(rs.datasets.data_path("openclip_results.csv"))
covariates = pd.DataFrame(
    {
        "log_params": np.log(raw["params (M)"].to_numpy()),
        "log_flops": np.log(raw["FLOPs (B)"].to_numpy()),
    },
    index=raw["name"] + " / " + raw["pretrained"],  # the systems' names in the Scores
)
models = {
    "free": rs.models.PlackettLuce(),
    "size": rs.models.PlackettLuce(covariates=covariates),
    "size + u": rs.models.PlackettLuce(covariates=covariates, random_effect=True),
}
fits = {name: model.fit(scores, method="mle") for name, model in models.items()}
for name in ("size", "size + u"):
    fit = fits[name]
    effects = ", ".join(
        f"{k[6:]} {fit.parameters[k]:.3f} (s.e. {fit.parameters[k + '_se']:.3f})"
        for k in fit.parameters
        if k.startswith("beta: ") and not k.endswith("_se")
    )
    sigma = f", σ = {fit.parameters['sigma']:.2f}" if "sigma" in fit.parameters else ""
    print(f"{name}: β {effects}{sigma}; log-likelihood {fit.log_likelihood:,.1f}")
print(f"free: log-likelihood {fits['free'].log_likelihood:,.1f}")
# Where would a model of 1,000 M parameters and 500 GFLOPs land? Its log-worth on the scale of
# fit.worth, with a 95 % interval: for an average model of that size, and for one new model
# (its own random effect added).
planned = pd.DataFrame({"log_params": [np.log(1000.0)], "log_flops": [np.log(500.0)]})
mixed = fits["size + u"]
for new_system in (False, True):
    p = rs.models.predict_worth(mixed, planned, new_system=new_system).iloc[0]
    above = int((mixed.worth > p["estimate"]).sum())
    label = "one new model" if new_system else "the average model"
    print(
        f"1,000 M parameters, 500 GFLOPs, {label}: log-worth {p['estimate']:.2f} "
        f"[{p['low']:.2f}, {p['high']:.2f}]; {above} of {len(mixed.worth)} models above it"
    )
gap = (fits["free"].worth - fits["size"].worth).sort_values()
print("most above what their size predicts:", ", ".join(gap.index[-3:][::-1]))
print("most below:", ", ".join(gap.index[:3]))

if "--posterior" in sys.argv:
    posteriors = {
        name: model.fit(scores, method="nuts", progress=False, seed=1)
        for name, model in models.items()
    }
    for name, fit in posteriors.items():
        shown = {k: round(v, 3) for k, v in fit.parameters.items() if "beta" in k or "sigma" in k}
        print(f"posterior, {name}: {shown}; converged: {fit.info['converged']}")
    print(rs.models.compare_fits(posteriors))
