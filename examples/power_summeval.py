"""How many documents would SummEval need? Power and sample size from a fitted model (issue 26).

Run: ``python examples/power_summeval.py [OUTDIR]`` (about 1 minute on 2 cores)

SummEval scores 16 summarisers on 100 CNN/DM documents. A Plackett–Luce model fitted to the 100
instance rankings of one metric gives a design whose simulated benchmarks look like the real one
(``rs.BenchmarkDesign.from_fit``); ``rs.power`` then says what the 100 documents can detect and
``rs.sample_size`` how many documents would be needed for Borda (σ^l) to put the true best
summariser first with probability 0.8, and for Nemenyi to separate neighbours with power 0.8.
Last, ``rs.calibrate`` fits a design to the BERTScore scores themselves and reports the smallest
difference between neighbours that the 100 documents detect with the paired t-test.
"""

import sys
from pathlib import Path

import rankstats as rs
from rankstats.plotting.saving import save_figure

out = Path(sys.argv[1] if len(sys.argv) > 1 else "example-out")
out.mkdir(parents=True, exist_ok=True)
summeval = rs.load_dataset("summeval")
for metric in ("BERTScore", "ROUGE_L"):
    scores = summeval.select(tasks=[metric])
    rankings = rs.Rankings.from_scores(scores, by="instance")
    fit = rs.models.PlackettLuce().fit(rankings, method="mle")
    design = rs.BenchmarkDesign.from_fit(fit, n_instances=100)
    gaps = fit.worth.sort_values(ascending=False)
    print(
        f"\n== {metric}: best two {gaps.index[0]}, {gaps.index[1]} (log-worth gap "
        f"{gaps.iloc[0] - gaps.iloc[1]:.3f})"
    )
    now = rs.power(design, tests=["hoeffding", "nemenyi", "sign"], seed=0)
    print(now)
    print(now.recovery.round(3))
    for test, target in (("hoeffding", "borda_top1"), ("nemenyi", "adjacent")):
        need = rs.sample_size(design, test=test, search=rs.SizeSearch(target=target), seed=0)
        print(need.sentence())
        save_figure(need.plot(), out / f"power_{metric}_{target}")
# A design calibrated on the scores themselves (normal scores, one correlation), with its checks,
# and the smallest difference between neighbours the 100 documents detect.
cal = rs.calibrate(summeval.select(tasks=["BERTScore"]))
print(f"\n== calibrated on BERTScore\n{cal}")
print(cal.detectable(test="t").sentence())
save_figure(cal.plot(), out / "calibration_BERTScore")
print(f"\nfigures in {out}/")
