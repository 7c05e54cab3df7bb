"""Issue 24, item 5: ``missing=`` takes one vocabulary in every test and model of
:mod:`rankstats.significance` ("error", "complete-case", "imputed" where supported), checked by
one function (:mod:`rankstats.significance.missing_words`); a function that cannot impute refuses
"imputed" naming the words it takes; the old spellings ("refuse", "drop") still work for one
release, with a FutureWarning naming the new word."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import rankstats as rs
from rankstats.significance.bayesian_hierarchical import bayes_hierarchical
from rankstats.significance.bayesian_signed_rank import bayes_signed_rank
from rankstats.significance.blocks import MISSING, rank_blocks
from rankstats.significance.friedman_test import friedman
from rankstats.significance.missing_words import COMPLETE, OLD_WORDS, WORDS
from rankstats.significance.parametric import repeated_measures_anova, tukey_hsd
from rankstats.significance.posthoc_tests import posthoc
from rankstats.significance.rank_sets import rank_confidence_sets
from rankstats.significance.scored_blocks import score_blocks
from rankstats.significance.which_test import choose_test

# Few blocks: the rank sets warn that the bootstrap is unreliable (not the subject here).
pytestmark = pytest.mark.filterwarnings("ignore::rankstats.errors.DataWarning")


def _scores(drop: bool = False) -> rs.Scores:
    """Three systems, six tasks of four instances; with ``drop``, system c lacks task t5 (an
    incomplete block at task level, a task the pair a, c does not share)."""
    rng = np.random.default_rng(0)
    rows = [
        (s, f"t{t}", i, 0.5 + 0.1 * k + 0.01 * t + rng.normal(0, 0.02))
        for k, s in enumerate("abc")
        for t in range(6)
        for i in range(4)
    ]
    frame = pd.DataFrame(rows, columns=["system", "task", "instance", "score"])
    if drop:
        frame = frame[~((frame["system"] == "c") & (frame["task"] == "t5"))]
    return rs.Scores.from_long(frame, instance="instance")


#: Every public function taking ``missing=`` and the words it takes.
FUNCTIONS = {
    "rank_blocks": (lambda d, m: rank_blocks(d, by="task", missing=m), WORDS),
    "friedman": (lambda d, m: friedman(d, by="task", missing=m), WORDS),
    "posthoc": (lambda d, m: posthoc(d, by="task", missing=m), WORDS),
    "rank_confidence_sets": (
        lambda d, m: rank_confidence_sets(d, by="task", of="rank", missing=m, n_resamples=200),
        WORDS,
    ),
    "score_blocks": (lambda d, m: score_blocks(d, by="task", missing=m), COMPLETE),
    "repeated_measures_anova": (
        lambda d, m: repeated_measures_anova(d, by="task", missing=m),
        COMPLETE,
    ),
    "tukey_hsd": (lambda d, m: tukey_hsd(d, by="task", missing=m), COMPLETE),
    "choose_test": (lambda d, m: choose_test(d, by="task", missing=m), COMPLETE),
    "bayes_signed_rank": (
        lambda d, m: bayes_signed_rank(d, "a", "c", by="task", draws=1000, missing=m),
        COMPLETE,
    ),
    "bayes_hierarchical": (
        lambda d, m: bayes_hierarchical(d, "a", "c", task=["t0", "nope"], missing=m),
        COMPLETE,
    ),
}
#: What a call that passed the check of ``missing=`` may still raise (sampling is not run).
LATER = {"bayes_hierarchical": r"unknown task 'nope'"}


def test_the_words_are_the_keys_of_the_table_of_treatments():
    assert tuple(MISSING) == WORDS and set(COMPLETE) < set(WORDS)
    assert set(OLD_WORDS.values()) <= set(WORDS) and not set(OLD_WORDS) & set(WORDS)


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_every_function_takes_the_one_vocabulary(name):
    call, allowed = FUNCTIONS[name]
    data = _scores()
    for word in WORDS:
        if word in allowed:
            with warnings.catch_warnings():
                warnings.simplefilter("error", FutureWarning)
                if name in LATER:
                    with pytest.raises(ValueError, match=LATER[name]):
                        call(data, word)
                else:
                    call(data, word)
        else:
            listed = " or ".join(f"missing={w!r}" for w in allowed)
            with pytest.raises(ValueError, match=f"missing={word!r} is not available") as err:
                call(data, word)
            assert str(err.value).endswith(f"use {listed}")
            assert err.value.cli().endswith(" or ".join(f"--missing {w}" for w in allowed))
    listed = ", ".join(map(repr, allowed))
    with pytest.raises(ValueError, match=f"missing must be one of {listed}, not 'bogus'"):
        call(data, "bogus")


@pytest.mark.parametrize(("old", "new"), list(OLD_WORDS.items()))
@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_old_words_warn_and_mean_the_new_word(name, old, new):
    call, _ = FUNCTIONS[name]
    data = _scores(drop=True)
    said = f"missing={old!r} is now spelled missing={new!r}"

    def outcome(word):
        try:
            return repr(call(data, word))
        except ValueError as err:  # "error" refuses the incomplete blocks: the same refusal
            return f"{type(err).__name__}: {err}"

    with pytest.warns(FutureWarning, match=said) as caught:
        old_outcome = outcome(old)
    assert caught[0].filename == __file__  # the warning points at the caller's line
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        assert old_outcome == outcome(new)


def test_min_coverage_needs_a_treatment_that_drops():
    data = _scores(drop=True)
    with pytest.raises(ValueError, match="min_coverage applies with missing='complete-case'") as e:
        friedman(data, by="task", min_coverage=0.5)
    assert e.value.cli().startswith("--min-coverage applies with --missing complete-case or ")
    assert friedman(data, by="task", missing="complete-case", min_coverage=0.9).n_systems == 2
