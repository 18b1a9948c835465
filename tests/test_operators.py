"""One operator table for every searcher (issue 37, item 7): the common vocabulary's names, and what
each operator means in SymPy and NumPy, live in desyr.symbolic.operators; searchers keep only their
library's spelling and read the meaning from the table."""
import ast
import math
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

import desyr
from desyr.config.settings import SECTIONS
from desyr.plugin import (
    BINARY_OPERATORS,
    UNARY_OPERATORS,
    Vocabulary,
    library_names,
    operator,
    parse_expression,
)

PLUGINS = Path(desyr.__file__).resolve().parent.parent / "plugins"
X = sp.Symbol("x", real=True)
#: a point inside every operator's domain (asin, acos: |x| < 1; log, sqrt: x > 0)
AT = (0.3, 0.7)


def test_library_names_keeps_every_name_of_an_iterator():
    names = library_names(name for name in UNARY_OPERATORS if name != "cube")
    assert set(names) == set(UNARY_OPERATORS) - {"cube"}
    assert library_names(["+", "/"], {"/": "div"}) == {"+": "+", "/": "div"}


def test_library_names_refuses_an_unknown_operator_or_a_stray_spelling():
    with pytest.raises(KeyError, match="'erf'"):
        library_names(["sin", "erf"])
    with pytest.raises(KeyError, match="cos"):
        library_names(["sin"], {"cos": "cosine"})


def test_the_config_offers_exactly_the_table():
    search = SECTIONS["search"]
    assert tuple(search["binary"].choices) == tuple(BINARY_OPERATORS)
    assert tuple(search["unary"].choices) == tuple(UNARY_OPERATORS)


@pytest.mark.parametrize("name", list(UNARY_OPERATORS))
def test_a_unary_operator_means_the_same_to_the_parser_sympy_and_numpy(name):
    op = UNARY_OPERATORS[name]
    expr = op.sympy(X)
    if name not in ("square", "cube"):       # the parser reads square/cube only as powers
        assert parse_expression(f"{name}(x)", Vocabulary(["x"])) == expr
    for v in AT:
        assert math.isclose(float(op.numpy(np.float64(v))), float(expr.subs(X, v)), rel_tol=1e-12)


@pytest.mark.parametrize("name", list(BINARY_OPERATORS))
def test_a_binary_operator_means_the_same_in_sympy_and_numpy(name):
    op = operator(name)
    assert op.arity == 2
    a, b = AT
    assert math.isclose(float(op.numpy(a, b)), float(op.sympy(sp.Float(a), sp.Float(b))), rel_tol=1e-12)


def _searchers():
    from desyr_dictionary.plugin import DictionarySearcher
    from desyr_gplearn.plugin import GplearnSearcher
    from desyr_operon.plugin import OperonSearcher
    from desyr_pysr.plugin import PySRSearcher
    return [OperonSearcher, GplearnSearcher, PySRSearcher, DictionarySearcher]


@pytest.mark.parametrize("searcher", _searchers(), ids=lambda c: c.name)
def test_every_searcher_offers_operators_of_the_table(searcher):
    assert searcher.supported_binary <= set(BINARY_OPERATORS)
    assert searcher.supported_unary <= set(UNARY_OPERATORS)
    assert searcher.supported_unary, "a searcher that offers no unary operator lost its table"


def test_gplearn_reads_each_common_operator_as_the_table_means_it():
    from desyr_gplearn.plugin import BUILTIN_BINARY, BUILTIN_UNARY, CUSTOM_UNARY, SYMPY_OF
    y = sp.Symbol("y", real=True)
    for name, gp in {**BUILTIN_BINARY, **BUILTIN_UNARY, **{k: v[1] for k, v in CUSTOM_UNARY.items()}}.items():
        args = (X, y)[:operator(name).arity]
        assert SYMPY_OF[gp](*args) == operator(name).sympy(*args), name


def _restated(key: ast.expr | None, value: ast.expr) -> bool:
    """``"sin": "sin"`` or ``"sin": sp.sin``: an entry that restates the table instead of spelling a
    library's own name."""
    if not (isinstance(key, ast.Constant) and key.value in set(UNARY_OPERATORS) | set(BINARY_OPERATORS)):
        return False
    if isinstance(value, ast.Constant):
        return bool(value.value == key.value)
    return isinstance(value, ast.Attribute) and value.attr == key.value


def _copied_tables(path: Path) -> list[int]:
    """Lines of dict literals in ``path`` that restate three or more operators of the table."""
    return [node.lineno for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.Dict) and sum(map(_restated, node.keys, node.values)) >= 3]


def test_no_searcher_copies_the_operator_table():
    # the deepxde teacher's table maps SymPy's printed function names to torch for lambdify: not operators
    copies = {str(p.relative_to(PLUGINS)): lines for p in sorted(PLUGINS.rglob("*.py"))
              if p.relative_to(PLUGINS).parts[0] != "desyr_deepxde" and (lines := _copied_tables(p))}
    assert copies == {}
