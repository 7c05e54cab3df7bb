"""Plackett–Luce and Bradley–Terry on classic data: published values, a missing MLE, NUTS.

Run:  python examples/models_plackett_luce.py          (about a minute: one PyMC compile)
      python examples/models_plackett_luce.py --fast   (MLE / MAP only, a second)
"""

from __future__ import annotations

import sys

import rankstats as rs

# 1. Salad dressings: 32 complete rankings of A-D.  The MLE reproduces Critchlow & Fligner (1991).
salad = rs.load_rankings("salad")
fit = rs.models.PlackettLuce().fit(salad, method="mle")
print(fit)
print("\nrelative to A (published: B 2.729914 (0.4481), C 1.561539 (0.3965), D 1.026836 (0.3771)):")
print(fit.relative_to("A").round(4))

# 2. NASCAR 2002: sub-rankings (43 of 87 drivers per race).  Four drivers finished last in every
#    race they entered, so the MLE does not exist; the MAP (prior ZeroSumNormal(1)) does.
nascar = rs.load_rankings("nascar")
try:
    rs.models.PlackettLuce().fit(nascar, method="mle")
except rs.models.MLEDoesNotExistError as err:
    print(f"\nNASCAR MLE: {err}")
nascar_map = rs.models.PlackettLuce().fit(nascar, method="map")
print("\nNASCAR MAP, top 5:", nascar_map.order[:5])

# 3. Puddings: paired comparisons with ties, Davidson (1970) model.
pudding = rs.models.BradleyTerry().fit(rs.load_paired("pudding"), method="mle")
print(f"\npudding tie parameter ν = {pudding.parameters['tie']:.6f} (published 0.746823)")

if "--fast" not in sys.argv:
    # 4. Posterior by NUTS, and how it compares with distribution-free Hoeffding intervals.
    post = rs.models.PlackettLuce().fit(salad, method="nuts", draws=1000, chains=4, seed=0)
    print("\n", post.summary().round(3))
    table = post.pairwise()
    hoeffding = rs.hoeffding(rs.pairwise(salad), order=post.order)
    side = table[["system_a", "system_b", "estimate", "low", "high"]].copy()
    side["hoeffding_low"] = hoeffding["low"].to_numpy()
    side["hoeffding_high"] = hoeffding["high"].to_numpy()
    print("\nP(a above b): PL posterior vs Hoeffding (Holm, δ = 0.05)")
    print(side[side.estimate > 0.5].round(3).to_string(index=False))
    print("\nposterior rank probabilities:\n", post.rank_distribution().round(3))
