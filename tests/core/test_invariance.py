"""Borda depends on ranks only; the mean depends on scales (demonstrated on real data)."""

import numpy as np

import rankstats as rs


def _transform_task(scores: rs.Scores, task: str, f) -> rs.Scores:
    df = scores.data.astype({"system": str, "task": str})
    mask = df["task"] == task
    df.loc[mask, "score"] = f(df.loc[mask, "score"].to_numpy())
    instance = "instance" if scores.has_instances else None
    return rs.Scores.from_long(df, instance=instance)


def test_glue_monotone_transform():
    glue = rs.load_dataset("glue")
    # Strictly increasing, and it stretches CoLA (a noisy, wide-range task) by a factor ~ 30.
    moved = _transform_task(glue, "CoLA", lambda x: np.exp(x / 10.0))
    for method in ("borda", "borda2", "copeland", "median"):
        a = rs.aggregate(glue, method=method).scores
        b = rs.aggregate(moved, method=method).scores
        if method == "median":
            assert not np.allclose(a, b)  # the median of scores is not rank-based across tasks
        else:
            np.testing.assert_allclose(a, b, err_msg=method)
    mean_a = rs.aggregate(glue, method="mean")
    mean_b = rs.aggregate(moved, method="mean")
    assert mean_a.order != mean_b.order


def test_tac08_instance_level_monotone_transform():
    tac = rs.load_dataset("tac08", tasks=["ROUGE_1", "S3_pyr", "MoverScore"])
    moved = _transform_task(tac, "S3_pyr", lambda x: x**3 + 10 * x)
    for method in ("borda", "borda2"):
        np.testing.assert_allclose(
            rs.aggregate(tac, method=method).scores, rs.aggregate(moved, method=method).scores
        )
    assert not np.allclose(
        rs.aggregate(tac, method="mean").scores, rs.aggregate(moved, method="mean").scores
    )
