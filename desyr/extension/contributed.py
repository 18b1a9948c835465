"""What plugins contribute to the bench and the studies: table columns and the quick studies' bench.

The bench table and ``desyr study --quick`` would otherwise have to name a problem set's table
(``[paper]``) or the components a tiny bench runs; these declarations let the plugin that owns them
say so (hooks ``desyr_bench_columns`` and ``desyr_study_bench``), and the core names none.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from desyr.extension.declared import _answers, _note

if TYPE_CHECKING:  # pragma: no cover
    from desyr.extension.registry import Registry
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


def bench_columns(registry: Registry) -> list[BenchColumn]:
    """Every plugin's bench columns, in plugin precedence order; a header given twice keeps the first."""
    found: list[BenchColumn] = []
    for plugin, answer in _answers(registry, "desyr_bench_columns"):
        try:
            columns = list(answer or [])
            if not all(isinstance(c, BenchColumn) for c in columns):
                raise TypeError("desyr_bench_columns must return BenchColumn objects")
        except Exception as exc:
            _note(registry, plugin, f"desyr_bench_columns left out: {type(exc).__name__}: {exc}")
            continue
        found += [c for c in columns if c.header not in {f.header for f in found}]
    return found


def study_bench(registry: Registry) -> StudyBench | None:
    """The first plugin's tiny bench for the quick studies, or None when no plugin offers one."""
    for plugin, answer in _answers(registry, "desyr_study_bench"):
        if isinstance(answer, StudyBench):
            return answer
        if answer is not None:
            _note(registry, plugin, f"desyr_study_bench left out: returned {type(answer).__name__}, "
                                    "not a StudyBench")
    return None


def cell(column: BenchColumn, problem: Problem | None) -> Any:
    """The column's value for ``problem`` (None for a config that did not load, or a value that failed)."""
    if problem is None:
        return None
    try:
        return column.value(problem)
    except Exception:  # the table must still render; the plugin's broken column shows a dash
        return None
