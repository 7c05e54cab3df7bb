"""Bayesian Mallows on the potato data (12 assessors rank 20 potatoes by sight).

Run: ``python examples/mallows_potato.py``
"""

import rankstats as rs

rk = rs.load_rankings("potato_visual")
fit = rs.models.Mallows().fit(rk, draws=2000, tune=500, chains=4, seed=0)
summary = fit.summary()
print(
    f"θ = {fit.theta:.3f} (95 % interval {summary.loc['theta', 'low']:.3f}–"
    f"{summary.loc['theta', 'high']:.3f}); max R-hat {summary['r_hat'].max():.3f}"
)
print("consensus (Kemeny summary of the posterior):", ", ".join(fit.order))
print(fit.rank_distribution().iloc[:5, :5].round(3))
map_fit = rs.models.Mallows().fit(rk, method="map")
print(f"MAP: θ = {map_fit.theta:.3f}, consensus {', '.join(map_fit.order[:5])}, ...")
