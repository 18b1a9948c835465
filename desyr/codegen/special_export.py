"""The special functions (erf, erfc, Bessel, Airy, sech, csch, coth) in each export target's own names.

SymPy's printers know few of them, and some print a wrong or lossy name (its JAX printer writes
``math.erf``, which takes no array; its Fortran printer writes ``erfc(x)`` as ``1 - erf(x)``, which
loses every digit for x > 6).  So each code target gets a printer here with the names its library has:

======== ============================================================================================
numpy    ``scipy.special``: every function, any order
torch    ``torch.special``: erf, erfc, I and K of order 0 and 1
jax      ``jax.scipy.special``: erf, erfc, I of order 0 and 1
C        ``math.h``: erf, erfc; POSIX ``jn``/``yn``: J and Y of integer order
Fortran  Fortran 2008 intrinsics: erf, erfc, ``bessel_jn``, ``bessel_yn`` (integer orders)
Julia    SpecialFunctions.jl: every function, any order
======== ============================================================================================

torch's ``bessel_j0``/``j1``/``y0``/``y1`` and ``airy_ai`` agree with mpmath only to about 1e-6 (relative,
float64), and jax's ``bessel_jn`` is nan at 0 and wrong beyond an argument of about 30 (J_0(100) comes out
-1.46): so those are refused, not exported to something that computes another function.
Anything else is :class:`UnsupportedFunction`, one line naming the function, the target and the
targets that have it: never code that does not compile or computes something else.  ``sech``,
``csch`` and ``coth`` are written as the reciprocals of cosh, sinh and tanh where a target lacks them.
"""
from __future__ import annotations

from typing import Any

import sympy as sp
from sympy.printing.c import C99CodePrinter
from sympy.printing.fortran import FCodePrinter
from sympy.printing.numpy import JaxPrinter, SciPyPrinter

from desyr.errors import DesyrError
from desyr.symbolic.special import BESSEL_CLASSES, SPECIAL_CLASSES

#: the targets that have every special function of the language, for the error's hint
COMPLETE = "numpy, julia, latex or sympy"
#: torch.special's Bessel functions accurate to double precision (not its J and Y: see the docstring)
_TORCH_BESSEL = {("besseli", 0): "modified_bessel_i0",
                 ("besseli", 1): "modified_bessel_i1", ("besselk", 0): "modified_bessel_k0",
                 ("besselk", 1): "modified_bessel_k1"}
_TORCH_LOOSE = " (torch.special's is accurate to about 1e-6 only)"


class UnsupportedFunction(DesyrError, ValueError):
    """An export target has no name for a special function of the solution (one line)."""


def has_special(expr: sp.Expr) -> bool:
    """Whether ``expr`` needs a special-function library (sech, csch and coth need none)."""
    return bool(sp.sympify(expr).has(*[c for c in SPECIAL_CLASSES if c not in (sp.sech, sp.csch, sp.coth)]))


def reciprocal_hyperbolic(expr: sp.Expr) -> sp.Expr:
    """``sech``, ``csch``, ``coth`` as ``1/cosh``, ``1/sinh``, ``1/tanh`` (exact; SymPy's own rewrite in
    exponentials overflows to inf/inf = nan for |x| > 710)."""
    swaps = {sp.sech: sp.cosh, sp.csch: sp.sinh, sp.coth: sp.tanh}
    found = {n: 1 / swaps[type(n)](n.args[0]) for n in sp.sympify(expr).atoms(sp.sech, sp.csch, sp.coth)}
    return sp.sympify(expr).xreplace(found) if found else sp.sympify(expr)


def _refuse(node: sp.Expr, target: str, what: str = "") -> UnsupportedFunction:
    name = type(node).__name__
    where = f"{name} of order {node.args[0]}" if isinstance(node, BESSEL_CLASSES) else name
    return UnsupportedFunction(f"the {target} export has no {where}{what}; export to {COMPLETE} instead "
                               "(docs/exact.md, Export)")


def _integer_order(node: sp.Expr, target: str) -> int:
    order = node.args[0]
    if not order.is_Integer:
        raise _refuse(node, target, " (only integer orders)")
    return int(order)


class SciPy(SciPyPrinter):  # type: ignore[misc]  # SymPy's printers are untyped (Any)
    """NumPy with ``scipy.special`` for the special functions (SymPy's SciPy printer has them all).
    pi is NumPy's: SymPy's SciPy printer writes ``scipy.constants.pi``, a module the exported code
    (which imports scipy.special only for special functions) did not import."""

    def _print_Pi(self, e: sp.Expr) -> str:
        return "numpy.pi"


class _TorchNames:
    """torch.special's names, mixed into SymPy's torch printer by :func:`printer` (importing that printer
    imports torch, which the core does only when torch is asked for)."""

    def _print_erf(self, e: sp.Expr) -> str:
        return f"torch.special.erf({self._print(e.args[0])})"  # type: ignore[attr-defined]

    def _print_erfc(self, e: sp.Expr) -> str:
        return f"torch.special.erfc({self._print(e.args[0])})"  # type: ignore[attr-defined]

    def _inaccurate(self, e: sp.Expr) -> str:
        raise _refuse(e, "torch", _TORCH_LOOSE)

    def _print_airybi(self, e: sp.Expr) -> str:
        raise _refuse(e, "torch")

    def _bessel(self, e: sp.Expr) -> str:
        name = _TORCH_BESSEL.get((type(e).__name__, _integer_order(e, "torch")))
        if name is None:
            raise _refuse(e, "torch", " (torch.special has orders 0 and 1)")
        return f"torch.special.{name}({self._print(e.args[1])})"  # type: ignore[attr-defined]

    _print_besseli = _print_besselk = _bessel
    _print_besselj = _print_bessely = _print_airyai = _inaccurate


class Jax(JaxPrinter):  # type: ignore[misc]
    def _print_erf(self, e: sp.Expr) -> str:
        return f"jax.scipy.special.erf({self._print(e.args[0])})"

    def _print_erfc(self, e: sp.Expr) -> str:
        return f"jax.scipy.special.erfc({self._print(e.args[0])})"

    def _print_besselj(self, e: sp.Expr) -> str:
        raise _refuse(e, "jax", " (jax.scipy.special.bessel_jn is nan at 0 and wrong beyond about 30)")

    def _print_besseli(self, e: sp.Expr) -> str:
        n = abs(_integer_order(e, "jax"))
        if n > 1:
            raise _refuse(e, "jax", " (jax.scipy.special has i0 and i1)")
        return f"jax.scipy.special.i{n}({self._print(e.args[1])})"

    def _refused(self, e: sp.Expr) -> str:
        raise _refuse(e, "jax")

    _print_bessely = _print_besselk = _print_airyai = _print_airybi = _refused


class C(C99CodePrinter):  # type: ignore[misc]
    def _print_besselj(self, e: sp.Expr) -> str:
        return f"jn({_integer_order(e, 'C')}, {self._print(e.args[1])})"

    def _print_bessely(self, e: sp.Expr) -> str:
        return f"yn({_integer_order(e, 'C')}, {self._print(e.args[1])})"

    def _refused(self, e: sp.Expr) -> str:
        raise _refuse(e, "C")

    _print_besseli = _print_besselk = _print_airyai = _print_airybi = _refused


class Fortran(FCodePrinter):  # type: ignore[misc]
    def _real(self, arg: sp.Expr) -> str:
        # the intrinsics take only a REAL argument: gfortran refuses ``erf(1)`` and ``bessel_jn(0, 2)``
        return str(self._print(sp.Float(arg) if arg.is_Integer else arg))

    def _print_erf(self, e: sp.Expr) -> str:
        return f"erf({self._real(e.args[0])})"

    def _print_erfc(self, e: sp.Expr) -> str:
        return f"erfc({self._real(e.args[0])})"

    def _print_besselj(self, e: sp.Expr) -> str:
        return f"bessel_jn({_integer_order(e, 'Fortran')}, {self._real(e.args[1])})"

    def _print_bessely(self, e: sp.Expr) -> str:
        return f"bessel_yn({_integer_order(e, 'Fortran')}, {self._real(e.args[1])})"

    def _refused(self, e: sp.Expr) -> str:
        raise _refuse(e, "Fortran")

    _print_besseli = _print_besselk = _print_airyai = _print_airybi = _refused


def printer(backend: str, **settings: Any) -> Any:
    """The printer of a Python backend (numpy, torch, jax)."""
    if backend == "torch":
        from sympy.printing.pytorch import TorchPrinter

        return type("Torch", (_TorchNames, TorchPrinter), {})(settings)
    return {"numpy": SciPy, "jax": Jax}[backend](settings)
