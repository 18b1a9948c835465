"""report.html (one self-contained page per run) and a result's notebook views, checked as text
and in a real headless Chromium (Debian's, driven by Selenium; `./dev test` installs it)."""
from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from desyr.api import load_result, run  # the api's results show themselves in a notebook
from desyr.testing import SINE_POISSON_1D, make_problem

#: a title that would run script, load an image from nowhere and close the heading if it were markup
HOSTILE = "<img src=x onerror=\"console.error('title ran')\"></h1><script>console.error('script ran')</script>"
pytestmark = pytest.mark.slow      # each test reads one whole (stage-0) run
ARTIFACTS = Path(os.environ.get("DESYR_TEST_ARTIFACTS", "test-artifacts"))


@pytest.fixture(scope="module")
def solved(tmp_path_factory):
    """A stage-0 run of the sine-Poisson problem (Proved in seconds) under a hostile title."""
    pytest.importorskip("matplotlib")
    text = SINE_POISSON_1D.replace('title = "Sine-Poisson 1D (testing)"', f"title = '''{HOSTILE}'''")
    text = text.replace("[solvers]\nenabled = false\n", "")
    out = tmp_path_factory.mktemp("run") / "r"
    result = run(make_problem(text), out=out)
    assert result.verdict == "proved"
    return out


def test_the_page_holds_everything_it_shows(solved):
    page = (solved / "report.html").read_text(encoding="utf-8")
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    # nothing is fetched: every image is a data: URI, no link or script points anywhere
    assert not re.search(r"""(src|href)\s*=\s*["']?(?!data:)[a-z]+:""", page, re.I)
    assert re.findall(r'<img[^>]+src="data:image/png;base64,', page)          # the figures
    assert 'class="formula"' in page and "data:image/svg+xml;base64," in page  # the exact form
    assert "Proved" in page and "<table class=\"sortable\">" in page
    # the title is text: escaped in the heading and in <title>, never markup
    assert "<script>console" not in page and "<img src=x" not in page
    assert page.count("&lt;img src=x onerror=") == 2


def test_report_md_keeps_its_figures_and_not_the_formula_images(solved):
    md = (solved / "report.md").read_text(encoding="utf-8")
    assert "fig_solution.png" in md and "formula_0.svg" not in md
    assert (solved / "formula_0.svg").is_file()


def test_notebook_views_of_a_result(solved):
    result = load_result(solved)
    fragment = result._repr_html_()
    assert "Proved" in fragment and "data:image/svg+xml;base64," in fragment
    assert 'class="solution"' in fragment and "data:image/png;base64," in fragment     # the solution figure
    assert "<script" not in fragment.lower() and "&lt;img src=x" in fragment
    assert result._repr_latex_() == "$$ u = \\sin{\\left(\\pi x \\right)} $$"
    table = result.candidates_table()
    assert list(table.columns) == ["id", "searcher", "complexity", "status", "Phi", "eps_T", "expression",
                                   "removed_by", "selected"]
    assert len(table) == len(result.candidates) and table["selected"].sum() == 1
    assert table.loc[table["selected"], "expression"].item() == "u = sin(pi*x)"


def _chromium():
    """A headless Chromium driven by Selenium, or the reason there is none."""
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        return None, "selenium is not installed (the test extra)"
    browser, driver = shutil.which("chromium"), shutil.which("chromedriver")
    if not browser or not driver:
        return None, "Debian's chromium and chromium-driver are not installed (./dev test installs them where apt-get can)"
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--window-size=1200,2400"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    try:
        return webdriver.Chrome(service=Service(driver), options=options), ""
    except Exception as exc:  # noqa: BLE001 - a browser that does not start is a skip, said why
        return None, f"chromium did not start: {type(exc).__name__}: {str(exc).splitlines()[0][:200]}"


def test_the_report_in_a_real_browser(solved):
    from selenium.webdriver.common.by import By

    driver, why = _chromium()
    if driver is None:
        pytest.skip(why)
    try:
        driver.get((solved / "report.html").resolve().as_uri())
        images = driver.execute_script(
            "return Array.from(document.images).map(i => [i.className, i.complete, i.naturalWidth]);")
        assert images and all(complete and width > 0 for _, complete, width in images), images
        assert any(cls == "formula" for cls, _, _ in images)          # the math has rendered
        heading = driver.find_element(By.TAG_NAME, "h1").text
        assert "<img src=x onerror=" in heading and "</script>" in heading   # shown as text
        assert driver.execute_script("return document.querySelectorAll('img[src=\"x\"], h1 script').length") == 0
        # a click on the header sorts the timings table by seconds, descending on the second click
        table = driver.find_elements(By.CSS_SELECTOR, "table.sortable")[-1]
        header = table.find_elements(By.TAG_NAME, "th")[1]
        header.click()
        header.click()
        seconds = [float(r.find_elements(By.TAG_NAME, "td")[1].text) for r in table.find_elements(By.CSS_SELECTOR, "tbody tr")]
        assert seconds == sorted(seconds, reverse=True)
        errors = [e for e in driver.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]
        assert errors == []
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        assert driver.save_screenshot(str(ARTIFACTS / "report_html.png"))
        # past the escaping, the policy still runs no script but the page's own (allowed by its hash)
        tampered = solved / "tampered.html"
        tampered.write_text((solved / "report.html").read_text(encoding="utf-8").replace(
            "<body>", "<body><script>document.title='PWNED'</script><img src=x onerror=\"document.title='PWNED'\">", 1),
            encoding="utf-8")
        driver.get(tampered.resolve().as_uri())
        assert driver.title != "PWNED" and driver.title.startswith("DeSyR run")
        assert any("Content Security Policy" in e["message"] for e in driver.get_log("browser"))
    finally:
        driver.quit()
