"""The code of a truncated sum in each export target (:mod:`desyr.codegen.series_export` plans it).

Python targets add the terms in blocks of :data:`~desyr.codegen.series_export.BLOCK` indices at every
point at once (an index column against the points' row); C, Fortran and Julia write one function per
sum with a loop per index.  The index is written ``desyr_i_<name>`` (no variable, field or module can
have that name), an eigenvalue is read from its table, ``(-1)**e`` is ``1 - 2*mod(e, 2)``.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import sympy as sp

from desyr.codegen.series_export import BLOCK, SumCode


def _renamed(code: SumCode) -> tuple[sp.Expr, dict[sp.Symbol, sp.Symbol], list[tuple[sp.Symbol, sp.Expr]]]:
    """The term and the signs' exponents with each index written ``desyr_<name>``."""
    names = {i: sp.Symbol(f"desyr_i_{i.name}", real=True) for i in code.indices}
    return code.term.xreplace(names), names, [(s, e.xreplace(names)) for s, e in code.signs]


def literal(value: float, fortran: bool = False) -> str:
    text = repr(float(value))
    if not fortran:
        return text
    return text.replace("e", "d") if "e" in text else text + "d0"


# ------------------------------------------------------------------ Python (numpy, torch, jax)
def python_tables(codes: Sequence[SumCode], backend: str) -> list[str]:
    out = []
    for code in codes:
        for _, table, _ in code.tables:
            values = ", ".join(literal(v) for v in table.values)
            array = {"numpy": "numpy.array([{}])", "jax": "jax.numpy.array([{}])",
                     "torch": "torch.tensor([{}], dtype=torch.float64)"}[backend]
            line = f"{table.name} = " + array.format(values)
            if line not in out:
                out.append(line)
    return out


def python_sum(code: SumCode, backend: str, doprint: Callable[[sp.Expr], str]) -> list[str]:
    term, names, signs = _renamed(code)
    total = 1
    for count in code.counts:
        total *= count
    if backend == "torch":
        arange = f"torch.arange(desyr_at, min(desyr_at + {BLOCK}, {total}), dtype=torch.float64, device=desyr_X.device)"
        whole, mod, add = "(desyr_p - 1).long()", "torch.remainder", "torch.sum({}, dim=0)"
    else:
        xp = "numpy" if backend == "numpy" else "jax.numpy"
        arange = f"{xp}.arange(desyr_at, min(desyr_at + {BLOCK}, {total}), dtype={xp}.float64)"
        whole, mod, add = f"(desyr_p - 1).astype({xp}.int64)", f"{xp}.mod", f"{xp}.sum({{}}, axis=0)"
    lines = [f"    {code.name} = desyr_zero", f"    for desyr_at in range(0, {total}, {BLOCK}):",
             f"        desyr_flat = {arange}[:, None]"]
    stride = 1
    for index, lower, count in zip(code.indices, code.lowers, code.counts):    # innermost fastest
        lines.append(f"        {names[index]} = {lower} + ({mod}(desyr_flat // {stride}, {count}))")
        stride *= count
    for symbol, table, position in code.tables:
        lines.append(f"        desyr_p = {names[code.indices[position]]}")
        lines.append(f"        {symbol} = {table.name}[{whole}]")
    lines += [f"        {symbol} = 1 - 2*{mod}({doprint(e)}, 2)" for symbol, e in signs]
    lines.append(f"        {code.name} = {code.name} + " + add.format(f"desyr_zero + ({doprint(term)})"))
    return lines


# ------------------------------------------------------------------ C
def c_tables(codes: Sequence[SumCode]) -> list[str]:
    out = []
    for code in codes:
        for _, table, _ in code.tables:
            line = (f"static const double {table.name}[{len(table.values)}] = {{"
                    + ", ".join(literal(v) for v in table.values) + "};")
            if line not in out:
                out.append(line)
    return out


def c_sum(code: SumCode, symbols: Sequence[sp.Symbol], printer: Any) -> list[str]:
    term, names, signs = _renamed(code)
    params = ", ".join(f"double {s.name}" for s in symbols)
    lines = [f"static double {code.name}({params}) {{", "    double desyr_total = 0.0;"]
    depth = len(code.indices)
    for level, position in enumerate(reversed(range(depth))):              # outermost loop first
        pad = "    " * (level + 1)
        index = code.indices[position]
        lines += [f"{pad}for (long desyr_k{position} = 0; desyr_k{position} < {code.counts[position]}; "
                  f"++desyr_k{position}) {{",
                  f"{pad}    const double {names[index]} = {code.lowers[position]} + desyr_k{position};"]
    pad = "    " * (depth + 1)
    for symbol, table, position in code.tables:
        lines.append(f"{pad}const double {symbol} = {table.name}[{code.lowers[position] - 1} + desyr_k{position}];")
    lines += [f"{pad}const double {symbol} = 1 - 2*fmod(fabs({printer.doprint(e)}), 2.0);" for symbol, e in signs]
    lines.append(f"{pad}desyr_total += {printer.doprint(term)};")
    lines += ["    " * (level + 1) + "}" for level in reversed(range(depth))]
    return lines + ["    return desyr_total;", "}", ""]


# ------------------------------------------------------------------ Fortran
def fortran_tables(codes: Sequence[SumCode]) -> list[str]:
    out = []
    for code in codes:
        for _, table, _ in code.tables:
            values = [literal(v, fortran=True) for v in table.values]
            rows = [", ".join(values[i:i + 4]) for i in range(0, len(values), 4)]
            line = (f"  real(c_double), parameter :: {table.name}({len(values)}) = [ &\n      "
                    + ", &\n      ".join(rows) + " ]")
            if line not in out:
                out.append(line)
    return out


def fortran_sum(code: SumCode, symbols: Sequence[sp.Symbol], printer: Any) -> tuple[list[str], dict[str, str]]:
    """The function's lines and the constants the printer declared."""
    term, names, signs = _renamed(code)
    args = ", ".join(s.name for s in symbols)
    reals = [str(names[i]) for i in code.indices] + [str(s) for s, _, _ in code.tables] + [str(s) for s, _ in signs]
    lines = [f"  function {code.name}({args})", f"    real(c_double), intent(in) :: {args}",
             f"    real(c_double) :: {code.name}, desyr_term, {', '.join(reals)}",
             "    integer(c_long) :: " + ", ".join(f"desyr_k{p}" for p in range(len(code.indices))),
             f"    {code.name} = 0"]
    depth = len(code.indices)
    for level, position in enumerate(reversed(range(depth))):
        pad = "  " * (level + 2)
        lines += [f"{pad}do desyr_k{position} = 0, {code.counts[position] - 1}",
                  f"{pad}  {names[code.indices[position]]} = {code.lowers[position]} + desyr_k{position}"]
    pad = "  " * (depth + 2)
    for symbol, table, position in code.tables:
        lines.append(f"{pad}{symbol} = {table.name}({code.lowers[position]} + desyr_k{position})")
    constants: dict[str, str] = {}
    for symbol, e in signs:
        consts, _, text = printer.doprint(e, assign_to="desyr_term")
        constants.update({str(c): v for c, v in consts})
        lines += [pad + line for line in text.splitlines()]
        lines.append(f"{pad}{symbol} = 1 - 2*modulo(nint(desyr_term), 2)")
    consts, _, text = printer.doprint(term, assign_to="desyr_term")
    constants.update({str(c): v for c, v in consts})
    lines += [pad + line for line in text.splitlines()]
    lines.append(f"{pad}{code.name} = {code.name} + desyr_term")
    lines += ["  " * (level + 2) + "end do" for level in reversed(range(depth))]
    return lines + [f"  end function {code.name}"], constants


# ------------------------------------------------------------------ Julia
def julia_sum(code: SumCode, symbols: Sequence[sp.Symbol]) -> list[str]:
    term, names, signs = _renamed(code)
    lines = []
    for _, table, _ in code.tables:
        lines.append(f"const {table.name} = [" + ", ".join(literal(v) for v in table.values) + "]")
    lines += [f"function {code.name}({', '.join(s.name for s in symbols)})", "    desyr_total = 0.0"]
    depth = len(code.indices)
    for level, position in enumerate(reversed(range(depth))):
        pad = "    " * (level + 1)
        lines += [f"{pad}for desyr_k{position} in 0:{code.counts[position] - 1}",
                  f"{pad}    {names[code.indices[position]]} = {code.lowers[position]} + desyr_k{position}"]
    pad = "    " * (depth + 1)
    settings = {"allow_unknown_functions": True}
    for symbol, table, position in code.tables:
        lines.append(f"{pad}{symbol} = {table.name}[{code.lowers[position]} + desyr_k{position}]")
    lines += [f"{pad}{symbol} = 1 - 2*mod({sp.julia_code(e, **settings)}, 2)" for symbol, e in signs]
    lines.append(f"{pad}desyr_total += {sp.julia_code(term, **settings)}")
    lines += ["    " * (level + 1) + "end" for level in reversed(range(depth))]
    return lines + ["    return desyr_total", "end", ""]
