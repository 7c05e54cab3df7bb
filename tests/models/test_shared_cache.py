"""The cache of shared models (rankstats/_pymc/shared.py) keeps at most MAX_MODELS structures,
evicting the least recently used: no PyMC needed, the cache only calls ``build``."""

import pytest

from rankstats._pymc import shared


class _Model:
    """What the cache touches of a PyMC model: ``logp_dlogp_function`` and ``data_vars``."""

    data_vars = ()

    def logp_dlogp_function(self, *args, **kwargs):  # pragma: no cover - never compiled here
        raise AssertionError


@pytest.fixture
def cache(monkeypatch):
    monkeypatch.setattr(shared, "_MODELS", type(shared._MODELS)())
    monkeypatch.setattr(shared, "MAX_MODELS", 2)
    built = []

    def get(key):
        def build(data):
            built.append(key)
            return _Model()

        return shared.shared_model(key, build, {})

    return get, built


def test_the_least_recently_used_structure_is_evicted(cache, monkeypatch):
    from rankstats._pymc import compat

    monkeypatch.setattr(compat, "pymc", lambda: (_FakePm, None))
    get, built = cache
    a = get("a")
    get("b")
    assert get("a") is a  # a used again: b is now the least recently used
    get("c")  # evicts b
    assert list(shared._MODELS) == ["a", "c"]
    assert get("a") is a and built == ["a", "b", "c"]
    get("b")  # built again; evicts c
    assert built == ["a", "b", "c", "b"] and list(shared._MODELS) == ["a", "b"]


def test_the_cache_never_exceeds_its_bound(cache, monkeypatch):
    from rankstats._pymc import compat

    monkeypatch.setattr(compat, "pymc", lambda: (_FakePm, None))
    get, _ = cache
    for k in range(10):
        get(k)
        assert len(shared._MODELS) <= shared.MAX_MODELS
    assert list(shared._MODELS) == [8, 9]


class _FakePm:
    @staticmethod
    def set_data(data, model=None):
        assert data == {}
