"""How a result shows itself to people, registered from above.

The data model draws nothing (docs/architecture.md, *Dependency rules*): ``Result._repr_html_``,
``_repr_latex_`` and ``candidates_table`` call the views the report registers here
(:func:`desyr.report.notebook.register_views`, called when :mod:`desyr.api` is imported, so a
result from ``run``, ``refine`` or ``load_result`` shows itself in a notebook).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from desyr.errors import ConfigError

if TYPE_CHECKING:
    from desyr.model.result import Result


@dataclass
class ResultViews:
    html: Callable[[Result], str] | None = None
    latex: Callable[[Result], str | None] | None = None
    table: Callable[[Result], Any] | None = None


#: the one registry; the report fills it
VIEWS = ResultViews()


def table_view() -> Callable[[Result], Any]:
    if VIEWS.table is None:
        raise ConfigError("Result.candidates_table() needs the report's views: import desyr.api first")
    return VIEWS.table
