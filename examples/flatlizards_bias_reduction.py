"""A system that never loses: Whiting et al.'s (2006) flat lizards, by bias-reduced maximum
likelihood (Firth 1993), as BradleyTerry2's ``BTm(..., br = TRUE)``.

Run: ``python examples/flatlizards_bias_reduction.py [DIR]`` (a few seconds).  DIR holds
``flatlizards_contests.csv`` (winner, loser) and ``flatlizards_predictors.csv`` (one row per
lizard), converted from BradleyTerry2's ``flatlizards`` data set; it is GPL-licensed, so
rankstats does not bundle it: the default DIR is the project's shared data folder
(``../shared/data/converted`` beside the checkout), and without it the script says so and stops.

100 contests between 77 male Augrabies flat lizards; each lizard's ability follows its throat
colour (spectral PCs 1 and 3), head length and snout–vent length (SVL).  Lizards 096 and 099
lack the throat measurements, so each keeps an ability of its own — and 096 never lost: its
maximum-likelihood ability is infinite (BTm prints 16.4 ± 1194.5, the point where its
iterations stopped).  The bias-reduced fit is finite, with standard errors.
"""

import sys
from pathlib import Path

import pandas as pd

import rankstats as rs

default = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "converted"
folder = Path(sys.argv[1]) if len(sys.argv) > 1 else default
if not (folder / "flatlizards_contests.csv").exists():
    print(f"flatlizards_contests.csv not found in {folder}: pass the folder that holds it")
    sys.exit(0)
contests = pd.read_csv(folder / "flatlizards_contests.csv")
predictors = pd.read_csv(folder / "flatlizards_predictors.csv", index_col="lizard")
covariates = predictors[["throat.PC1", "throat.PC3", "head.length", "SVL"]]
counts = pd.DataFrame({"item1": contests.winner, "item2": contests.loser, "wins1": 1, "wins2": 0})

model = rs.models.BradleyTerry(covariates=covariates)
try:
    model.fit(counts, method="mle")
except rs.models.MLEDoesNotExistError as err:
    print(f"maximum likelihood: {err}\n")

fit = model.fit(counts, method="mle", bias_reduction=True)
# BTm's maximum-likelihood table (BradleyTerry2's tests/flatlizards.Rout.save; Whiting et al.
# 2006, Table 1), beside the bias-reduced estimates.
btm = {
    "beta: throat.PC1": (-0.0926, 0.0291),
    "beta: throat.PC3": (0.3421, 0.1109),
    "beta: head.length": (-1.1252, 0.4944),
    "beta: SVL": (0.1883, 0.0985),
    "own: lizard096": (16.4245, 1194.5203),
    "own: lizard099": (0.8358, 1.1591),
}
rows = {
    name: {
        "bias-reduced": fit.parameters[name],
        "se": fit.parameters[f"{name}_se"],
        "MLE (BTm)": mle,
        "se (BTm)": se,
    }
    for name, (mle, se) in btm.items()
}
print("Whiting et al.'s model, bias-reduced (Firth) and by maximum likelihood:")
print(pd.DataFrame(rows).T.round(4).to_string())
print(f"\nlog-likelihood at the bias-reduced estimate: {fit.log_likelihood:.3f}")
top = fit.worth.sort_values(ascending=False).head(3)
print("highest abilities:", ", ".join(f"{s} {v:.2f}" for s, v in top.items()))
