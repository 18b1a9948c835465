"""``bench.html``: the bench's table as one self-contained page, each run linked to its report.html.

The rows are those of ``bench.md`` (:mod:`desyr.bench.table`), one per configuration and seed,
with the verdict, the relative L2, the seconds and the exact form; every text from a config or a
result is escaped, and the page fetches nothing (the policy of :mod:`desyr.report.html`).
"""
from __future__ import annotations

import platform
import time
from pathlib import Path
from typing import Any

from desyr.bench.table import (
    cell_text,
    cpus,
    exact_text,
    is_recovered,
    plugin_columns,
    refined_l2,
    title_and_problem,
    verdict_of,
)
from desyr.extension.registry import Registry
from desyr.report.html import POLICY, SCRIPT, STYLE, number, table, text


def render_page(rows: list[dict[str, Any]], specs: list[str], registry: Registry | None, command: str,
                out: Path, folders: dict[tuple[str, int], Path]) -> str:
    """The page; ``folders`` are the runs' folders (for the links), by (spec, seed)."""
    body = []
    recovered = proved = 0
    lead = [c for c in plugin_columns(registry) if c.lead]
    for spec in specs:
        title, problem = title_and_problem(registry, spec)
        first = [text(cell_text(c, problem)) for c in lead]
        for row in (r for r in rows if r["spec"] == spec):
            folder = folders.get((spec, row["seed"]))
            link = _link(out, folder)
            if "result" in row:
                result = row["result"]
                verdict = verdict_of(result)
                recovered += is_recovered(result)
                proved += verdict == "proved"
                cells = [*first, text(title), str(row["seed"]), f'<span class="{text(verdict)}">'
                         f"{text(verdict)}</span>", number(refined_l2(result)),
                         number(_total(result)), f"<code>{text(exact_text(result) or '')}</code>",
                         link]
            else:
                cells = [*first, text(title), str(row["seed"]), '<span class="not_exact">failed</span>',
                         "–", "–", f"<code>{text(' | '.join(row['error']))}</code>", link]
            body.append(cells)
    head = [c.header for c in lead] + ["problem", "seed", "verdict", "refined rel L2", "total s", "exact form", "report"]
    summary = (f"<p>{proved} of {len(rows)} run(s) proved, {recovered} recovered (verified exact, refined "
               f"relative L2 at most 1e-10). Command: <code>{text(command)}</code>. Machine: "
               f"{text(platform.machine())}, {cpus()} CPU cores, Python {text(platform.python_version())}. "
               f"Date: {time.strftime('%Y-%m-%d')}.</p>")
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta http-equiv=\"Content-Security-Policy\" content=\"{POLICY}\"><title>DeSyR bench</title>"
            f"<style>{STYLE}</style></head><body><h1>DeSyR bench</h1>{summary}"
            f"{table(head, body, sortable=True)}<script>{SCRIPT}</script></body></html>\n")


def _total(result: dict[str, Any]) -> float | None:
    timings = result.get("timings")
    total = timings.get("total") if isinstance(timings, dict) else None
    return float(total) if isinstance(total, (int, float)) and not isinstance(total, bool) else None


def _link(out: Path, folder: Path | None) -> str:
    """A relative link to the run's report.html (its folder lies under ``out``), or a dash."""
    if folder is None or not (folder / "report.html").is_file():
        return "–"
    relative = (folder / "report.html").relative_to(out).as_posix()
    return f'<a href="{text(relative)}">report</a>'
