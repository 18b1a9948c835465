"""The reference of the public helpers of :mod:`desyr_sympy.shared`, generated from their docstrings: the
page a method author reads beside docs/solvers.md ("Writing an exact method"). ``python -m desyr.cli.docgen``
writes it into docs/sympy-helpers.md (the searcher's ``doc_tables["helpers"]``), so it cannot drift."""
from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from collections.abc import Callable, Iterator, Mapping
from types import ModuleType
from typing import Any


def helpers_reference() -> str:
    """One section per module of ``desyr_sympy.shared``: what it is for, then each public function and
    class defined there, its call and the first paragraph of its docstring."""
    import desyr_sympy.shared as shared

    parts = []
    for info in sorted(pkgutil.iter_modules(shared.__path__), key=lambda i: i.name):
        module = importlib.import_module(f"{shared.__name__}.{info.name}")
        rows = [f"| `{call}` | {_cell(doc)} |" for call, doc in _helpers(module)]
        if not rows:
            continue
        parts += [f"### `{module.__name__}`", "", _paragraph(module.__doc__), "",
                  "| helper | what it gives |", "|---|---|", *rows, ""]
    return "\n".join(parts).rstrip()


def _helpers(module: ModuleType) -> Iterator[tuple[str, str]]:
    for name, value in vars(module).items():
        if name.startswith("_") or getattr(value, "__module__", None) != module.__name__:
            continue
        if inspect.isclass(value) or inspect.isfunction(value):
            yield f"{name}{_parameters(value)}", _paragraph(value.__doc__)


def _parameters(value: Callable[..., Any]) -> str:
    """``(problem, fields)``: the parameters' names, without their annotations and defaults."""
    try:
        signature = inspect.signature(value)
    except (TypeError, ValueError):
        return ""
    names = [("*" if p.kind is p.VAR_POSITIONAL else "**" if p.kind is p.VAR_KEYWORD else "") + p.name
             for p in signature.parameters.values() if p.name != "self"]
    return f"({', '.join(names)})"


def _paragraph(doc: str | None) -> str:
    """The first paragraph of a docstring, on one line (reST's double backquotes as markdown's)."""
    text = inspect.cleandoc(doc or "").split("\n\n", 1)[0]
    text = re.sub(r":\w+:`~?([\w.]+)`", lambda m: f"`{m.group(1)}`", " ".join(text.split()))
    return text.replace("``", "`") or "–"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


class HelperTables(Mapping[str, str]):
    """The searcher's ``doc_tables`` with the helpers' reference made only when docgen asks for it (it
    imports and inspects every helper module)."""

    def __init__(self, tables: Mapping[str, str]) -> None:
        self._tables = dict(tables)

    def __getitem__(self, key: str) -> str:
        if key == "helpers":
            return helpers_reference()
        return self._tables[key]

    def __iter__(self) -> Iterator[str]:
        return iter([*self._tables, "helpers"])

    def __len__(self) -> int:
        return len(self._tables) + 1
