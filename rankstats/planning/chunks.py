"""Replications in seeded chunks, shared by threads, with progress and a clean interrupt.

Both power engines (score tables, :mod:`rankstats.planning.replications`; battle logs,
:mod:`rankstats.planning.battle_replications`) run here: chunks of a size fixed by the design,
one child of ``SeedSequence(seed)`` each, so the same seed gives the same numbers on every
machine and with any number of threads; the results are joined in chunk order.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from rankstats._util.progress import meter

#: What a chunk returns: kind (``"decisions"``, ``"estimates"``, ...) → key → array over its
#: replications (first axis).
Parts = dict[str, dict[str, np.ndarray]]


def run_chunks(
    n_replications: int,
    per_chunk: int,
    seed: int,
    work: Callable[[int, np.random.SeedSequence], Parts],
    progress: bool = True,
    n_jobs: int = -1,
) -> tuple[Parts, int, bool]:
    """``work(count, seed_sequence)`` for every chunk: ``(joined parts, replications done,
    complete)``.

    An interrupt (Ctrl-C) stops after the chunks under way: the replications done are
    returned with ``complete=False`` (an interrupt before the first chunk is raised).
    """
    n_chunks = -(-n_replications // per_chunk)
    children = np.random.SeedSequence(seed).spawn(n_chunks)

    def run(c: int) -> tuple[int, Parts]:
        count = min(per_chunk, n_replications - c * per_chunk)
        return count, work(count, children[c])

    parts: list[Parts] = []
    done, complete = 0, True
    workers = min(n_chunks, (os.cpu_count() or 1) if n_jobs == -1 else n_jobs)
    # NumPy releases the GIL in the array work: threads share the chunks without copies; the
    # results are taken in chunk order, so they do not depend on the number of threads.
    with (
        meter("power simulation", total=n_replications, unit="replications", enabled=progress) as m,
        warnings.catch_warnings(),  # here, in the main thread: filters are process-wide
        ThreadPoolExecutor(max_workers=workers) as pool,
    ):
        # scipy's Wilcoxon test on thousands of simulated samples (small samples with ties,
        # exact distributions): warnings about the method, not about the user's data.
        warnings.simplefilter("ignore", UserWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            for count, part in pool.map(run, range(n_chunks)):
                parts.append(part)
                done += count
                m.advance(count)
        except KeyboardInterrupt:
            complete = False
            pool.shutdown(wait=True, cancel_futures=True)
    if not parts:
        raise KeyboardInterrupt("interrupted before the first chunk of replications")
    joined = {
        kind: {key: np.concatenate([p[kind][key] for p in parts]) for key in parts[0][kind]}
        for kind in parts[0]
    }
    return joined, done, complete
