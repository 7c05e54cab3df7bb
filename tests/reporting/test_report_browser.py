"""The HTML report in a real browser: renders, no console error, no external request."""

import shutil
import warnings

import numpy as np
import pandas as pd
import pytest

import rankstats as rs

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
playwright = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
pytestmark = [
    pytest.mark.long,
    pytest.mark.skipif(CHROMIUM is None, reason="no chromium binary (CI installs it)"),
]


def test_report_in_headless_chromium(tmp_path):
    rep = rs.report(rs.load_dataset("dialogue_tc"), out=tmp_path)
    errors, requests = [], []
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        page = browser.new_page(viewport={"width": 1200, "height": 1600})
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("request", lambda r: requests.append(r.url))
        page.goto(rep.html.as_uri())
        assert page.locator("#ranking tr").count() == 1 + len(rep.ranking)
        heatmap = page.locator("#heatmap")
        assert heatmap.evaluate("img => img.complete && img.naturalWidth > 0")
        shot = tmp_path / "screenshot.png"
        page.screenshot(path=str(shot), full_page=True)
        browser.close()
    assert not errors, errors
    external = [u for u in requests if not u.startswith(("file:", "data:"))]
    assert not external, external
    assert shot.stat().st_size > 10_000


def test_hostile_names_render_as_text(tmp_path):
    """A system called ``<script>alert(1)</script>`` is a name in a cell, not a script."""
    names = ["<script>alert(1)</script>", "<img src=x onerror=alert(2)>", "a\u202eb", "x\ny", "$x$"]
    rng = np.random.default_rng(0)
    wide = pd.DataFrame(rng.normal(size=(len(names), 3)), columns=["t1", "<b>t2</b>", "t3"])
    wide.insert(0, "system", names)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rep = rs.report(rs.Scores.from_wide(wide, system="system"), out=tmp_path / "r")
    dialogs, errors, requests = [], [], []
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"]
        )
        page = browser.new_page()
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("request", lambda r: requests.append(r.url))
        page.goto(rep.html.as_uri())
        cells = page.eval_on_selector_all("#ranking td.name", "els => els.map(e => e.textContent)")
        scripts = page.locator("script").count()
        images = page.locator("img").count()
        browser.close()
    assert sorted(cells) == sorted(names)
    assert not dialogs and not errors and scripts == 0
    assert images == 1  # the heatmap only; the <img> name is text
    assert not [u for u in requests if not u.startswith(("file:", "data:"))]


def test_cjk_and_right_to_left_names_are_cell_text(tmp_path):
    """CJK and right-to-left system names are the text of their ranking cells (laid out by the
    browser with ``dir="auto"``), and the page logs no error."""
    names = ["東京大学モデル", "نموذج-عربي", "מודל", "plain-model"]
    rng = np.random.default_rng(1)
    wide = pd.DataFrame(rng.normal(size=(len(names), 4)), columns=["t1", "t2", "t3", "t4"])
    wide.insert(0, "system", names)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a missing CJK font in the figures warns once
        rep = rs.report(rs.Scores.from_wide(wide, system="system"), out=tmp_path / "r")
    errors, requests = [], []
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"]
        )
        page = browser.new_page()
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("request", lambda r: requests.append(r.url))
        page.goto(rep.html.as_uri())
        cells = page.eval_on_selector_all(
            "#ranking td.name", "els => els.map(e => [e.textContent, e.dir])"
        )
        directions = page.eval_on_selector_all(
            "#ranking td.name", "els => els.map(e => getComputedStyle(e).direction)"
        )
        summary = page.locator("#summary").text_content()
        heatmap = page.locator("#heatmap").evaluate("img => img.complete && img.naturalWidth > 0")
        browser.close()
    assert sorted(text for text, _ in cells) == sorted(names)
    assert {d for _, d in cells} == {"auto"}
    by_name = dict(zip((text for text, _ in cells), directions, strict=True))
    assert by_name["نموذج-عربي"] == by_name["מודל"] == "rtl"
    assert by_name["東京大学モデル"] == by_name["plain-model"] == "ltr"
    assert summary and summary.startswith(("Can be claimed", "Cannot be claimed"))
    assert heatmap
    assert not errors, errors
    assert not [u for u in requests if not u.startswith(("file:", "data:"))]
