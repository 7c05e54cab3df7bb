"""The `rankstats fit` command."""

from __future__ import annotations

import pandas as pd
import pytest

import rankstats as rs


def test_fit_command(tmp_path, capsys):
    from rankstats.cli import main

    out = tmp_path / "out"
    code = main(
        [
            "fit",
            "--rankings",
            "salad",
            "--method",
            "mle",
            "--out",
            str(out),
            "--save",
            str(tmp_path / "zoo"),
        ]
    )
    assert code == 0
    text = capsys.readouterr().out
    assert "log-likelihood: -76.4153" in text and "P(row ranked above column)" in text
    worth = pd.read_csv(out / "pl_worth.csv")
    assert worth["system"].tolist() == ["B", "C", "D", "A"]
    assert (out / "pl_forest.png").exists() and (out / "pl_pairwise.csv").exists()
    assert rs.models.load("salad", "pl", tmp_path / "zoo").order == ["B", "C", "D", "A"]
    # no MLE: the error names the systems, exit code 2
    assert (
        main(["fit", "--dataset", "xtreme", "--method", "mle", "--no-figures", "--out", str(out)])
        == 2
    )
    assert "never beat" in capsys.readouterr().err


# short chains
@pytest.mark.filterwarnings("ignore::rankstats._pymc.convergence.ConvergenceWarning")
def test_cli_fit_mallows(tmp_path, capsys):
    from rankstats.cli import main

    out = tmp_path / "out"
    args = ["fit", "--rankings", "potato_visual", "--model", "mallows", "--out", str(out)]
    assert main([*args, "--method", "map", "--save", str(tmp_path)]) == 0
    text = capsys.readouterr().out
    exact = rs.models.Mallows().fit(rs.load_rankings("potato_visual"), method="map")
    assert f"theta = {exact.theta:.6g}" in text
    table = pd.read_csv(out / "mallows_consensus.csv")
    assert table["system"].tolist() == exact.order
    assert (tmp_path / "potato_visual_mallows.nc").exists()
    assert main([*args, "--draws", "200", "--tune", "50", "--chains", "2", "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "Gibbs sampler: 2 chains × 200 sweeps" in text
    table = pd.read_csv(out / "mallows_consensus.csv")
    assert {"position", "sd", "r_hat", "ess_bulk"} <= set(table.columns)
    assert main([*args, "--method", "nuts"]) == 2
    assert "mcmc, map or mle" in capsys.readouterr().err


def _run(*args, timeout=600):
    import os
    import subprocess
    import sys

    env = {**os.environ, "RANKSTATS_QUIET": "1"}
    return subprocess.run(
        [sys.executable, "-m", "rankstats", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )


@pytest.mark.slow  # a NUTS fit in a fresh process: PyMC import and compile, ~15 s
def test_no_pytensor_blas_or_fork_warning(tmp_path):
    """The cheapest fit that compiles a PyTensor graph (2 chains: PyMC forks its chain
    processes) prints neither PyTensor's BLAS warning nor Python 3.12's fork() warning; with
    --quiet, PyMC's INFO lines are gone too and stderr holds only rankstats' own warning."""
    result = _run(
        "--quiet",
        "fit",
        "--rankings",
        "salad",
        "--model",
        "bt",
        "--draws",
        "20",
        "--tune",
        "20",
        "--chains",
        "2",
        "--no-figures",
        "--out",
        str(tmp_path / "out"),
    )
    assert result.returncode == 0, result.stderr
    assert "BLAS" not in result.stderr and "severely degraded" not in result.stderr
    assert "fork()" not in result.stderr
    assert "Initializing NUTS" not in result.stderr and "Sampling 2 chains" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert all(line.startswith("rankstats fit: warning: ") for line in lines), lines


def test_short_mallows_fit_warns_in_cli_terms_and_summarises_at_the_end(tmp_path, capsys):
    import json

    from rankstats.cli import main

    out = tmp_path / "out"
    args = ["fit", "--rankings", "potato_visual", "--model", "mallows", "--no-figures"]
    args += ["--draws", "20", "--tune", "10", "--max-draws", "20", "--out", str(out)]
    assert main(args) == 0
    captured = capsys.readouterr()
    assert "--draws" in captured.err and "draws=" not in captured.err
    assert "did not converge" in captured.err
    tail = captured.out.rstrip().splitlines()[-4:]
    assert tail[0] == "convergence summary"
    assert "max R-hat" in tail[1] and "min bulk ESS" in tail[1]
    assert "verdict: NOT converged" in tail[2] and "--max-draws" in tail[3]
    record = json.loads((out / "mallows_fit.json").read_text())["convergence"]
    assert record["verdict"] == "not converged" and record["cap_reached"] is True
    assert record["max_r_hat"] > 1.01 and record["draws"] == 20


def test_time_estimate_is_printed_up_front(tmp_path, capsys, monkeypatch):
    from rankstats.cli import main
    from rankstats.models import timing as _timing
    from rankstats.models.mallows import timing as _mallows_timing

    monkeypatch.setattr(_timing, "ANNOUNCE_FROM", 0.0)
    args = ["fit", "--rankings", "potato_visual", "--model", "mallows", "--no-figures"]
    args += ["--draws", "20", "--tune", "10", "--max-draws", "20", "--chains", "2"]
    assert main([*args, "--out", str(tmp_path / "out")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("rankstats fit: potato_visual")
    assert lines[1].startswith("  expected time: about ")
    assert "12 rankings × 20 systems, 2 chain(s) × 30 sweeps" in lines[1]
    assert "approximate" in lines[1]

    # NUTS: PyMC's start-up and compilation are part of the estimate.
    assert _timing.nuts_seconds(100, 4, 10, 1) >= _timing.NUTS_STARTUP_S

    # The numba kernels are accounted for (the estimate says which kernels it assumed).
    ranks = rs.load_rankings("nascar").ranks
    slow = _mallows_timing.mallows_seconds(ranks, 1000, 2, fast=False)
    assert _mallows_timing.mallows_seconds(ranks, 1000, 2, fast=True) == pytest.approx(
        slow / _mallows_timing.NUMBA_SPEEDUP
    )
    kernels = "numba kernels" if _timing.numba_kernels("auto") else "NumPy kernels"
    assert kernels in lines[1]
    assert main([*args, "--backend", "numpy", "--out", str(tmp_path / "o2")]) == 0
    assert "NumPy kernels" in capsys.readouterr().out.splitlines()[1]
    base = ["fit", "--rankings", "salad", "--method", "map", "--out", str(tmp_path / "x")]
    assert main([*base, "--backend", "numba"]) == 2
    assert "--backend is a Mallows option" in capsys.readouterr().err


# The README's NASCAR Mallows fit with the default settings (about 4-7 min) is run, and its
# convergence verdict checked, by the docs runner (tests/test_docs_snippets.py, README block).


@pytest.mark.slow  # PyMC compiles (cold cache: 15–20 s)
# short chains
@pytest.mark.filterwarnings("ignore::rankstats._pymc.convergence.ConvergenceWarning")
def test_cli_fit_compare(tmp_path, capsys):
    from rankstats.cli import main

    out = tmp_path / "out"
    base = ["fit", "--rankings", "salad", "--out", str(out), "--no-progress"]
    short = ["--draws", "100", "--tune", "100", "--chains", "2"]
    code = main([*base, "--model", "pl", "bt", "mallows", "--compare", *short])
    assert code == 0
    captured = capsys.readouterr()
    assert "PSIS-LOO: expected log predictive density of a new ranking (32 rankings)" in (
        captured.out
    )
    assert "elpd_loo" in captured.out and "k > 0.7" in captured.out
    assert "warning: bt: Bradley–Terry's per-ranking log-likelihood" in captured.err
    table = pd.read_csv(out / "model_comparison.csv")
    assert set(table["model"]) == {"pl", "bt", "mallows"}
    assert table["rank"].tolist() == [1, 2, 3] and table["model"].iloc[-1] == "bt"
    assert {"elpd", "se", "elpd_diff", "dse", "weight", "pareto_k_high", "converged"} <= set(
        table.columns
    )
    # usage errors, before any fit
    assert main([*base, "--model", "pl", "bt"]) == 2
    assert "several models need --compare" in capsys.readouterr().err
    assert main([*base, "--model", "pl", "--compare"]) == 2
    assert "at least two models" in capsys.readouterr().err
    assert main([*base, "--model", "pl", "mallows", "--compare", "--method", "map"]) == 2
    assert "drop --method" in capsys.readouterr().err
    assert main([*base, "--model", "pl", "--ic", "waic"]) == 2
    assert "--ic is a --compare option" in capsys.readouterr().err


@pytest.mark.filterwarnings("ignore::rankstats._pymc.convergence.ConvergenceWarning")
@pytest.mark.slow  # a first PyMC compile of this layout (~20 s)
def test_cli_fit_compare_sub_rankings(tmp_path, capsys):
    """Sub-rankings: Mallows' marginal likelihood (here summed exactly: 3 of 4 systems) puts it
    next to Plackett–Luce (it was refused for want of a closed form)."""
    from rankstats.cli import main

    path = tmp_path / "orders.csv"
    rows = ["a,b,c,d", "b,a,c,", "a,c,b,d", "a,b,d,", "c,a,b,d", "a,d,b,c"] * 3
    path.write_text("\n".join(rows) + "\n")
    out = tmp_path / "out"
    args = ["fit", str(path), "--format", "orderings", "--model", "pl", "mallows", "--compare"]
    short = ["--draws", "100", "--tune", "100", "--chains", "2", "--no-progress"]
    assert main([*args, *short, "--out", str(out)]) == 0
    table = pd.read_csv(out / "model_comparison.csv")
    assert set(table["model"]) == {"pl", "mallows"}
    assert "leave systems unranked" not in capsys.readouterr().err


def test_cli_fit_mallows_with_another_distance(tmp_path, capsys):
    """--distance footrule: Metropolis–Hastings, α printed with θ = α/n, the consensus by the
    footrule, the same numbers as the library with the same settings."""
    from rankstats.cli import main

    out = tmp_path
    code, fit = _cli_and_library_footrule_fits(tmp_path, ["--top-k", "2"])
    assert code == 0
    text = capsys.readouterr().out
    assert "Metropolis–Hastings: 2 chains × 100 draws, one every 10 iterations" in text
    assert "Mallows (footrule) (--distance footrule" in text
    assert "expected footrule distance" in text
    alpha = fit.summary().loc["alpha", "mean"]
    assert f"alpha = {alpha:.4g}" in text
    table = pd.read_csv(out / "mallows_consensus.csv")
    assert table["system"].tolist() == fit.order
    top = pd.read_csv(out / "mallows_top_k.csv")
    assert "new ranking puts the system in its top 2" in text
    pd.testing.assert_frame_equal(top, fit.top_k(2), check_exact=False, rtol=1e-9)
    args = ["fit", "--rankings", "salad", "--model", "mallows", "--distance", "footrule"]
    assert main([*args, "--top-k", "5", "--out", str(tmp_path / "other")]) == 2
    assert "--top-k 5 is more than the 4 systems" in capsys.readouterr().err


def test_cli_mallows_options_are_refused_elsewhere(capsys):
    from rankstats.cli import main

    base = ["fit", "--rankings", "salad", "--method", "mle", "--no-figures"]
    assert main([*base, "--distance", "footrule"]) == 2
    assert "--distance is a Mallows option" in capsys.readouterr().err
    assert main([*base, "--thin", "5"]) == 2
    assert "--thin is a Mallows option" in capsys.readouterr().err
    assert main([*base, "--top-k", "2"]) == 2
    assert "--top-k is a Mallows option" in capsys.readouterr().err
    compare = ["fit", "--rankings", "salad", "--model", "pl", "mallows", "--compare"]
    assert main([*compare, "--top-k", "2"]) == 2
    assert "--top-k applies to one Mallows fit" in capsys.readouterr().err
    gibbs = ["fit", "--rankings", "salad", "--model", "mallows", "--thin", "5"]
    assert main(gibbs) == 2
    assert "--thin applies to the Metropolis" in capsys.readouterr().err
    for flag in (["--rho-proposal", "swap"], ["--leap", "2"]):
        assert main([*base, *flag]) == 2
        assert f"{flag[0]} is a Mallows option" in capsys.readouterr().err
        assert main([*gibbs[:-2], *flag]) == 2
        assert f"{flag[0]} applies to the Metropolis" in capsys.readouterr().err
        # salad's Kendall fit is the Gibbs sampler's: refused before pl is fitted
        assert main([*compare, *flag]) == 2
        out, err = capsys.readouterr()
        assert f"{flag[0]} applies to the Metropolis" in err and "fit --compare:" not in out
    assert main([*gibbs[:-2], "--distance", "footrule", "--leap", "4"]) == 2
    assert "--leap 4 must be below the number of systems (4)" in capsys.readouterr().err


def _cli_and_library_footrule_fits(tmp_path, flags: list[str], **options):
    """``rankstats fit`` on salad with the footrule and ``flags``, and the library's fit with
    the same settings and ``options``: (exit code, fit)."""
    import warnings

    from rankstats.cli import main

    settings = ["--draws", "100", "--tune", "300", "--chains", "2", "--max-draws", "100"]
    args = ["fit", "--rankings", "salad", "--model", "mallows", "--distance", "footrule"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code = main([*args, *settings, *flags, "--no-progress", "--out", str(tmp_path)])
        fit = rs.models.Mallows(distance="footrule").fit(
            rs.load_rankings("salad"),
            draws=100,
            tune=300,
            chains=2,
            max_draws=100,
            progress=False,
            **options,
        )
    return code, fit


def test_cli_swap_proposal_fits_what_the_library_fits(tmp_path, capsys):
    flags = ["--rho-proposal", "swap", "--leap", "2"]
    code, fit = _cli_and_library_footrule_fits(tmp_path, flags, rho_proposal="swap", leap=2)
    assert code == 0
    text = capsys.readouterr().out
    assert "--rho-proposal swap, --leap 2" in text
    assert fit.info["rho_proposal"] == "swap"
    assert f"alpha = {fit.summary().loc['alpha', 'mean']:.4g}" in text


def test_cli_partition_file_is_used_and_checked(tmp_path, capsys):
    import warnings

    from rankstats.cli import main
    from rankstats.core.permutations import partition_in_use

    good = tmp_path / "spearman4.csv"
    rs.models.partition_function(4, "spearman").save(good)
    bad = tmp_path / "bad.csv"
    bad.write_text("alpha,log_z\n0,1\n1,2\n")
    base = ["fit", "--rankings", "salad", "--model", "mallows", "--no-progress", "--no-figures"]
    spearman = [*base, "--distance", "spearman", "--draws", "50", "--tune", "100"]
    spearman += ["--chains", "1", "--out", str(tmp_path / "out")]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert main([*spearman, "--partition", str(good)]) == 0
        assert partition_in_use.in_use("spearman", 4) is not None
    finally:
        rs.models.use_partition_function(None, distance="spearman", n=4)
    capsys.readouterr()
    assert main([*spearman, "--partition", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("rankstats fit: error: --partition:") and "bad.csv" in err
    footrule = [*base, "--distance", "footrule", "--partition", str(good)]
    assert main(footrule) == 2  # the file says spearman
    assert "spearman" in capsys.readouterr().err
    assert main([*base, "--partition", str(good)]) == 2
    assert "--partition applies to the Metropolis" in capsys.readouterr().err


def test_cli_predictive_table_is_the_library_s(tmp_path, capsys):
    from rankstats.cli import main

    code, fit = _cli_and_library_footrule_fits(tmp_path, ["--predictive", "3"])
    assert code == 0
    assert "the 3 most probable rankings of a new assessor" in capsys.readouterr().out
    written = pd.read_csv(tmp_path / "mallows_predictive.csv")
    expected = fit.predictive_distribution(top=3, seed=0)
    pd.testing.assert_frame_equal(written, expected, check_exact=False, rtol=1e-9)
    compare = ["fit", "--rankings", "salad", "--model", "pl", "mallows", "--compare"]
    assert main([*compare, "--predictive", "2"]) == 2
    assert "--predictive applies to one Mallows fit" in capsys.readouterr().err
    assert main(["fit", "--rankings", "salad", "--method", "mle", "--predictive", "2"]) == 2
    assert "--predictive is a Mallows option" in capsys.readouterr().err
