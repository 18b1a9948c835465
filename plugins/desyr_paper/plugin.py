"""Bundled problem sets, reachable as ``<set>:<name>`` or ``<set>:<id>``.

``paper:`` serves the paper's benchmark configurations (folder ``problems/``),
``examples:`` a second set of new problems written with default settings (folder ``examples/``),
``geometry:`` problems on shapes other than boxes, with default settings (folder ``geometry/``),
``inverse:`` unknown coefficients from measurements (folder ``inverse/``), ``parametric:`` families
in their parameters (folder ``parametric/``), ``handbook:`` closed forms from catalogues of exact
solutions that no exact solver settles alone, with default settings (folder ``handbook/``),
``special:`` solutions through erf, Bessel and Airy functions (folder ``special/``), ``textbook:`` linear
initial-boundary value problems whose textbook answer is a series (folder ``textbook/``).
"""
from __future__ import annotations

import sys
from importlib import resources
from importlib.resources.abc import Traversable
from typing import TYPE_CHECKING

from desyr.plugin import Option, hookimpl

if TYPE_CHECKING:    # the data model loads SymPy: a spec that is not ours must not wait for it
    from collections.abc import Callable

    from desyr.plugin import BenchColumn, Problem, ProblemSet

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

SETS = {"paper:": "problems", "examples:": "examples", "geometry:": "geometry",   # spec prefix -> package folder
        "inverse:": "inverse", "parametric:": "parametric", "handbook:": "handbook",
        "special:": "special", "textbook:": "textbook"}
TITLES = {"paper:": "the paper's benchmark configurations", "examples:": "new problems with default settings",
          "geometry:": "problems on disks, polygons, balls and CSG domains, with default settings",
          "inverse:": "unknown coefficients identified exactly from measurements, with default settings",
          "parametric:": "families solved as one formula in their parameters, with default settings",
          "handbook:": "nonlinear and manufactured problems from handbooks of exact solutions, beyond the CAS alone",
          "special:": "solutions through erf, Bessel and Airy functions, with default settings",
          "textbook:": "linear initial-boundary value problems whose answer is a series, with default settings"}


def _library(prefix: str) -> dict[str, Traversable]:
    """file stem -> resource, e.g. '13_burgers'."""
    folder = resources.files("desyr_paper") / SETS[prefix]
    return {f.name[:-5]: f for f in folder.iterdir() if f.name.endswith(".toml")}


def _lookup(prefix: str, key: str) -> tuple[str, Traversable] | None:
    key = key.lower().replace("-", "_")
    for stem, res in sorted(_library(prefix).items()):
        ident, _, name = stem.partition("_")
        if key in (stem, name, ident, ident.lstrip("0")):
            return stem, res
    return None


@hookimpl
def desyr_load_problem(spec: str) -> Problem | None:
    prefix = next((p for p in SETS if spec.startswith(p)), None)
    if prefix is None:
        return None
    from desyr.plugin import ConfigError, problem_from_toml

    found = _lookup(prefix, spec[len(prefix):])
    if found is None:
        names = ", ".join(prefix + s.partition("_")[2] for s in sorted(_library(prefix)))
        raise ConfigError(f"unknown bundled problem {spec!r}; available: {names}")
    stem, res = found
    return problem_from_toml(res.read_text(encoding="utf-8"), source=f"{prefix}{stem.partition('_')[2]}")


#: the paper's own figures for a configuration: bench.md prints them beside the measured ones
PAPER_SECTION = {
    "id": Option(None, "the configuration's ID in the paper", kind=str, nullable=True),
    "refined_rel_l2": Option(None, "the paper's refined relative L2", kind=float, nullable=True, low=0.0),
    "total_seconds": Option(None, "the paper's total wall time", kind=float, nullable=True, low=0.0),
}


@hookimpl
def desyr_config_sections() -> dict[str, dict[str, Option]]:
    return {"paper": PAPER_SECTION}


def _paper_figure(key: str) -> Callable[[Problem], float | str | None]:
    def value(problem: Problem) -> float | str | None:
        figure = (problem.sections.get("paper") or {}).get(key)
        return figure if isinstance(figure, (int, float, str)) else None
    return value


@hookimpl
def desyr_bench_columns() -> list[BenchColumn]:
    """The configuration's paper ID first, and the paper's figures beside the measured ones."""
    from desyr.plugin import BenchColumn

    return [BenchColumn("ID", _paper_figure("id"), lead=True),
            BenchColumn("paper refined rel L2", _paper_figure("refined_rel_l2")),
            BenchColumn("paper total s", _paper_figure("total_seconds"))]


@hookimpl
def desyr_problem_sets() -> list[ProblemSet]:
    from desyr.plugin import ProblemSet

    # the paper's polynomial variant of its first configuration is a study input, not one of the 18
    return [ProblemSet(prefix[:-1], TITLES[prefix], tuple(spec for spec, _ in _rows(prefix)
                                                         if not spec.endswith("_polynomial")),
                       default=prefix == "paper:")
            for prefix in SETS]


@hookimpl
def desyr_problem_library() -> list[tuple[str, str]]:
    return [row for prefix in SETS for row in _rows(prefix)]


def _rows(prefix: str) -> list[tuple[str, str]]:
    rows: list[tuple[str, str]] = []
    for stem, res in sorted(_library(prefix).items()):
        ident, _, name = stem.partition("_")
        data = tomllib.loads(res.read_text(encoding="utf-8"))
        rows.append((f"{prefix}{name}", f"[{ident}] {data.get('title', stem)}"))
    return rows
