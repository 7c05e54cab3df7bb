"""The data check: what in a score table an analysis should not run over silently.

``rs.check_data(data)`` looks at a table before anything is ranked and returns a
:class:`DataCheck` whose findings each name a kind, counts, examples and the option that acts
on it:

- **aggregate and metadata columns** of a wide table (``Average perf. on 38 datasets`` equal to
  the row mean of the tasks, ``params (M)``, ``FLOPs (B)``): refused by the reader until
  ``drop_columns=`` / ``tasks=`` says what to do (:mod:`rankstats.core.wide_columns`);
- **placeholders**: a block of exact 0 or −1 below all other scores of a task (evaluations
  that were not run, like the 31 zeros of open_clip's FMoW column);
- **scales**: tasks whose scores differ in magnitude by 20× or more (0–1 next to 0–100);
- **missing** scores, and **few scores**: systems scored on fewer than half the tasks, tasks
  with fewer than half the systems;
- **name collisions**: names equal after folding case and collapsing whitespace;
- **uneven instances**: task-level means of one task over different numbers of instances;
- **no order**: rankings (tasks, or (task, instance) blocks) in which every system has the same
  score — a warning when every ranking is such a tie (nothing to rank: ``fit`` refuses it);
- **folds**: instances that are folds / seeds / repeats of one data set per task, so the
  (task, instance) rankings are not independent blocks.

``rankstats check FILE`` prints them and writes ``check.json`` / ``check.csv``; ``rankstats
rank`` and ``report`` run the check first, print the findings as warnings and store them in
``summary.json`` / the report's "Data check" section.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rankstats.datacheck.finding import SEVERITIES, Finding

if TYPE_CHECKING:
    import pandas as pd

    from rankstats.core.scores import Scores
    from rankstats.core.wide_columns import ColumnFinding

__all__ = ["DataCheck", "Finding", "check_data", "column_findings", "drop_placeholders"]


@dataclass(frozen=True, eq=False)
class DataCheck:
    """The findings of :func:`check_data`, most serious first.

    Attributes
    ----------
    findings : tuple of Finding
        Errors (refused columns), then warnings, then notes.
    scores : Scores or None
        The scores that were checked (after the refused columns were set aside).
    name : str
        The data set's name.
    """

    findings: tuple[Finding, ...]
    scores: Any = field(default=None, repr=False)
    name: str = ""

    @property
    def ok(self) -> bool:
        """True when nothing but notes was found."""
        return all(f.severity == "note" for f in self.findings)

    def of_kind(self, kind: str) -> tuple[Finding, ...]:
        """The findings of one kind (e.g. ``"placeholder"``)."""
        return tuple(f for f in self.findings if f.kind == kind)

    @property
    def table(self) -> pd.DataFrame:
        """One row per finding: kind, severity, count, subject, examples, option, api, message
        (subject and examples joined by ``"; "``)."""
        import pandas as pd

        columns = ["kind", "severity", "count", "subject", "examples", "option", "api", "message"]
        rows = [
            {**f.record(), "subject": "; ".join(f.subject), "examples": "; ".join(f.examples)}
            for f in self.findings
        ]
        return pd.DataFrame(rows, columns=columns)

    def records(self) -> list[dict[str, object]]:
        """The findings as JSON-ready dicts."""
        return [f.record() for f in self.findings]

    def warn(self, cli: bool = False, stacklevel: int | None = 2, skip: Sequence[str] = ()) -> None:
        """Issue each warning and error as a :class:`~rankstats._util.advice.AdviceWarning` (a
        :class:`~rankstats.errors.DataWarning`; notes are not issued) whose remedy is spelled
        for the reader: in Python (``str``) or as flags (``.cli()``, what the command line
        prints); ``cli=True`` issues the flags' text itself; ``skip``: kinds already acted on;
        ``stacklevel`` None: the user's line (the first frame outside rankstats)."""
        from rankstats._util.advice import AdviceWarning, Spelled, escape
        from rankstats._util.user_frame import user_stacklevel

        for f in self.findings:
            if f.severity != "note" and f.kind not in skip:
                warning = AdviceWarning(
                    escape(f"data check: {f.message}") + " (what to do: {remedy})",
                    remedy=Spelled(f.api, f.option),
                )
                if cli:
                    warning = AdviceWarning(escape(warning.cli()))
                warnings.warn(warning, stacklevel=stacklevel or user_stacklevel())

    def __repr__(self) -> str:
        counts = {s: sum(f.severity == s for f in self.findings) for s in SEVERITIES}
        kinds = ", ".join(dict.fromkeys(f.kind for f in self.findings)) or "nothing found"
        return (
            f"DataCheck({self.name or 'scores'}: {counts['error']} error(s), "
            f"{counts['warning']} warning(s), {counts['note']} note(s): {kinds})"
        )


def column_findings(columns: Sequence[ColumnFinding]) -> list[Finding]:
    """The aggregate / metadata columns of a wide table as findings (severity ``error``)."""
    from rankstats._util.advice import AdviceText, keywords

    found = []
    for kind in ("aggregate", "metadata"):
        chosen = [c for c in columns if c.kind == kind]
        if not chosen:
            continue
        names = [c.column for c in chosen]
        found.append(
            Finding(
                kind=f"{kind}-column",
                severity="error",
                subject=tuple(names),
                count=len(chosen),
                examples=tuple(f"{c.column!r} {c.reason}" for c in chosen[:5]),
                message=(
                    f"{len(chosen)} column(s) of the wide table look like "
                    f"{'an aggregate of the other tasks' if kind == 'aggregate' else 'metadata'}"
                    f", not tasks: {'; '.join(f'{c.column!r} {c.reason}' for c in chosen)}"
                ),
                remedy=AdviceText(
                    "{drop_columns} leaves them out (or {tasks} to choose tasks)",
                    drop_columns=names,
                    **keywords("tasks"),
                ),
            )
        )
    return found


def check_data(
    data: Scores | pd.DataFrame | str | Path,
    system: str | Sequence[str] = "system",
    task: str | None = "task",
    instance: str | None = None,
    score: str = "score",
    higher_is_better: Any = True,
    tasks: Sequence[str] | None = None,
    drop_columns: Sequence[str] | None = None,
    **read_options: Any,
) -> DataCheck:
    """Check a score table before any analysis.

    Parameters
    ----------
    data : Scores, pandas.DataFrame, str or Path
        Validated scores, a long or wide table, or a file (read with
        :func:`~rankstats.read_scores`). A wide table's aggregate and metadata columns are
        reported (severity ``error``) and set aside for the other checks, instead of refused.
    system, task, instance, score, higher_is_better, tasks, drop_columns
        As in :func:`~rankstats.read_scores` / :meth:`~rankstats.Scores.from_wide`; ``instance``
        also names the instance column for the fold check when ``data`` is ``Scores``.
    **read_options
        Other options of :func:`~rankstats.read_scores` for a file (``sep``, ``na_values``, ...).

    Returns
    -------
    DataCheck
        Its findings, errors first, then warnings, then notes.

    Examples
    --------
    >>> import pandas as pd, rankstats as rs
    >>> df = pd.DataFrame({"system": list("abcde"), "t1": [0.8, 0.7, 0.0, 0.6, 0.0],
    ...                    "t2": [0.5, 0.4, 0.3, 0.2, 0.1]})
    >>> df["Average"] = df[["t1", "t2"]].mean(axis=1)
    >>> check = rs.check_data(df)
    >>> [f.kind for f in check.findings]
    ['aggregate-column', 'placeholder']
    """
    import pandas as pd

    from rankstats.core import wide_columns as _columns
    from rankstats.core.scores import Scores
    from rankstats.io.score_files import read_scores

    found: list[Finding] = []
    instance_name = instance if isinstance(instance, str) else None
    if isinstance(data, Scores):
        scores = data
    elif isinstance(data, pd.DataFrame):
        long = task is not None and task in data.columns and score in data.columns
        if long:
            if instance is None and "instance" in data.columns:  # as read_scores does
                instance = instance_name = "instance"
            scores = Scores.from_long(
                data, system, task, instance, score, higher_is_better=higher_is_better
            )
        else:
            keys = [system] if isinstance(system, str) else list(system)
            candidates = [c for c in data.columns if c not in keys]
            if tasks is None:
                candidates = _columns.drop(candidates, drop_columns)
                columns = _columns.find(data, candidates, higher_is_better)
                found += column_findings(columns)
                set_aside = {c.column for c in columns}
                tasks = [c for c in candidates if str(c) not in set_aside]
            scores = Scores.from_wide(
                data, system=system, higher_is_better=higher_is_better, tasks=tasks
            )
    else:
        options = dict(
            system=system, task=task, instance=instance, score=score,
            higher_is_better=higher_is_better, tasks=tasks, **read_options,
        )  # fmt: skip
        try:
            scores = read_scores(data, drop_columns=drop_columns, **options)
        except _columns.NotTaskColumnsError as err:
            found += column_findings(err.findings)
            dropped = [*(drop_columns or ()), *(f.column for f in err.findings)]
            scores = read_scores(data, drop_columns=dropped, **options)
    found += run_detectors(scores, instance_name)
    return DataCheck(tuple(found), scores, scores.name)


def run_detectors(scores: Scores, instance_name: str | None = None) -> list[Finding]:
    """Every detector on validated scores, findings sorted by severity (stable)."""
    from rankstats.datacheck import detectors

    found = [f for detect in detectors.DETECTORS for f in detect(scores)]
    found += detectors.folds(scores, instance_name)
    return sorted(found, key=lambda f: SEVERITIES.index(f.severity))


def drop_placeholders(scores: Scores) -> Scores:
    """The scores without the placeholder blocks the check finds (read as not evaluated).

    Examples
    --------
    >>> import pandas as pd, rankstats as rs
    >>> df = pd.DataFrame({"system": list("abcde"), "t1": [0.8, 0.7, 0.0, 0.6, 0.0],
    ...                    "t2": [0.5, 0.4, 0.3, 0.2, 0.1]})
    >>> len(rs.datacheck.drop_placeholders(rs.Scores.from_wide(df)).data)
    8
    """
    from rankstats.core.scores import Scores
    from rankstats.datacheck import detectors

    mask, _ = detectors.placeholder_mask(scores)
    if not mask.any():
        return scores
    data = scores.data.loc[~mask].copy()
    data["score"] = detectors.raw_scores(scores)[~mask]
    return Scores.from_long(
        data.astype({"system": str, "task": str}),
        instance="instance" if scores.has_instances else None,
        higher_is_better=dict(scores.higher_is_better),
        name=scores.name,
    )
