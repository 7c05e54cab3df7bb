"""What the two Mallows samplers share around their chains: worker processes, blocks of
iterations run in them, the convergence check and the consensus of the draws.

The exact Kendall Gibbs sampler (:mod:`rankstats.models.mallows.model`) and the Metropolis–Hastings
sampler of any distance (:mod:`rankstats.models.mallows.metropolis_fit`) differ in what one
iteration does, not in how chains are run, extended and summarised.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from rankstats._pymc import compat as _compat
from rankstats._pymc.convergence import ESS_MIN, RHAT_MAX
from rankstats._util.progress import meter
from rankstats._util.user_frame import user_stacklevel


def kemeny_consensus(positions: np.ndarray, systems: tuple[str, ...]) -> list[str]:
    """The ranking that minimises the summed Kendall distance to the draws ``positions``
    ``(S, n)`` (their Kemeny consensus, exact within 60 s, else the best heuristic)."""
    from rankstats.aggregation.kemeny_search import kemeny
    from rankstats.core.pair_probabilities import Pairwise

    wins = np.count_nonzero(positions[:, :, None] < positions[:, None, :], axis=0).astype(float)
    n = len(systems)
    compared = np.full((n, n), float(len(positions)))
    np.fill_diagonal(compared, 0.0)
    pw = Pairwise(wins, wins, compared, len(positions), systems, np.full(n, float(len(positions))))
    return list(kemeny(pw, method="auto", time_limit=60).order)


def convergence_problems(scalar: np.ndarray, pos: np.ndarray, name: str = "theta") -> list[str]:
    """R-hat / ESS problems of a scalar parameter ``(chains, draws)`` and of the consensus
    positions ``(chains, draws, n)`` that vary at all (a position that is the same in every draw
    is certain, not unconverged: its R-hat is undefined). A mixture passes one scalar per
    cluster ``(chains, draws, K)`` and positions ``(chains, draws, K, n)``."""
    import xarray as xr

    chains, draws = scalar.shape[:2]
    scalar = scalar.reshape(chains, draws, -1)
    pos = pos.reshape(chains, draws, -1)
    varying = pos.reshape(-1, pos.shape[-1]).std(axis=0) > 0
    data = xr.Dataset(
        {
            name: (("chain", "draw", "component"), scalar),
            "position": (("chain", "draw", "item"), pos[:, :, varying]),
        }
    )
    diag = _compat.diagnostics(data, which=_compat.CONVERGENCE_DIAGNOSTICS)
    problems = []
    names = [name] + (["position"] if varying.any() else [])
    rhat = max(float(np.nanmax(diag["r_hat"][v].to_numpy())) for v in names)
    ess = min(float(np.nanmin(diag["ess_bulk"][v].to_numpy())) for v in names)
    if not np.isfinite(rhat) or rhat > RHAT_MAX:
        problems.append(f"max R-hat = {rhat:.3f} > {RHAT_MAX}")
    if not np.isfinite(ess) or ess < ESS_MIN:
        problems.append(f"min bulk ESS = {ess:.0f} < {ESS_MIN}")
    return problems


def ignore_interrupt() -> None:
    """Worker initializer: Ctrl-C stops the parent, which keeps the draws made so far."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def fork_pool(workers: int):
    """A pool of ``workers`` forked processes, started now: before any progress display starts
    its refresh thread.  Python ≥ 3.12 warns about fork() in a process with threads; the only
    threads here are the idle workers of NumPy's OpenBLAS (as for PyMC's chains), and the
    workers run NumPy code of the samplers only."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    with _compat.quiet_pytensor():  # also silences exactly the fork() DeprecationWarning
        pool = ProcessPoolExecutor(workers, multiprocessing.get_context("fork"), ignore_interrupt)
        pool.submit(int).result()  # forks every worker now
    return pool


#: ``advance(chain, iterations, keep)`` → ``(chain, *draws)``: runs in a worker process and
#: sends the chain back with the draws it kept (none when ``keep`` is False).
Advance = Callable[[object, int, bool], tuple]


def parallel_block(
    pool,
    chains: list,
    store: Callable[[int, tuple], None],
    advance: Advance,
    n_tune: int,
    n_keep: int,
    label: str,
    progress: bool,
    unit: str = "sweeps",
) -> None:
    """Run every chain ``n_tune`` discarded and ``n_keep`` kept iterations in the worker
    processes, in chunks (the progress display advances per chunk; the draws do not depend on
    them: each chain carries its own random generator). ``store(c, draws)`` receives the draws
    of chain ``c`` chunk by chunk, in order."""
    from concurrent.futures import FIRST_COMPLETED, wait

    chunk = max(25, (n_tune + n_keep) // 20)
    plan: dict[int, list[tuple[int, bool]]] = {}
    for c in range(len(chains)):
        steps = [(min(chunk, n_tune - k), False) for k in range(0, n_tune, chunk)]
        steps += [(min(chunk, n_keep - k), True) for k in range(0, n_keep, chunk)]
        plan[c] = steps
    total = len(chains) * (n_tune + n_keep)
    with meter(label, total=total, unit=unit, enabled=progress) as bar:
        running = {}

        def submit(c: int) -> None:
            if plan[c]:
                n_steps, keep = plan[c].pop(0)
                running[pool.submit(advance, chains[c], n_steps, keep)] = (c, n_steps, keep)

        for c in range(len(chains)):
            submit(c)
        while running:
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                c, n_steps, keep = running.pop(future)
                chains[c], *draws = future.result()
                if keep:
                    store(c, tuple(draws))
                bar.advance(n_steps)
                submit(c)


def equal_length(lengths: Sequence[int], first_block: int) -> tuple[list[int], int]:
    """After an interruption: the chains kept and their common length — those that finished
    the first block (all of them once it is done), else those that kept more than one draw
    (the interrupted one when the chains run one after the other); ``([], 0)`` when none."""
    keep = [c for c, n in enumerate(lengths) if n >= first_block]
    if not keep:
        keep = [c for c, n in enumerate(lengths) if n > 1]
    if not keep:
        return [], 0
    return keep, min(lengths[c] for c in keep)


def sample_until_converged(
    block: Callable[[int, int, str], None],
    stacked: Callable[[], tuple[list[np.ndarray], list[np.ndarray]]],
    *,
    tune: int,
    draws: int,
    max_draws: int,
    chains: int,
    on_extend: Callable[[int, int, list[str]], None] | None,
    label: str,
    name: str,
) -> tuple[np.ndarray, np.ndarray, list[str], int, bool]:
    """Run the first block, then extend every chain by blocks of ``draws`` while the
    convergence check fails, up to ``max_draws``; on Ctrl-C keep the chains finished so far.

    ``block(n_tune, n_keep, title)`` runs the chains; ``stacked()`` returns each chain's scalar
    parameter and positions kept so far. Returns the scalar ``(chains, draws)``, the positions
    ``(chains, draws, n)``, the problems left, the number of extensions and whether the
    sampling was interrupted.
    """
    import warnings

    interrupted, extensions = False, 0
    try:
        block(tune, draws, label)
        scalar, pos = (np.stack(x) for x in stacked())
        problems = convergence_problems(scalar, pos, name) if chains > 1 else []
        while problems and scalar.shape[1] < max_draws:
            size = min(draws, max_draws - scalar.shape[1])
            extensions += 1
            if on_extend is not None:
                on_extend(scalar.shape[1], size, problems)
            block(0, size, f"{label}, extension {extensions}")
            scalar, pos = (np.stack(x) for x in stacked())
            problems = convergence_problems(scalar, pos, name)
    except KeyboardInterrupt:
        interrupted = True
        scalars, positions = stacked()
        keep, length = equal_length([len(x) for x in scalars], draws)
        if not keep:
            raise KeyboardInterrupt("interrupted before any draw was kept") from None
        scalar = np.stack([scalars[c][:length] for c in keep])
        pos = np.stack([positions[c][:length] for c in keep])
        problems = convergence_problems(scalar, pos, name) if len(keep) > 1 else []
        warnings.warn(
            "sampling interrupted: the fit holds the chains finished so far",
            RuntimeWarning,
            stacklevel=user_stacklevel(),
        )
    return scalar, pos, problems, extensions, interrupted


def pieces(n_tune: int, n_keep: int, thin: int) -> list[tuple[int, bool]]:
    """The iterations of one chain in pieces of about a twentieth (``(iterations, keep)``; kept
    pieces a multiple of ``thin``), so that the progress display moves and Ctrl-C keeps the
    pieces finished."""
    piece = max(thin, (n_tune + n_keep) // 20 // thin * thin)
    out = [(min(piece, n_tune - k), False) for k in range(0, n_tune, piece)]
    return out + [(min(piece, n_keep - k), True) for k in range(0, n_keep, piece)]


class ChainRunner:
    """Runs a Metropolis–Hastings fit's chains block by block: one after the other, or in
    worker processes once a block is expected to take ``parallel_from`` seconds one chain after
    the other (``extension_from`` for an extension: a fit extended once is usually extended
    again); once there, the chains stay there. The draws are the same either way: each chain
    carries its own random generator.

    ``step(chain, iterations, keep)`` → ``(chain, draws)`` runs one piece (picklable: it runs in
    the workers); ``store(c, draws)`` receives chain ``c``'s kept draws in order;
    ``after_tune()``, when given, runs between a block's tuning and its kept iterations (a
    mixture sets its chains' pivot there). Call :meth:`close` at the end.
    """

    def __init__(
        self,
        chains: list,
        step: Callable,
        store: Callable[[int, tuple], None],
        *,
        thin: int,
        per_iteration: float,
        workers: int,
        can_fork: bool,
        label: str,
        progress: bool,
        parallel_from: float,
        extension_from: float,
        after_tune: Callable[[], None] | None = None,
    ) -> None:
        self.chains, self.step, self.store, self.thin = chains, step, store, thin
        self.per_iteration, self.workers, self.can_fork = per_iteration, workers, can_fork
        self.label, self.progress = label, progress
        self.parallel_from, self.extension_from = parallel_from, extension_from
        self.after_tune = after_tune
        self.parallel = False
        self.pool = None

    def __call__(self, n_tune: int, n_keep: int, title: str) -> None:
        """``n_tune`` discarded and ``n_keep`` kept draws (``n_keep × thin`` iterations) of
        every chain."""
        chains = len(self.chains)
        expected = self.per_iteration * chains * (n_tune + self.thin * n_keep)
        least = self.extension_from if title != self.label else self.parallel_from
        self.parallel = self.parallel or (self.can_fork and self.workers > 1 and expected >= least)
        parts = [(n_tune, 0), (0, n_keep)] if self.after_tune and n_tune else [(n_tune, n_keep)]
        for tune, keep in parts:
            if tune == 0 and keep == 0:
                continue
            self._run(tune, keep, title)
            if tune and self.after_tune is not None:
                self.after_tune()

    def _run(self, n_tune: int, n_keep: int, title: str) -> None:
        if self.parallel:
            if self.pool is None:
                self.pool = fork_pool(self.workers)

            def store(c: int, out: tuple) -> None:
                self.store(c, out[0])

            parallel_block(
                self.pool,
                self.chains,
                store,
                self.step,
                n_tune,
                n_keep * self.thin,
                title,
                self.progress,
                unit="iterations",
            )
            return
        total = len(self.chains) * (n_tune + n_keep * self.thin)
        with meter(title, total=total, unit="iterations", enabled=self.progress) as bar:
            for c in range(len(self.chains)):
                for iterations, keep in pieces(n_tune, n_keep * self.thin, self.thin):
                    self.chains[c], draws = self.step(self.chains[c], iterations, keep)
                    if keep:
                        self.store(c, draws)
                    bar.advance(iterations)

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)


def check_thin_leap(thin: int, leap: int, n: int) -> None:
    """Refuse a ``thin`` or a leap-and-shift ``leap`` that is not a whole number in range
    (``leap`` ≤ n − 1 for ``n`` items)."""
    for name, value, least in (("thin", thin, 1), ("leap", leap, 1)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < least:
            raise ValueError(f"{name} must be a whole number ≥ {least}, not {value!r}")
    if leap > n - 1:
        raise ValueError(f"leap must be at most n − 1 = {n - 1} for {n} systems, not {leap}")


def extension_cap(draws: int, max_draws: int | None, factor: int) -> int:
    """The automatic extension's cap: ``max_draws``, by default ``factor × draws``."""
    max_draws = factor * draws if max_draws is None else max_draws
    if max_draws < draws:
        raise ValueError(f"max_draws ({max_draws}) must be ≥ draws ({draws})")
    return max_draws


#: Tuning iterations of every chain timed before the rest of a Metropolis–Hastings fit.
PILOT = 100
#: Metropolis–Hastings chains run in worker processes when they are expected to take this long
#: one after the other (seconds) ...
PARALLEL_FROM = 10.0
#: ... and an extension block this long (the fit is long already).
EXTENSION_PARALLEL_FROM = 2.0


def start_runner(
    samplers: list,
    step: Callable,
    store: Callable[[int, tuple], None],
    *,
    tune: int,
    thin: int,
    n_jobs: int | None,
    label: str,
    progress: bool,
    after_tune: Callable[[], None] | None = None,
) -> tuple[ChainRunner, int]:
    """Run the first ``min(tune, PILOT)`` tuning iterations of every chain, timed: the time per
    iteration decides whether the rest runs in worker processes (:class:`ChainRunner`).
    Returns the runner and the number of tuning iterations already run."""
    import os
    import time

    from rankstats.models.mallows.timing import CAN_FORK

    pilot = min(tune, PILOT)
    started = time.perf_counter()
    for c, chain in enumerate(samplers):
        samplers[c], _ = step(chain, pilot, False)
    per_iteration = (time.perf_counter() - started) / max(pilot * len(samplers), 1)
    runner = ChainRunner(
        samplers,
        step,
        store,
        thin=thin,
        per_iteration=per_iteration,
        workers=min(len(samplers), n_jobs or os.cpu_count() or 1),
        can_fork=CAN_FORK,
        label=label,
        progress=progress,
        parallel_from=PARALLEL_FROM,
        extension_from=EXTENSION_PARALLEL_FROM,
        after_tune=after_tune,
    )
    return runner, pilot
