"""What plugins contribute to the bench and the studies: table columns and the quick studies' bench.

The bench table and ``desyr study --quick`` would otherwise have to name a problem set's table
(``[paper]``) or the components a tiny bench runs; these declarations let the plugin that owns them
say so (hooks ``desyr_bench_columns`` and ``desyr_study_bench``, asked by
:func:`desyr.extension.declared.bench_columns` and :func:`~desyr.extension.declared.study_bench`), and
the core names none.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from desyr.model.problem import Problem


@dataclass(frozen=True)
class BenchColumn:
    """A column of the bench table (``bench.md``; a ``lead`` column also in ``bench.html``).

    ``value(problem)`` gives the cell for one configuration: a number (printed as the table prints
    its own), a text, or None (printed as a dash). ``lead`` columns come before the problem's title,
    the others after the timings."""

    header: str
    value: Callable[[Problem], float | str | None]
    lead: bool = False


@dataclass(frozen=True)
class StudyBench:
    """The tiny bench ``desyr study --quick`` runs when a study reads archived runs and no
    ``--bench`` is given: config name -> TOML text, the environment those runs need (a consent a
    config names, say), and one line for the study's notes."""

    configs: Mapping[str, str]
    note: str
    environment: Mapping[str, str] = field(default_factory=dict)


def cell(column: BenchColumn, problem: Problem | None) -> Any:
    """The column's value for ``problem`` (None for a config that did not load, or a value that failed)."""
    if problem is None:
        return None
    try:
        return column.value(problem)
    except Exception:  # the table must still render; the plugin's broken column shows a dash
        return None
