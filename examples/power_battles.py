"""How many battles does a leaderboard need? Power of the battle model's tests (issue 26).

Run: ``python examples/power_battles.py [OUTDIR]`` (about 10 s on 2 cores)

The bundled arena-hard-auto log (2,136 battles of 5 models, every battle against one baseline)
is fitted with ``rs.fit_battles``; ``rs.BattleDesign.from_fit`` turns the fit into a design whose
simulated logs have its ratings, its tie rate and its battles per pair, and ``rs.power`` says how
often such a log separates two neighbours — by the Wald tests of ``BattleFit.differences()`` and
by the leaderboard's rank (UB) rule — and how much the significant differences overstate the
truth (Type M). ``rs.sample_size`` then says how many battles would give power 0.8, and, for a
fresh Chatbot-Arena-like design of 10 models, the smallest rating step that 5,000 battles
detect.
"""

import sys
import warnings
from pathlib import Path

import rankstats as rs
from rankstats.plotting.saving import save_figure

out = Path(sys.argv[1] if len(sys.argv) > 1 else "example-out")
out.mkdir(parents=True, exist_ok=True)
log = rs.read_battles(rs.datasets.battles_path("arena_hard"))
with warnings.catch_warnings():
    warnings.simplefilter("ignore", rs.DataWarning)  # a star design: no order effect
    fit = rs.fit_battles(log, n_resamples=0)
print(fit)
print(fit.differences().round(3).to_string())
best, second = fit.table()["model"][:2]
pilot = rs.BattleDesign.from_fit(fit, log)
now = rs.power(pilot, pair=(best, second), seed=0)
print(now)
print(now.pairs[now.pairs["test"] == "battles"].round(3).to_string())
print(now.sentence("battles", "pair"))
with warnings.catch_warnings():
    warnings.simplefilter("ignore", rs.DataWarning)  # sizes beyond the pilot: said in the sentence
    need = rs.sample_size(
        pilot, search=rs.SizeSearch(target="adjacent"), seed=0, n_replications=500
    )
print(need.sentence())
save_figure(need.plot(), out / "power_arena_hard_battles")
arena = rs.BattleDesign(n_models=10, n_battles=5000, elo_step=20, tie=-1.0, order_effect=0.1)
step = rs.sample_size(arena, search=rs.SizeSearch(vary="elo_step"), seed=0, n_replications=500)
print(step.sentence())
save_figure(step.plot(), out / "power_arena_elo_step")
print(f"\nfigures in {out}/")
