"""The `rankstats robustness` command."""


def test_cli_robustness(tmp_path, capsys, monkeypatch):
    from rankstats.cli import main
    from rankstats.simulate import robustness_experiments as mod

    small = {
        "description": "test",
        "grid": {"adversarial_tasks": [0, 2]},
        "base": {"n_systems": 5, "n_tasks": 4, "n_instances": 3, "phi": 0.5},
        "x": "adversarial_tasks",
        "panel": "phi",
        "n_replications": 2,
    }
    monkeypatch.setitem(mod.PRESETS, "colombo2022-manipulation", small)
    assert (
        main(
            [
                "robustness",
                "--experiment",
                "colombo2022-manipulation",
                "--out",
                str(tmp_path / "rob"),
            ]
        )
        == 0
    )
    assert (tmp_path / "rob" / "summary.csv").exists()
    assert "mean Kendall τ" in capsys.readouterr().out
