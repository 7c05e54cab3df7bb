"""Power and sample size of the tests rankstats reports (issue 26).

- :mod:`rankstats.planning.design`: :class:`BenchmarkDesign`, what a simulation draws;
- :mod:`rankstats.planning.noise_probabilities`: win probabilities of the noise models;
- :mod:`rankstats.planning.battle_design`: :class:`BattleDesign`, a battle log design and its
  rating model;
- :mod:`rankstats.planning.chunks`: replications in seeded chunks shared by threads;
- :mod:`rankstats.planning.replications`: the replication engine, every test applied to many
  simulated benchmarks at once by the function that computes it on one table;
- :mod:`rankstats.planning.battle_replications`: the same for battle logs, each fitted by the
  Bradley–Terry likelihood of ``rs.fit_battles`` (a stack of Newton solves);
- :mod:`rankstats.planning.power_result`: power, Monte Carlo errors, Type S / Type M;
- :mod:`rankstats.planning.power_analysis`: ``rs.power`` and ``rs.sample_size``;
- :mod:`rankstats.planning.sample_size_result`: reading a size off a power curve;
- :mod:`rankstats.planning.calibration`: ``rs.calibrate``, a design that looks like a pilot table,
  its checks, and the smallest difference the benchmark detects;
- :mod:`rankstats.planning.analytic`: exact / analytic power of the paired tests, the reference
  the simulations are tested against.

The public names are ``rs.power``, ``rs.sample_size``, ``rs.calibrate``, ``rs.BenchmarkDesign``,
``rs.BattleDesign``,
``rs.PowerResult``, ``rs.SampleSizeResult`` and ``rs.Calibration``.
"""

from __future__ import annotations

__all__: list[str] = []
