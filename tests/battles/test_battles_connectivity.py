"""The existence check of the Bradley–Terry MLE (strong connectivity, Hunter 2004) by
scipy.sparse.csgraph, checked against networkx's condensation (a second implementation)."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from rankstats.core.bradley_terry_mle import MLEDoesNotExistError, check_strongly_connected


def _networkx_groups(beats: np.ndarray, names: list[str]):
    graph = nx.DiGraph()
    graph.add_nodes_from(range(len(names)))
    graph.add_edges_from(zip(*np.nonzero(beats > 0), strict=True))
    if nx.is_strongly_connected(graph):
        return None
    dag = nx.condensation(graph)
    sizes = sorted((len(dag.nodes[c]["members"]) for c in dag.nodes), reverse=True)
    groups = {}
    for node in dag.nodes:
        members = sorted(names[i] for i in dag.nodes[node]["members"])
        indeg, outdeg = dag.in_degree(node), dag.out_degree(node)
        groups[tuple(members)] = (indeg, outdeg)
    return dag.number_of_nodes(), sizes, groups


def test_connectivity_agrees_with_networkx():
    rng = np.random.default_rng(0)
    checked = 0
    for _ in range(400):
        n = int(rng.integers(2, 9))
        beats = (rng.random((n, n)) < rng.uniform(0.05, 0.6)).astype(float)
        np.fill_diagonal(beats, 0.0)
        names = [f"s{k}" for k in range(n)]
        expected = _networkx_groups(beats, names)
        if expected is None:
            check_strongly_connected(names, beats)  # no error
            continue
        count, sizes, groups = expected
        with pytest.raises(MLEDoesNotExistError) as err:
            check_strongly_connected(names, beats)
        message = str(err.value)
        assert f"({count} components)" in message
        if len(sizes) > 1 and sizes[0] == sizes[1]:
            continue  # "the rest" (the largest group) is a choice among equals
        rest = max(groups, key=len)
        wins = (beats > 0).sum(axis=1)
        losses = (beats > 0).sum(axis=0)
        for k, name in enumerate(names):  # single systems: by their own wins and losses
            if losses[k] == 0 and wins[k] > 0:
                assert name in message.split("never lose (nor tie)")[1].split(";")[0], message
            if wins[k] == 0 and losses[k] > 0:
                assert name in message.split("never win (nor tie)")[1].split(";")[0], message
        for members, (indeg, outdeg) in groups.items():
            if members == rest or len(members) > 8:
                continue
            label = "{" + ", ".join(members) + "}" if len(members) > 1 else members[0]
            if len(members) == 1 and (indeg == 0) != (outdeg == 0):
                continue  # a system that never wins or never loses: checked above
            if indeg == 0 and outdeg == 0:
                part = "never compared with the others: "
            elif indeg == 0:
                part = "groups that never lose to (or tie) the others: "
            elif outdeg == 0:
                part = "groups that never beat (or tie) the others: "
            else:
                part = "cut off by them"
            assert label in message.split(part)[1], (label, part, message)
            checked += 1
    assert checked > 100
