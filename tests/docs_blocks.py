"""The blocks of README.md and docs/**/*.md as the documentation runner reads them.

Shared by the runner (tests/test_docs_snippets.py, whose docstring has the rules and the markers)
and the before/after snapshot of every documented command (.ci/snapshot_outputs.py): one parser,
so that both see the same blocks, commands, markers and example inputs.  Pages are read under a
root directory (a checkout).
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

FENCE = re.compile(r"^```(bash|console|python)\s*$")
MARKER = re.compile(r"^\s*<!--\s*docs-test:\s*(.*?)\s*-->\s*$")

# Commands that are not re-run here, and why (a prefix of the command's words).
NOT_RERUN = {
    ("python3", "-m", "venv"): "creates the environment: tests/test_wheel.py and CI step 1",
    ("python", "-m", "venv"): "creates the environment: tests/test_wheel.py and CI step 1",
    ("pip", "install"): "installs: tests/test_wheel.py (wheel) and CI step 1 (editable)",
    ("python", "-m", "pytest"): "the test suite itself: CI step 1",
}


@dataclass
class Block:
    page: str
    line: int  # 1-based line of the opening fence
    kind: str
    source: str
    markers: list[str] = field(default_factory=list)

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"

    def marker(self, name: str) -> list[str]:
        """The arguments of every marker ``name`` (``""`` when it has none)."""
        out = []
        for m in self.markers:
            word, _, rest = m.partition(" ")
            if word.rstrip(":") == name:
                out.append(rest.strip())
        return out


def page_names(root: Path) -> list[str]:
    """README.md and every page of docs/ (the built site left out), relative to ``root``."""
    docs = sorted(str(p.relative_to(root)) for p in (root / "docs").rglob("*.md"))
    return ["README.md", *[p for p in docs if not p.startswith("docs/_build")]]


def collect(root: Path, page: str) -> list[Block]:
    """The ``bash``, ``console`` and ``python`` blocks of ``root / page`` with their markers."""
    lines = (root / page).read_text(encoding="utf-8").splitlines()
    blocks, i = [], 0
    while i < len(lines):
        fence = FENCE.match(lines[i])
        if fence is None:
            if lines[i].startswith("```"):  # another fence (text, eval-rst, ...): skip its body
                i += 1
                while i < len(lines) and not lines[i].startswith("```"):
                    i += 1
            i += 1
            continue
        markers, k = [], i - 1
        while k >= 0 and (found := MARKER.match(lines[k])):
            markers[:0] = [m.strip() for m in found.group(1).split(";") if m.strip()]
            k -= 1
        end = i + 1
        while end < len(lines) and not lines[end].startswith("```"):
            end += 1
        blocks.append(Block(page, i + 1, fence.group(1), "\n".join(lines[i + 1 : end]), markers))
        i = end + 1
    return blocks


def replacements(block: Block) -> list[tuple[str, str]]:
    """The ``(OLD, NEW)`` pairs of the block's ``replace`` markers."""
    out = []
    for spec in block.marker("replace"):
        found = re.fullmatch(r'"(.*)"\s+with\s+"(.*)"', spec)
        assert found, f'{block.id}: replace marker is `replace "OLD" with "NEW"`, not {spec!r}'
        out.append((found.group(1), found.group(2)))
    return out


def substituted(block: Block) -> str:
    """The block's source with its ``replace`` markers applied (each must match)."""
    source = block.source
    for old, new in replacements(block):
        assert old in source, f"{block.id}: {old!r} is not in the block"
        source = source.replace(old, new)
    return source


def run_elsewhere(block: Block) -> dict[tuple[str, ...], str]:
    """The command lines of a ``same`` marker (as word tuples) and the page that runs each."""
    out = {}
    for spec in block.marker("same"):
        found = re.fullmatch(r'"(.*)"\s+as\s+(\S+)', spec)
        assert found, f'{block.id}: same marker is `same "COMMAND" as PAGE`, not {spec!r}'
        out[tuple(shlex.split(found.group(1)))] = found.group(2)
    return out


def tier(block: Block) -> int:
    """0: the default run; 1: ``long`` (CI, both stacks); 2: ``slow`` (CI, first stack): a block
    runs wherever every block of a higher tier runs."""
    return 2 if block.marker("slow") else 1 if block.marker("long") else 0


def commands(block: Block, source: str) -> list[list[str]]:
    """The command lines of a bash / console block, as argument lists."""
    lines = source.splitlines()
    if block.kind == "console":
        lines = [line[2:] for line in lines if line.startswith("$ ")]
    joined, buffer = [], ""
    for line in lines:
        buffer += line
        if buffer.endswith("\\"):
            buffer = buffer[:-1] + " "
            continue
        if buffer.strip():
            joined.append(buffer)
        buffer = ""
    out = []
    for line in joined:
        words = shlex.split(line, comments=True)
        while words:
            cut = words.index("&&") if "&&" in words else len(words)
            out.append(words[:cut])
            words = words[cut + 1 :]
    return out


def not_rerun(words: list[str]) -> str | None:
    name = [Path(words[0]).name, *words[1:]]
    if name[0] in ("python3", "python") and name[1:3] == ["-m", "pip"]:
        name = ["pip", *name[3:]]
    for prefix, why in NOT_RERUN.items():
        if tuple(name[: len(prefix)]) == prefix:
            return why
    return None


def write_data(spec: str, where: Path) -> None:
    """The example input of a ``data`` marker: a small long (or wide) score table, or the first
    tasks of a bundled data set (``from=NAME first=K``)."""
    name, *options = shlex.split(spec)
    opts = dict(o.split("=", 1) if "=" in o else (o, "1") for o in options)
    if "from" in opts:
        import rankstats as rs

        scores = rs.load_dataset(opts["from"])
        subset = scores.select(scores.tasks[: int(opts["first"])])
        # The file is read back with the reader's default: every task higher-is-better.
        assert all(subset.higher_is_better.values()), f"{name}: a task is lower-is-better"
        (where / name).parent.mkdir(parents=True, exist_ok=True)
        subset.data.to_csv(where / name, index=False)
        return
    system, task, instance, score = opts.get("columns", "system,task,instance,score").split(",")
    tasks = opts.get("tasks", "BLEU,ROUGE").split(",")
    rng = np.random.default_rng(0)
    systems = [f"M{k}" for k in range(6)]
    quality = np.linspace(1, 0, len(systems))
    n_instances = 30
    if "wide" in opts:
        frame = pd.DataFrame(
            {s: q + rng.normal(0, 0.5, n_instances) for s, q in zip(systems, quality, strict=True)}
        )
    else:
        rows = [
            (s, t, f"ex{i}", q + rng.normal(0, 0.5))
            for t in tasks
            for i in range(n_instances)
            for s, q in zip(systems, quality, strict=True)
        ]
        frame = pd.DataFrame(rows, columns=[system, task, instance, score])
        frame.loc[rng.random(len(frame)) < 0.05, score] = np.nan  # a few not evaluated
    target = where / name
    if "*" in name or name.endswith("/"):
        folder = target.parent if "*" in name else target
        folder.mkdir(parents=True, exist_ok=True)
        pattern = target.name if "*" in name else "part-*.parquet"
        for k, part in enumerate(np.array_split(np.arange(len(frame)), 2)):
            frame.iloc[part].to_parquet(folder / pattern.replace("*", f"{k:05d}"), index=False)
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(target, index=False)
