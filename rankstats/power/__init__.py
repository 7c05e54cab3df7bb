"""Power and sample-size calculations for the tests rankstats reports (issue 26).

This package will hold the power of every test rankstats reports, for planning how many
instances a benchmark comparison needs: the analytic / exact power of the paired tests
(:mod:`rankstats.power.analytic`, the reference the simulation engine is tested against) and,
later, simulated power for the tests that have no closed form. Nothing is exported yet.
"""

from __future__ import annotations

__all__: list[str] = []
