"""A result in a notebook: what ``Result._repr_html_`` and ``_repr_latex_`` show, and the
candidates as a pandas DataFrame (``Result.candidates_table()``, like PySR's ``equations_``).

The HTML is a fragment of report.html (:mod:`desyr.report.html`): the verdict, the exact form
drawn as an image, the residuals and the candidates, with every supplied text escaped.
"""
from __future__ import annotations

import base64
import io
from typing import TYPE_CHECKING, Any

from desyr.report.html import candidates_section, quantities_section, selected_section, text

if TYPE_CHECKING:
    from desyr.model.result import Result

#: the columns of :func:`candidates_frame`, in order
COLUMNS = ("id", "searcher", "complexity", "status", "Phi", "eps_T", "expression", "removed_by", "selected")


class NotebookViews:
    """The report's :class:`~desyr.model.result.ResultViews`: what the results of ``desyr.api`` show in a
    notebook (the data model draws nothing; the api gives these to every result it returns)."""

    def html(self, result: Result) -> str:
        return result_html(result)

    def latex(self, result: Result) -> str | None:
        return result_latex(result)

    def table(self, result: Result) -> Any:
        return candidates_frame(result)


#: the one instance the api gives its results (it holds nothing: a result pickles with it)
NOTEBOOK_VIEWS = NotebookViews()


def result_html(r: Result) -> str:
    """The notebook view: a fragment, with the formula drawn in memory (no file)."""
    formulas = [uri for name, tex in _latex(r) if (uri := formula_uri(name, tex))] if r.exact_form else []
    title = f"<h3>DeSyR {text(r.command)}: {text(r.problem.title)}</h3>"
    figure = solution_figure_uri(r)
    shown = f'<h2>Solution</h2><img class="solution" alt="the solution figure" src="{figure}">' if figure else ""
    # the report's sections sit under the notebook's own headings: one level below this title
    body = f"{selected_section(r, formulas)}{shown}{quantities_section(r)}{candidates_section(r)}"
    return f'<div class="desyr-result">{title}{body.replace("<h2>", "<h4>").replace("</h2>", "</h4>")}</div>'


def result_latex(r: Result) -> str | None:
    """``$$ u = ... $$`` per field: the exact form, else the selected expression; None without one."""
    import sympy as sp

    pairs = _latex(r)
    return "\n".join(f"$$ {sp.latex(sp.Symbol(name))} = {tex} $$" for name, tex in pairs) if pairs else None


def _latex(r: Result) -> list[tuple[str, str]]:
    """LaTeX of the expressions as DeSyR prints them, from the text read back through the bounded
    parser: the ``latex`` strings a result.json carries are not trusted (a notebook renders them)."""
    import sympy as sp

    exprs = r.solution()
    return [(name, sp.latex(e)) for name, e in exprs.items()] if exprs else []


def formula_uri(name: str, tex: str) -> str | None:
    """``name = tex`` drawn by matplotlib's mathtext as an SVG ``data:`` URI; None without matplotlib
    or where mathtext cannot read the LaTeX."""
    try:
        import sympy as sp
        from matplotlib import mathtext
        from matplotlib.font_manager import FontProperties

        buf = io.BytesIO()
        mathtext.math_to_image(f"${sp.latex(sp.Symbol(name))} = {tex}$", buf, prop=FontProperties(size=16),
                               format="svg")
    except Exception:  # noqa: BLE001 - the view falls back to the printed expression
        return None
    return "data:image/svg+xml;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def solution_figure_uri(r: Result) -> str | None:
    """The report's solution figure (profile or maps against the reference), drawn in a temporary
    folder from the problem the result carries; None without matplotlib, a config or an expression."""
    import tempfile

    from desyr.report.figures import draw_plans, have_matplotlib, plan_run_figures
    from desyr.report.html import data_uri
    from desyr.verify.verdict import read_problem

    if not have_matplotlib() or r.config is None or r.expression is None:
        return None
    try:
        problem = read_problem({"format": r.config.format, "text": r.config.text, "source": r.config.source})
        with tempfile.TemporaryDirectory() as folder:
            plans = [p for p in plan_run_figures(r, problem, folder) if p.draw in ("profile_1d", "field_maps")]
            records = draw_plans(plans)
            return data_uri(records[0].path) if records else None
    except Exception:  # noqa: BLE001 - the view goes on without its figure
        return None


def candidates_frame(r: Result) -> Any:
    """One row per candidate (see :data:`COLUMNS`), in pool order; needs pandas."""
    try:
        import pandas as pd  # type: ignore[import-untyped, import-not-found, unused-ignore]
    except ImportError:
        from desyr.errors import ConfigError

        raise ConfigError("Result.candidates_table() needs pandas (pip install pandas)") from None
    rows = []
    for c in r.candidates:
        exprs = c.expression or c.pre_refit_expression
        rows.append((c.id, c.searcher, c.complexity, c.status, c.phi, c.eps_T,
                     "; ".join(f"{k} = {v}" for k, v in exprs.items()), c.removed_by, c.id == r.selected_id))
    return pd.DataFrame(rows, columns=list(COLUMNS))
