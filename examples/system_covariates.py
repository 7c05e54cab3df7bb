"""How much of a leaderboard does model size explain? Bradley–Terry with system covariates.

Run: ``python examples/system_covariates.py`` (a few seconds)

open_clip's zero-shot leaderboard (bundled: 121 CLIP models × 38 tasks, with each model's
parameter count and FLOPs; ``rankstats/datasets/data/PROVENANCE.md``) is ranked task by task.
``rs.models.BradleyTerry(covariates=...)`` makes each model's log-worth a linear function of
log(parameters) and log(FLOPs); the free Bradley–Terry fit (one worth per model) is beside it.
The comparisons are the task rankings broken into pairs (rank breaking), which are not
independent within a task: the standard errors are those of independent comparisons, too small.
"""

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
sized = rs.models.BradleyTerry(covariates=covariates).fit(scores, method="mle")
free = rs.models.BradleyTerry().fit(scores, method="mle")
for name in ("log_params", "log_flops"):
    beta, se = sized.parameters[f"beta: {name}"], sized.parameters[f"beta: {name}_se"]
    print(f"{name}: β = {beta:.3f} (s.e. {se:.3f})")
print(
    f"log-likelihood: size only {sized.log_likelihood:,.1f}, one worth per model "
    f"{free.log_likelihood:,.1f}"
)
gap = (free.worth - sized.worth).sort_values()
print("most above what their size predicts:", ", ".join(gap.index[-3:][::-1]))
print("most below:", ", ".join(gap.index[:3]))
