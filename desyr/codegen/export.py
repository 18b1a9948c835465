"""Export a solution (field -> sympy expression) as source code or as a callable.

Every python-based format defines ``solution(X)``: X is an (n, d) array with the
columns in ``variables`` order, the result an (n, n_fields) array of the
backend's type, columns in the dict's field order. C, Fortran and Julia define
one scalar function per field and the same vectorised ``solution``.
No backend library is imported here; generated code imports its own.

Field and variable names are written into the code, so they are checked first:
ASCII identifiers, not reserved, not colliding with the names the generated code
uses itself (``desyr_*``).  Callables are built from the sympy expressions with
``sympy.lambdify``, never by running exported text.
"""
from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import sympy as sp

from desyr.codegen import series_code
from desyr.codegen.series_export import SumCode, domain_box, is_series, notes, prepare
from desyr.codegen.special_export import C, Fortran, has_special, printer, reciprocal_hyperbolic
from desyr.symbolic.expressions import check_name

FORMATS = ("latex", "sympy", "numpy", "torch", "jax", "c", "fortran", "julia")
PYTHON_BACKENDS = ("numpy", "torch", "jax")

# C99 names that <math.h> only defines outside strict ISO mode; sympy's C printer uses them.
_C_CONSTANTS = {"M_E": sp.E, "M_LOG2E": 1 / sp.log(2), "M_LOG10E": 1 / sp.log(10), "M_LN2": sp.log(2),
                "M_LN10": sp.log(10), "M_PI": sp.pi, "M_PI_2": sp.pi / 2, "M_PI_4": sp.pi / 4,
                "M_1_PI": 1 / sp.pi, "M_2_PI": 2 / sp.pi, "M_2_SQRTPI": 2 / sp.sqrt(sp.pi),
                "M_SQRT2": sp.sqrt(2), "M_SQRT1_2": 1 / sp.sqrt(2)}


def export(exprs: Mapping[str, sp.Expr], variables: Sequence[str], fmt: str,
           domain: Mapping[str, tuple[float, float]] | None = None) -> str:
    """Source text of the solution in format ``fmt`` (one of :data:`FORMATS`).  A series is written as a
    truncated sum (``latex`` and ``sympy``: exactly), with comments stating the terms kept and the proved
    tail bound over ``domain`` (each variable's range), where one holds (``docs/series.md``)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; choose one of {', '.join(FORMATS)}")
    symbols = _symbols(exprs, variables)
    if not is_series(exprs):
        return _WRITERS[fmt](dict(exprs), symbols)
    if fmt in ("latex", "sympy"):
        mark = "%" if fmt == "latex" else "#"
        return f"{mark} the series is written exactly (not truncated)\n" + _WRITERS[fmt](dict(exprs), symbols)
    plain, codes = prepare(exprs, domain_box(exprs, variables, domain))
    mark = {"c": "//", "fortran": "!"}.get(fmt, "#")
    return "".join(f"{mark} {line}\n" for line in notes(codes)) + _WRITERS[fmt](plain, symbols, codes=codes)


def to_callable(exprs: Mapping[str, sp.Expr], variables: Sequence[str], backend: str = "numpy") -> Callable[[Any], Any]:
    """``f(X) -> (n, n_fields)`` array of ``backend`` ("numpy", "torch" or "jax"): each field is
    ``sympy.lambdify`` of its expression with the printer of the exported code, so the values are
    those of :func:`export`'s ``solution``; no exported text is run.  jax gets ``jax_enable_x64``
    (float32 would lose 9 digits)."""
    if backend not in PYTHON_BACKENDS:
        raise ValueError(f"to_callable backend must be one of {', '.join(PYTHON_BACKENDS)}, got {backend!r}")
    symbols = _symbols(exprs, variables)
    if is_series(exprs):
        return _series_callable(exprs, symbols, backend)
    fold = _fold_numbers if backend == "torch" else _identity
    modules = ["scipy", "numpy"] if backend == "numpy" else backend
    functions = [sp.lambdify(symbols, fold(reciprocal_hyperbolic(e)), modules=modules, printer=printer(backend))
                 for e in exprs.values()]
    to_array, zeros, stack = _array_library(backend)

    def solution(X: Any) -> Any:
        X = to_array(X)
        zero = zeros(X)          # a constant field still gives one value per row
        columns = [X[:, j] for j in range(len(symbols))]
        return stack([zero + f(*columns) for f in functions])
    return solution


def _series_callable(exprs: Mapping[str, sp.Expr], symbols: Sequence[sp.Symbol], backend: str) -> Callable[[Any], Any]:
    """A series through DeSyR's own evaluation (each sum cut where its proved tail bound over the
    points is within round-off, :func:`desyr.symbolic.numeric.evaluate_series`), in NumPy; torch and
    jax get its values as their arrays (no gradient flows through a series)."""
    import numpy

    from desyr.symbolic.numeric import broadcast, lambdify
    function = lambdify(list(symbols), list(exprs.values()))
    to_array, _, _ = _array_library(backend)

    def solution(X: Any) -> Any:
        points = numpy.asarray(X, dtype=numpy.float64)
        with numpy.errstate(all="ignore"):
            values = function(*[points[:, j] for j in range(len(symbols))])
        return to_array(numpy.column_stack([broadcast(v, points.shape[0]) for v in values]))
    return solution


def _array_library(backend: str) -> tuple[Callable[[Any], Any], Callable[[Any], Any], Callable[[Any], Any]]:
    """``(to float64 array, zeros of one row each, stack columns)`` of ``backend``, imported only here."""
    if backend == "torch":
        import torch

        return (lambda X: torch.as_tensor(X, dtype=torch.float64),
                lambda X: torch.zeros(X.shape[0], dtype=X.dtype, device=X.device),
                lambda columns: torch.stack(columns, dim=1))
    xp: Any
    if backend == "jax":
        import jax
        import jax.numpy

        jax.config.update("jax_enable_x64", True)
        xp = jax.numpy
    else:
        import numpy
        xp = numpy
    return (lambda X: xp.asarray(X, dtype=xp.float64), lambda X: xp.zeros(X.shape[0], dtype=X.dtype),
            lambda columns: xp.stack(columns, axis=1))


# ------------------------------------------------------------------ helpers
#: Fortran identifiers have at most 63 characters, and fields are written as desyr_<field>.
MAX_NAME = 57


def _checked_name(name: object, what: str) -> str:
    """A field or variable name that can be written into code: an ASCII identifier, not reserved,
    not one of the generated code's own names (``desyr_*`` in any case, for Fortran; the ``torch`` and
    ``jax`` modules)."""
    name = check_name(name, what)
    if len(name) > MAX_NAME or name.lower().startswith("desyr_") or name in ("torch", "jax"):
        raise ValueError(f"{what} {name[:60]!r} cannot be exported: at most {MAX_NAME} characters, "
                         f"not starting with desyr_, not torch or jax")
    return name


def _symbols(exprs: Mapping[str, sp.Expr], variables: Sequence[str]) -> list[sp.Symbol]:
    """The expressions' own symbols in ``variables`` order (same name, any assumptions); every field
    and variable name is checked first, since the writers paste them into code."""
    for f in exprs:
        _checked_name(f, "field name")
    for v in variables:
        _checked_name(v, "variable name")
    free = {s.name: s for e in exprs.values() for s in sp.sympify(e).free_symbols}
    unknown = sorted(set(free) - set(variables))
    if unknown:
        raise ValueError(f"expressions use {', '.join(unknown)}, which are not among the variables {list(variables)}")
    return [free.get(name, sp.Symbol(name, real=True)) for name in variables]


def _fold_numbers(expr: sp.Expr) -> sp.Expr:
    """Functions of plain numbers (sqrt(2), log(2)) become 17-digit floats: torch's
    functions take tensors, not Python numbers."""
    nodes = [n for n in sp.preorder_traversal(expr)
             if n.is_number and not n.is_Atom and (isinstance(n, sp.Function) or n.is_Pow)]
    return expr.xreplace({n: sp.Float(sp.N(n, 20), 20) for n in nodes}) if nodes else expr


def _header(exprs: Mapping[str, sp.Expr], symbols: Sequence[sp.Symbol], comment: str) -> str:
    names = ", ".join(s.name for s in symbols)
    return (f"{comment} DeSyR solution: fields {', '.join(exprs)} of ({names}); "
            f"generated by desyr.codegen.export\n")


# ------------------------------------------------------------------ writers
def _latex(exprs: Mapping[str, sp.Expr], symbols: Sequence[sp.Symbol]) -> str:
    args = ", ".join(sp.latex(s) for s in symbols)
    return "\n".join(f"{f}({args}) = {sp.latex(e, order='none')}" for f, e in exprs.items()) + "\n"


def _sympy(exprs: Mapping[str, sp.Expr], symbols: Sequence[sp.Symbol]) -> str:
    lines = [_header(exprs, symbols, "#"), "from sympy import *", "", "SOLUTION = {"]
    lines += [f"    {f!r}: {sp.srepr(e)}," for f, e in exprs.items()]
    lines.append("}")
    lines.append(f"VARIABLES = {tuple(s.name for s in symbols)!r}")
    # last: a variable named like a sympy class (Symbol, Mul) would otherwise break the lines above
    lines += [f"{s.name} = {sp.srepr(s)}" for s in symbols]
    return "\n".join(lines) + "\n"


def _python(exprs: Mapping[str, sp.Expr], symbols: Sequence[sp.Symbol], backend: str,
            codes: Sequence[SumCode] = ()) -> str:
    special = any(has_special(e) for e in [*exprs.values(), *(c.term for c in codes)])
    if backend == "torch":
        fold = _fold_numbers
        head = ["import torch", "", "", "def solution(X):",
                "    desyr_X = torch.as_tensor(X, dtype=torch.float64)",
                "    desyr_zero = torch.zeros(desyr_X.shape[0], dtype=desyr_X.dtype, device=desyr_X.device)"]
        stack = "torch.stack([{}], dim=1)"
    else:
        mod = "numpy" if backend == "numpy" else "jax.numpy"
        fold = _identity
        imports = ["import numpy"] if backend == "numpy" else \
            ["import jax", "import jax.numpy", "", 'jax.config.update("jax_enable_x64", True)']
        if special:
            imports.insert(1, "import scipy.special" if backend == "numpy" else "import jax.scipy.special")
        # desyr_*: local names no field or variable can have (a variable "zero" or "X" would overwrite them)
        head = imports + ["", "", "def solution(X):", f"    desyr_X = {mod}.asarray(X, dtype={mod}.float64)",
                          f"    desyr_zero = {mod}.zeros(desyr_X.shape[0], dtype=desyr_X.dtype)"]
        stack = f"{mod}.stack([{{}}], axis=1)"
    code = printer(backend)
    lines = [_header(exprs, symbols, "#")] + head
    lines.insert(len(lines) - 2, f'    """Fields {list(exprs)} at the rows of X (n, {len(symbols)}); columns {[s.name for s in symbols]}."""')
    lines += [f"    {s.name} = desyr_X[:, {j}]" for j, s in enumerate(symbols)]
    for sum_code in codes:
        lines += series_code.python_sum(sum_code, backend, lambda e: str(code.doprint(fold(reciprocal_hyperbolic(e)))))
    if codes:
        first = next(i for i, line in enumerate(lines) if line.startswith("def solution"))
        lines[first:first] = series_code.python_tables(codes, backend) + ["", ""]
    values = [f"desyr_zero + ({code.doprint(fold(reciprocal_hyperbolic(e)))})" for e in exprs.values()]
    lines.append("    return " + stack.format(", ".join(values)))
    lines.append(f"\n\nFIELDS = {tuple(exprs)!r}\nVARIABLES = {tuple(s.name for s in symbols)!r}")
    return "\n".join(lines) + "\n"


def _c(exprs: Mapping[str, sp.Expr], symbols: Sequence[sp.Symbol], codes: Sequence[SumCode] = ()) -> str:
    params = ", ".join(f"double {s.name}" for s in symbols)
    lines = [_header(exprs, symbols, "/*").rstrip() + " */", "#include <math.h>", ""]
    if any(sp.sympify(e).has(sp.besselj, sp.bessely) for e in [*exprs.values(), *(c.term for c in codes)]):
        lines.insert(1, "#define _XOPEN_SOURCE 700   /* jn, yn: POSIX, beside C99's math.h */")
    for name, value in _C_CONSTANTS.items():
        lines.append(f"#ifndef {name}\n#define {name} {sp.N(value, 21)}\n#endif")
    lines.append("")
    writer = C({"allow_unknown_functions": True})
    lines += series_code.c_tables(codes)
    for sum_code in codes:
        lines += series_code.c_sum(sum_code, symbols, writer)
    for f, e in exprs.items():
        e = _called(e, codes, symbols)
        lines.append(f"double desyr_{f}({params}) {{\n    return {writer.doprint(reciprocal_hyperbolic(e))};\n}}\n")
    d, m = len(symbols), len(exprs)
    call = ", ".join(f"row[{j}]" for j in range(d))
    lines.append("/* X: n rows of d values (row-major); out: n rows of one value per field */")
    lines.append("void desyr_solution(long n, const double *X, double *out) {")
    lines.append("    for (long i = 0; i < n; ++i) {")
    lines.append(f"        const double *row = X + i * {d};")
    lines += [f"        out[i * {m} + {k}] = desyr_{f}({call});" for k, f in enumerate(exprs)]
    lines += ["    }", "}"]
    return "\n".join(lines) + "\n"


def _fortran(exprs: Mapping[str, sp.Expr], symbols: Sequence[sp.Symbol], codes: Sequence[SumCode] = ()) -> str:
    names = ", ".join(s.name for s in symbols)
    decls, bodies = {}, []
    settings = {"standard": 95, "source_format": "free", "human": False, "allow_unknown_functions": True}
    summed = []
    for sum_code in codes:
        sum_lines, sum_consts = series_code.fortran_sum(sum_code, symbols, Fortran(settings))
        decls.update(sum_consts)
        summed += sum_lines
    for f, e in exprs.items():
        # the function's own name holds its value: any other result name (r) could be a variable's
        writer = Fortran(settings)
        consts, _, code = writer.doprint(reciprocal_hyperbolic(_called(e, codes, symbols)), assign_to=f"desyr_{f}")
        decls.update({str(c): v for c, v in consts})
        bodies.append((f, code))
    lines = [_header(exprs, symbols, "!").rstrip(), "module desyr_solution_mod",
             "  use iso_c_binding, only: c_double, c_long", "  implicit none"]
    lines += [f"  real(c_double), parameter :: {c} = {v}" for c, v in sorted(decls.items())]
    lines += series_code.fortran_tables(codes)
    lines.append("contains")
    lines += summed
    for f, code in bodies:
        lines += [f'  function desyr_{f}({names}) bind(C, name="desyr_{f}")',
                  f"    real(c_double), value :: {names}", f"    real(c_double) :: desyr_{f}",
                  "    " + code.replace("\n", "\n    "), f"  end function desyr_{f}"]
    d, m = len(symbols), len(exprs)
    args = ", ".join(f"desyr_in({j + 1}, i)" for j in range(d))
    lines += ['  subroutine desyr_solution(n, desyr_in, desyr_out) bind(C, name="desyr_solution")',
              "    integer(c_long), value :: n",
              f"    real(c_double), intent(in) :: desyr_in({d}, n)   ! row-major (n, {d}) from C",
              f"    real(c_double), intent(out) :: desyr_out({m}, n)", "    integer(c_long) :: i", "    do i = 1, n"]
    lines += [f"      desyr_out({k + 1}, i) = desyr_{f}({args})" for k, f in enumerate(exprs)]
    lines += ["    end do", "  end subroutine desyr_solution", "end module desyr_solution_mod"]
    return "\n".join(lines) + "\n"


def _julia(exprs: Mapping[str, sp.Expr], symbols: Sequence[sp.Symbol], codes: Sequence[SumCode] = ()) -> str:
    names = ", ".join(s.name for s in symbols)
    lines = [_header(exprs, symbols, "#").rstrip()]
    if any(has_special(e) for e in [*exprs.values(), *(c.term for c in codes)]):
        lines.append("using SpecialFunctions   # erf, erfc, besselj, bessely, besseli, besselk, airyai, airybi, gamma")
    for sum_code in codes:
        lines += series_code.julia_sum(sum_code, symbols)
    lines += [f"{f}({names}) = {sp.julia_code(_called(sp.sympify(e), codes, symbols), allow_unknown_functions=True)}"
              for f, e in exprs.items()]
    call = ", ".join(f"X[i, {j + 1}]" for j in range(len(symbols)))
    lines += ["", "function solution(X::AbstractMatrix)", "    n = size(X, 1)",
              f"    out = Array{{Float64}}(undef, n, {len(exprs)})", "    for i in 1:n"]
    lines += [f"        out[i, {k + 1}] = {f}({call})" for k, f in enumerate(exprs)]
    lines += ["    end", "    return out", "end"]
    return "\n".join(lines) + "\n"


def _called(expr: sp.Expr, codes: Sequence[SumCode], symbols: Sequence[sp.Symbol]) -> sp.Expr:
    """``expr`` with each sum's symbol a call of the function that adds its terms (C, Fortran, Julia)."""
    calls = {sp.Symbol(c.name, real=True): sp.Function(c.name)(*symbols) for c in codes}
    return expr.xreplace(calls) if calls else expr


def _identity(expr: sp.Expr) -> sp.Expr:
    return expr


_WRITERS: dict[str, Callable[..., str]] = {"latex": _latex, "sympy": _sympy, "c": _c, "fortran": _fortran, "julia": _julia,
            **{b: functools.partial(_python, backend=b) for b in PYTHON_BACKENDS}}
