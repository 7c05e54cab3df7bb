"""Write tests/data/girth_irt.json: girth's estimates on LSAT7 and the simulated graded data.

girth (Ryan Sanchez, MIT licence) is never a dependency of rankstats or its tests: install it
apart and run this script with it on the path, e.g.

    pip install --target /tmp/girth girth
    PYTHONPATH=/tmp/girth python tests/benchmarks/girth_reference.py

The tests (tests/irt/test_girth_agreement.py) read the JSON it writes.
"""

import json
from pathlib import Path

import numpy as np
import pandas as pd

DATA = Path(__file__).parents[1] / "data"


def main() -> None:
    import girth  # not installed where the tests collect this file (--doctest-modules)

    pat = pd.read_csv(DATA / "lsat7.csv", comment="#")
    lsat7 = np.repeat(pat.iloc[:, :5].to_numpy(), pat["count"].to_numpy(), axis=0).T
    graded = pd.read_csv(DATA / "graded_sim.csv", comment="#").to_numpy().T + 1  # girth: 1..K
    two = girth.twopl_mml(lsat7)
    one = girth.onepl_mml(lsat7)
    grm = girth.grm_mml(graded)
    out = {
        "source": f"girth {getattr(girth, '__version__', '0.8.0')}: twopl_mml, onepl_mml, "
        "grm_mml with their default options",
        "lsat7_2pl": {"a": two["Discrimination"].tolist(), "b": two["Difficulty"].tolist()},
        "lsat7_1pl": {"a": float(one["Discrimination"]), "b": one["Difficulty"].tolist()},
        "graded": {
            "a": grm["Discrimination"].tolist(),
            "b": np.asarray(grm["Difficulty"]).tolist(),
        },
    }
    (DATA / "girth_irt.json").write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
