"""Which training data wins on which kind of task? A rank tree of open_clip's leaderboard.

Run: ``python examples/partition_tasks.py [--out DIR] [--check-size R]`` (a few seconds; writes
``partition_tasks.png``; ``--check-size 400`` adds a parametric-bootstrap check of the test's
size in this very design, about ten seconds more)

open_clip's zero-shot leaderboard (bundled: 121 CLIP models × 38 tasks;
``rankstats/datasets/data/PROVENANCE.md``) ranks the models task by task.  Here six models of
one architecture, ViT-B/16, trained on six data sets (OpenAI's WIT, LAION-2B, DataComp-XL,
WebLI, MetaCLIP, DFN-2B), so that a difference between them is a difference between their
training data.  Only six: the instability tests estimate one parameter per model less one from
38 task rankings, and 121 models would leave them undefined (fewer tasks than parameters).

The covariate is each task's family as DataComp's evaluation suite tags it (Gadre et al. 2023;
the ``tags`` of mlfoundations/datacomp's ``tasklist.yml``, whose 38 tasks these are):
``vtab_natural``, ``vtab_specialized``, ``vtab_structured`` (the VTAB groups of Zhai et al.
2019), ``retrieval``, ``wilds``, ``fairness``; the untagged tasks (ImageNet's distribution
shifts, CIFAR-10, MNIST, WinoGAViL, ...) and ImageNet 1k (tagged ``val_task``, DataComp's
validation task, not a family) are ``other``.

``rs.models.rank_tree`` fits Plackett–Luce to the 38 rankings, tests whether the worths change
with the family (the score-based χ² test), and splits if they do at α = 0.05.
"""

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

import rankstats as rs

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--out", default=".", help="directory of the figure (default: here)")
parser.add_argument(
    "--check-size",
    type=int,
    default=0,
    metavar="R",
    help="also simulate R data sets from the root's fitted worths (no instability) and report "
    "how often the root's test rejects at 0.05",
)
args = parser.parse_args()

TAGS = {  # mlfoundations/datacomp, tasklist.yml: the tasks of each tag, by open_clip's names
    "vtab_natural": [
        "Caltech-101",
        "CIFAR-100",
        "Describable Textures",
        "Oxford Flowers-102",
        "Oxford-IIIT Pet",
        "SUN397",
        "SVHN",
    ],
    "vtab_specialized": ["EuroSAT", "PatchCamelyon", "RESISC45"],
    "vtab_structured": ["CLEVR Counts", "CLEVR Distance", "KITTI Vehicle Distance"],
    "retrieval": ["Flickr", "MSCOCO"],
    "wilds": ["iWildCam", "Camelyon17", "FMoW"],
    "fairness": ["Dollar Street", "GeoDE"],
}
MODELS = [
    "ViT-B-16 / openai",
    "ViT-B-16 / laion2b_s34b_b88k",
    "ViT-B-16 / datacomp_xl_s13b_b90k",
    "ViT-B-16-SigLIP / webli",
    "ViT-B-16-quickgelu / metaclip_fullcc",
    "ViT-B-16 / dfn2b",
]

scores = rs.load_dataset("openclip")
tag = {task: name for name, tasks in TAGS.items() for task in tasks}
assert set(tag) <= set(scores.tasks), "every tagged task is in the leaderboard"
covariates = pd.DataFrame(
    {"group": [tag.get(t, "other") for t in scores.tasks]}, index=scores.tasks
)

tree = rs.models.rank_tree(scores, covariates, systems=MODELS, min_size=5)
print(tree)
print()
print(tree.tests().drop(columns=["split", "p_at_floor"]).round(4).to_string(index=False))
print()
print("log-worths (centred), leaf × model:")
print(tree.worths().T.round(3).to_string())
figure = Path(args.out) / "partition_tasks.png"
tree.plot().savefig(figure, dpi=120, bbox_inches="tight")
print(f"\nwrote {figure}")

if args.check_size:
    # Rankings drawn from Plackett–Luce with the root's worths (Gumbel-max), same design: how
    # often does the χ² test reject when nothing changes with the family?
    rng = np.random.default_rng(0)
    worth = tree.node(1).log_worth.to_numpy()
    rejected = 0
    for _ in range(args.check_size):
        keys = worth + rng.gumbel(size=(len(covariates), len(worth)))
        ranks = np.argsort(np.argsort(-keys, axis=1), axis=1) + 1.0
        frame = pd.DataFrame(ranks, index=covariates.index, columns=MODELS)
        null = rs.models.rank_tree(rs.Rankings.from_rank_matrix(frame), covariates, max_depth=0)
        rejected += null.tests()["p_value"].iloc[0] < 0.05
    rate = rejected / args.check_size
    se = np.sqrt(0.05 * 0.95 / args.check_size)
    print(f"size at 0.05 in this design: {rate:.3f} (Monte Carlo s.e. {se:.3f})")
