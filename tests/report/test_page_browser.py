"""The study page in a real browser (the system's Chromium driven by playwright): it loads
with no console error, every table has its rows, every figure its marks, a click on a
column's header sorts it, a progress curve's point shows its numbers when hovered, and the
page draws the same with the network cut. On a small generated study and on the committed
studies' pages (docs/simopt.html, docs/main.html).

``make test-browser`` installs what these need; without a browser they are skipped."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest
from test_page import ROOT, regret_study, small_study

from acfs_cli.report.page import write_page


def _chromium() -> str | None:
    for candidate in (os.environ.get("ACFS_CHROMIUM"), shutil.which("chromium"),
                      shutil.which("chromium-browser")):
        if candidate and Path(candidate).is_file():
            return candidate
    return None


try:
    from playwright.sync_api import sync_playwright
except ImportError:  # the browser extra is not installed
    sync_playwright = None

CHROMIUM = _chromium()
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(sync_playwright is None or CHROMIUM is None,
                       reason="no browser: `make test-browser` installs playwright (the browser "
                       "extra) and Chromium (apt-get install chromium)"),
]
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
COMMITTED = ["simopt", "main"]


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> dict[str, Path]:
    """The small study's page, a page of two studies, one rated on a regret, and the
    committed studies' pages."""
    root = tmp_path_factory.mktemp("browser")
    small = small_study(root, "small")
    second = small_study(root, "second", budgets=(500,), reps=2, failed={("shop", "gp-bo")})
    out = {"small": write_page([small], root / "small.html", results_root=root),
           "both": write_page([small, second], root / "both.html", results_root=root),
           "regret": write_page([regret_study(root)], root / "regret.html", results_root=root)}
    return out | {name: ROOT / "docs" / f"{name}.html" for name in COMMITTED}


class Opened:
    """A page opened in a fresh context: its console errors and every request it made."""

    def __init__(self, browser, path: Path, offline: bool = False):
        self.context = browser.new_context(viewport={"width": 1400, "height": 900})
        self.requests: list[str] = []
        self.errors: list[str] = []
        if offline:
            self.context.set_offline(True)
            self.context.route(re.compile(r"^(?!file:).*"), lambda route: route.abort())
        self.page = self.context.new_page()
        self.page.set_default_timeout(30_000)
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error"
                     else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.goto(path.resolve().as_uri())
        self.page.wait_for_load_state("load")

    def counts(self) -> dict:
        """Rows of each table and marks of each figure, in page order."""
        return self.page.evaluate("""() => ({
            rows: [...document.querySelectorAll('table')].map(t => t.tBodies[0].rows.length),
            marks: [...document.querySelectorAll('.figure')].map(
                f => f.getAttribute('data-fig') + ':' + f.querySelectorAll('.mark').length)})""")

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def opened(browser):
    made = []

    def open_page(path: Path, offline: bool = False) -> Opened:
        made.append(Opened(browser, path, offline))
        return made[-1]

    yield open_page
    for page in made:
        page.close()


@pytest.mark.parametrize("name", ["small", "both", "regret", *COMMITTED])
def test_the_page_loads_with_no_console_error_and_asks_for_nothing(pages, opened, name):
    page = opened(pages[name])
    assert page.errors == []
    assert [u for u in page.requests if not u.startswith("file:")] == []


@pytest.mark.parametrize("name", ["small", "both", "regret", *COMMITTED])
def test_every_table_has_its_rows_and_every_figure_its_marks(pages, opened, name):
    page = opened(pages[name])
    counts = page.counts()
    assert counts["rows"] and min(counts["rows"]) > 0
    tables = page.page.locator("div.table").count()
    assert len(counts["rows"]) == tables
    for figure in counts["marks"]:
        assert int(figure.split(":")[1]) > 0, figure
    # each figure's place holds a drawn figure or says why there is none
    blocks = page.page.evaluate("""() => [...document.querySelectorAll('.figblock')].map(
        b => !!b.querySelector('.figure svg') || !!b.querySelector('.nofig'))""")
    assert blocks and all(blocks)


def test_the_committed_simopt_page_draws_every_figure(pages, opened):
    marks = opened(pages["simopt"]).counts()["marks"]
    assert [m.split(":")[0] for m in marks] == ["progress", "solvability", "area", "boxes"]


def column_values(page, title: str, header: str) -> list[float]:
    return page.evaluate("""([title, header]) => {
        const block = [...document.querySelectorAll('div.table')].find(
            d => d.querySelector('h4').textContent.startsWith(title));
        const heads = [...block.querySelectorAll('thead tr:last-child th')];
        const at = heads.findIndex(h => h.textContent === header);
        return [...block.querySelectorAll('tbody tr')].map(
            r => parseFloat(r.cells[at].getAttribute('data-v')));
    }""", [title, header])


def test_a_click_on_a_header_sorts_its_column_both_ways(pages, opened):
    page = opened(pages["small"]).page
    title, header = "Full statistics of J (", "J_med"
    before = column_values(page, title, header)
    assert before != sorted(before)  # grouped by problem, not sorted across them
    heading = page.locator("div.table", has_text=title).first.locator(
        "thead tr:last-child th", has_text=re.compile(f"^{header}$"))
    heading.click()
    assert column_values(page, title, header) == sorted(before)
    assert heading.get_attribute("aria-sort") == "ascending"
    heading.click()
    assert column_values(page, title, header) == sorted(before, reverse=True)


@pytest.mark.parametrize("name", ["small", "simopt"])
def test_hovering_a_progress_point_shows_its_numbers(pages, opened, name):
    page = opened(pages[name]).page
    data = json.loads(page.locator("#figdata").text_content())["x0"]["progress"]
    budget = max(p["budget"] for p in data)
    # the first panel's last point: drawn last, so on top of any it covers
    line = next(p for p in data if p["budget"] == budget)["lines"][-1]
    at = max(i for i, (d, m) in enumerate(zip(line["draws"], line["median"], strict=True))
             if d > 0 and m is not None and abs(m) < 1e307)
    panel = page.locator('.figure[data-fig="progress"] svg').first
    panel.locator("circle.point").last.hover()
    tip = page.locator("#tip")
    assert tip.is_visible()
    text = tip.text_content()
    assert f"draws {line['draws'][at]:,.0f}" in text
    assert f"replications {line['n'][at]}" in text
    shown = float(re.search(r"median (-?[0-9.,e+-]+) %", text).group(1).replace(",", ""))
    assert shown == pytest.approx(line["median"][at], rel=0.01, abs=1e-9)
    page.mouse.move(1, 1)
    assert not tip.is_visible()


@pytest.mark.parametrize("name", ["small", "simopt"])
def test_the_page_draws_the_same_with_the_network_cut(pages, opened, name):
    online = opened(pages[name])
    offline = opened(pages[name], offline=True)
    assert offline.errors == []
    assert offline.counts() == online.counts()


def test_a_budget_chosen_redraws_its_figure(pages, opened):
    page = opened(pages["small"]).page
    figure = page.locator('.figure[data-fig="progress"]')
    tips_at = figure.locator("circle.point").count()
    figure.locator("select").select_option("500")
    assert figure.locator("circle.point").count() == tips_at  # same methods and checkpoints
    first = page.locator('.figure[data-fig="progress"] svg .title').first.text_content()
    assert first == "queue λ=0.70"


def test_several_studies_show_one_at_a_time_or_side_by_side(pages, opened):
    page = opened(pages["both"]).page
    second = page.locator("section#x1")
    assert page.locator("section#x0").is_visible() and not second.is_visible()
    page.locator('button[data-tab="x1"]').click()
    assert second.is_visible() and not page.locator("section#x0").is_visible()
    page.locator('button[data-tab="all"]').click()
    assert second.is_visible() and page.locator("section#x0").is_visible()
    assert second.locator("text=Failed cells (2)").count() == 1
