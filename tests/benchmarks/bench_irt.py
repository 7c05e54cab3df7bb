"""rankstats' 2PL MML fit against girth's (``twopl_mml``) on the same simulated responses.

girth is never a dependency of rankstats: install it apart and put it on the path of this script
only, e.g. ``pip install --target /tmp/girth girth`` and ``GIRTH_PATH=/tmp/girth``. The script
runs girth in a subprocess with that path (girth brings its own NumPy and SciPy), rankstats in
this process (standard errors off: girth computes none), and prints the load (``uptime``), the
wall times and the largest differences of the slopes and difficulties.

    python tests/benchmarks/bench_irt.py [--systems 1000] [--items 200] [--seed 0]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

GIRTH = """
import json, sys, time
import numpy as np, girth
values = np.load(sys.argv[1])
start = time.perf_counter()
out = girth.twopl_mml(values.T.astype(int))
seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "a": out["Discrimination"].tolist(),
                  "b": out["Difficulty"].tolist()}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", type=int, default=1000)
    parser.add_argument("--items", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    import rankstats as rs
    from rankstats.irt.simulation import simulate_responses

    print("load before:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    sim = simulate_responses(args.systems, args.items, "2pl", seed=args.seed)
    start = time.perf_counter()
    fit = rs.irt.fit(sim.responses, max_se_parameters=0)
    ours = time.perf_counter() - start
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "values.npy"
        np.save(path, sim.responses.values)
        env = dict(os.environ, PYTHONPATH=os.environ.get("GIRTH_PATH", ""))
        done = subprocess.run(
            [sys.executable, "-c", GIRTH, str(path)], capture_output=True, text=True, env=env
        )
    if done.returncode:
        sys.exit(f"girth failed (is GIRTH_PATH set?): {done.stderr.strip()[-400:]}")
    girth = json.loads(done.stdout)
    print("load after:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    print(f"{args.systems} systems × {args.items} items, 2PL, complete responses")
    print(f"  rankstats {ours:.2f} s ({fit.n_iterations} EM iterations + polish)")
    print(f"  girth     {girth['seconds']:.2f} s")
    print(
        f"  max |Δa| = {np.max(np.abs(fit.items['a'] - girth['a'])):.2g}, "
        f"max |Δb| = {np.max(np.abs(fit.items['b'] - girth['b'])):.2g}"
    )


if __name__ == "__main__":
    main()
