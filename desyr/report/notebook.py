"""A result in a notebook: what ``Result._repr_html_`` and ``_repr_latex_`` show, and the
candidates as a pandas DataFrame (``Result.candidates_table()``, like PySR's ``equations_``).

The HTML is a fragment of report.html (:mod:`desyr.report.html`): the verdict, the exact form
drawn as an image, the residuals and the candidates, with every supplied text escaped.
"""
from __future__ import annotations

import base64
import io
from typing import TYPE_CHECKING, Any

from desyr.report.html import _candidates, _quantities, _selected, text

if TYPE_CHECKING:
    from desyr.model.result import Result

#: the columns of :func:`candidates_frame`, in order
COLUMNS = ("id", "searcher", "complexity", "status", "Phi", "eps_T", "expression", "removed_by", "selected")


def result_html(r: Result) -> str:
    """The notebook view: a fragment, with the formula drawn in memory (no file)."""
    formulas = []
    if r.exact_form is not None:
        formulas = [uri for name, tex in r.exact_form.latex.items() if (uri := formula_uri(name, tex))]
    title = f"<h3>DeSyR {text(r.command)}: {text(r.problem.title)}</h3>"
    return f'<div class="desyr-result">{title}{_selected(r, formulas)}{_quantities(r)}{_candidates(r)}</div>'


def result_latex(r: Result) -> str | None:
    """``$$ u = ... $$`` per field: the exact form, else the selected expression; None without one."""
    import sympy as sp

    if r.exact_form is not None and r.exact_form.latex:
        pairs = list(r.exact_form.latex.items())
    else:
        exprs = r.solution(exact=False)
        if not exprs:
            return None
        pairs = [(name, sp.latex(e)) for name, e in exprs.items()]
    return "\n".join(f"$$ {sp.latex(sp.Symbol(name))} = {tex} $$" for name, tex in pairs)


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
