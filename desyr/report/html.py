"""``report.html``: the run's report as one page that needs nothing else to show.

The page holds everything inline: the figures and the formula as ``data:`` images (the
formula drawn by matplotlib's mathtext as SVG, see :func:`desyr.report.figures.formula`),
the styles, and a few lines of script that sort a table when its header is clicked.  Its
content security policy allows no request at all, so opening it never reaches the network.

Every text a config or a plugin supplies is escaped (``html.escape`` after
:func:`desyr.report.markdown.visible`), so a title such as ``<img src=x onerror=...>`` shows as
text.  Expressions are printed by DeSyR and shown as code.
"""
from __future__ import annotations

import base64
import hashlib
import html
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desyr.report.markdown import (
    component_labels,
    float_text,
    inverse_lines,
    series_lines,
    shown,
    undecided,
    verdict_parts,
    visible,
)

if TYPE_CHECKING:      # model.result shows itself in notebooks through this module: no import at run time
    from desyr.model.result import Result
    from desyr.report.figures import DrawnFigures

MIME = {".png": "image/png", ".svg": "image/svg+xml"}

STYLE = """
body{font:15px/1.45 system-ui,sans-serif;max-width:70rem;margin:1.5rem auto;padding:0 1rem;color:#1d1d1f}
h1{font-size:1.5rem} h2{font-size:1.15rem;margin-top:2rem;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.5rem 0;font-size:.9rem} td,th{border:1px solid #ccc;padding:.2rem .5rem;
vertical-align:top} th{background:#f3f3f3} th.sortable{cursor:pointer} th.sortable:after{content:" \\2195";color:#999}
code{font-size:.85rem;word-break:break-all} .verdict{padding:.6rem .9rem;border-radius:.4rem;margin:1rem 0}
.proved,.verified{background:#e4f5e4} .not_exact{background:#fbe9e7} .unverified{background:#fff6da}
figure{margin:1rem 0} figcaption{font-size:.85rem;color:#555} img{max-width:100%}
"""

#: click a header of a ``sortable`` table to sort by that column (numbers as numbers, text as text)
SCRIPT = """
document.querySelectorAll("table.sortable").forEach(function (table) {
  table.querySelectorAll("th").forEach(function (th, col) {
    th.classList.add("sortable");
    th.addEventListener("click", function () {
      var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
      var up = th.dataset.order !== "up"; th.dataset.order = up ? "up" : "down";
      rows.sort(function (a, b) {
        var x = a.cells[col].dataset.key || a.cells[col].textContent;
        var y = b.cells[col].dataset.key || b.cells[col].textContent;
        var nx = parseFloat(x), ny = parseFloat(y);
        var c = (!isNaN(nx) && !isNaN(ny)) ? nx - ny : x.localeCompare(y);
        return up ? c : -c;
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
});
"""


def _policy(script: str) -> str:
    """No request of any kind (images only from data: URIs), and no script but ``script`` itself,
    allowed by its hash: an injected script or handler would not run even if escaping failed."""
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    return (f"default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'sha256-{digest}'; "
            "base-uri 'none'; form-action 'none'")


POLICY = _policy(SCRIPT)


def text(value: Any) -> str:
    """Plain text for HTML: one line, hidden characters shown by their code, markup escaped."""
    return html.escape(visible(" ".join(str(value).split())))


def number(v: Any) -> str:
    if v is None:
        return "–"
    return float_text(v) if isinstance(v, float) else text(v)


def data_uri(path: Path) -> str | None:
    """The file as a ``data:`` URI, or None when it is missing or not an image type the page shows."""
    mime = MIME.get(path.suffix.lower())
    if mime is None or not path.is_file():
        return None
    return f"data:{mime};base64,{base64.b64encode(path.read_bytes()).decode('ascii')}"


def table(header: Sequence[str], rows: Sequence[Sequence[str]], sortable: bool = False) -> str:
    """A table of cells that are already HTML."""
    head = "".join(f"<th>{h}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    cls = ' class="sortable"' if sortable else ""
    return f"<table{cls}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def render_html(r: Result, drawn: DrawnFigures | None = None, folder: Path | None = None) -> str:
    """The page; ``drawn`` are the run's figures, read from ``folder`` by their file names."""
    records = drawn.records if drawn is not None and folder is not None else ()
    figures = [(folder / f.path.name, f.caption) for f in records if f.kind == "figure" and folder]
    formulas = [uri for f in records if f.kind == "formula" and folder and (uri := data_uri(folder / f.path.name))]
    title = f"DeSyR {text(r.command)}: {text(r.problem.title)}"
    parts = [f"<h1>{title}</h1>", selected_section(r, formulas), quantities_section(r), _attempts(r), _gates(r),
             candidates_section(r), _figures(figures, drawn.skipped if drawn else None), _timings(r),
             f"<p>DeSyR {text(r.provenance.desyr_version)}, schema {text(r.schema)}; components: "
             + ", ".join(text(label) for label in component_labels(r)) + "</p>"]
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta http-equiv=\"Content-Security-Policy\" content=\"{POLICY}\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{title}</title><style>{STYLE}</style></head><body>\n"
            + "\n".join(p for p in parts if p) + f"\n<script>{SCRIPT}</script></body></html>\n")


def selected_section(r: Result, formulas: Sequence[str]) -> str:
    """The selected expression, the verdict and the exact form (``formulas``: one image per field, as
    ``data:`` URIs; without them the exact form is printed)."""
    if r.expression is None:
        return "<p><strong>No candidate could be selected.</strong></p>"
    hidden = undecided(r)
    lines = "".join(f"<div><code>{text(f)} = {text(e)}</code></div>" for f, e in shown(r).items()
                    if f not in hidden)
    head, body, note = verdict_parts(r, text)
    note = f"<p><strong>Note:</strong> {note}</p>" if note else ""
    note += "".join(f"<p>{text(line)}</p>" for line in inverse_lines(r))
    out = [f"<h2>Selected expression</h2>{lines}",
           f'<div class="verdict {text(r.verdict)}" id="verdict"><strong>{head}</strong>{body}{note}</div>']
    form = r.exact_form
    exact = shown(r, exact=True)
    if form is not None and exact:
        lines = ("".join(f'<div><img class="formula" alt="{text(f)} = {text(e)}" src="{u}"></div>'
                         for u, (f, e) in zip(formulas, exact.items()))
                 if len(formulas) == len(exact) and not hidden else
                 "".join(f"<div><code>{text(f)} = {text(e)}</code></div>" for f, e in exact.items()
                         if f not in hidden))
        match = ("" if form.symbolic_match is None else
                 f"<p>Symbolic match with the reference: {'yes' if form.symbolic_match else 'no'}</p>")
        match += "".join(f"<p>{text(line)}</p>" for line in series_lines(r))
        out.append(f"<h2>Exact form</h2>{lines}{match}")
    return "".join(out)


def quantities_section(r: Result) -> str:
    """The verdict's numbers: residuals on the verifier's points, errors against the reference."""
    if r.expression is None:
        return ""
    res, err = r.residuals, r.errors
    rows = [("status", text(r.status)), ("verdict (separate verifier)", text(r.verdict)),
            ("final complexity", number(r.complexity)),
            ("R_eq (verifier's independent interior points)", number(res.R_eq if res else None)),
            ("R_con (verifier's independent constraint points)", number(res.R_con if res else None)),
            ("largest residual relative to the problem's scale", number(res.relative if res else None)),
            ("relative L2 vs reference", number(err.rel_l2))]
    rows += [(f"absolute L2 (RMS) of {text(f)} (its reference is 0: no relative error)", number(v))
             for f, v in err.absolute.items()]
    best = r.get_best()
    if best is not None:
        rows.append(("proposed by", text(best.searcher)))
    return "<h2>Quantities</h2>" + table(["quantity", "value"], rows)


def _attempts(r: Result) -> str:
    if not r.attempts:
        return ""
    rows = [(str(a.index), text(a.step), text(a.change), text(a.reason), text(a.searchers), f"{a.seconds:.1f}",
             number(a.worst_residual), "yes" if a.exact else "no") for a in r.attempts]
    stop = f"<p>Stopped: {text(r.escalation_stop)}.</p>" if r.escalation_stop else ""
    if r.stopped:
        stop += ("<p>Calls stopped at the budget's wall:</p><ul>"
                 + "".join(f"<li>{text(c.line())}</li>" for c in r.stopped) + "</ul>")
    why = "".join(f"<p>Why attempt {a.index}'s candidates are not the answer:</p><ul>"
                  + "".join(f"<li>{text(line)}</li>" for line in a.failures) + "</ul>" for a in r.attempts if a.failures)
    return "<h2>Attempts</h2>" + table(["#", "step", "change", "why", "source", "time (s)", "worst relative residual",
                                        "verified exact"], rows, sortable=True) + stop + why


def _gates(r: Result) -> str:
    rows = [(text(g.gate), "yes" if g.active else "no", str(len(g.kept)), str(len(g.removed)), text(g.note))
            for g in r.selection.gates]
    return "<h2>Gates</h2>" + table(["gate", "active", "kept", "removed", "note"], rows, sortable=True)


def candidates_section(r: Result) -> str:
    """Every candidate, sortable: its searcher, status, scores, who removed it, its expression."""
    rows = []
    for c in r.candidates:
        expr = "; ".join(f"{k} = {v}" for k, v in (c.expression or c.pre_refit_expression).items())
        mark = text(c.removed_by) if c.removed_by else ("<strong>selected</strong>" if c.id == r.selected_id else "")
        rows.append((text(c.id), text(c.searcher), text(c.status), str(c.nfev), number(c.complexity),
                     number(c.eps_T), number(c.phi), mark, f"<code>{text(expr)}</code>"))
    return "<h2>Candidates</h2>" + table(["id", "searcher", "status", "nfev", "complexity", "eps_T", "Phi",
                                          "removed by", "expression"], rows, sortable=True)


def _figures(figures: Sequence[tuple[Path, str]], skipped: str | None) -> str:
    shown = [(uri, caption) for path, caption in figures if (uri := data_uri(Path(path)))]
    if not shown:
        return f"<h2>Figures</h2><p>{text(skipped)}</p>" if skipped else ""
    return "<h2>Figures</h2>" + "".join(f'<figure><img alt="{text(c)}" src="{u}"><figcaption>{text(c)}'
                                        "</figcaption></figure>" for u, c in shown)


def _timings(r: Result) -> str:
    return "<h2>Timings (s)</h2>" + table(["stage", "seconds"], [(text(k), f"{v:.3f}") for k, v in r.timings.items()],
                                          sortable=True)
