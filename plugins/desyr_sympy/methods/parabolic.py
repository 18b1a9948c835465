"""The exact method ``parabolic``: linear parabolic equations in one space variable, brought to the heat equation and solved there.

Three classical steps, each general:

1. **Cauchy-Euler substitution.**  Where the space variable ``v`` is positive on the whole domain
   and appears only as ``v**k * d^k/dv^k`` (an equidimensional operator, such as Black-Scholes'
   ``s**2*V_ss`` and ``s*V_s``), ``v = exp(x)`` gives constant coefficients: ``v**k d^k/dv^k`` is the
   falling factorial ``D(D - 1)...(D - k + 1)`` of ``D = d/dx``.  A constant-coefficient equation
   is read in its own variable.
2. **Gauge to the heat equation.**  ``u_t = a*u_xx + b*u_x + c*u`` (``a > 0``) becomes
   ``w_t = a*w_xx`` through ``u = exp(alpha*x + beta*t)*w``, ``alpha = -b/(2a)``,
   ``beta = c - b**2/(4a)``.
3. **Heat solutions.**  ``exp(k*x + a*k**2*t)*(A + B*erf((x + 2*a*k*t - x0)/sqrt(4*a*(t + t0))))``
   solves ``w_t = a*w_xx`` for every ``k``: the step's similarity solution (``k = 0``) moved by the
   exponential (Galilean) shift that maps heat solutions to heat solutions.  A sum over several
   ``k`` with one jump point ``x0`` is the exact solution from initial data made of exponentials
   ``exp(k*x)`` that change at ``x0`` (a call's payoff ``max(s - K, 0)``, a step, a front).

The family adds to the separable solver's sums of exponentials only through its erf terms, which a
solution carries at every time: it is proposed where some data hold ``erf`` or ``erfc``.  The rates
come from the data: each term of the field's value at a fixed time contributes the
``exp(m*x)`` factor it carries (``s**m`` before the substitution), with ``m = 0`` always tried, and
``k = m - alpha``.  The exact numbers stay exact; the amplitudes, the jump point and the time shift
are free constants for Stage B.  No ``dsolve`` runs: a problem this does not fit costs a check.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import sympy as sp

from desyr_sympy.method import ExactMethod, Solutions
from desyr_sympy.shared.forms import jet_symbols, residuals, slice_data, split_linear, terms

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem

#: at most this many rates k in one candidate (each adds three constants for Stage B)
MAX_RATES = 3


@dataclass(frozen=True)
class ParabolicForm:
    """``u_t = a*u_xx + b*u_x + c*u`` in ``x``, where ``x = log(v)`` when ``euler`` (else ``x = v``)."""

    v: sp.Symbol
    t: sp.Symbol
    euler: bool
    a: sp.Expr
    b: sp.Expr
    c: sp.Expr


class Parabolic(ExactMethod):
    name = "parabolic"
    summary = "linear parabolic equations in one space variable: reduced to the heat equation"
    problems = ("one homogeneous linear equation `u_t = a*u_xx + b*u_x + c*u` in one space variable and time, `a > "
                "0` constant, or equidimensional in a space variable `v > 0` on the whole domain (`v**k` times each "
                "`d^k/dv^k`, constant factors: Black-Scholes' `s**2*V_ss`, `s*V_s`)")
    proposes = ("three steps: the **Cauchy-Euler substitution** `v = exp(x)` (`v**k d^k/dv^k` is `D(D-1)...(D-k+1)`, "
                "`D = d/dx`) gives constant coefficients; the **gauge** `u = exp(alpha*x + beta*t)*w`, `alpha = "
                "-b/(2a)`, `beta = c - b**2/(4a)`, gives `w_t = a*w_xx`; the **heat family** `sum_k exp(k*x + "
                "a*k**2*t)*(A_k + B_k*erf((x + 2*a*k*t - x0)/sqrt(4*a*(t + t0))))` (the step's similarity solution, "
                "`k = 0`, and its exponential shifts; one jump point `x0`: the exact solution from initial data made "
                "of exponentials that change at `x0`, such as a payoff `max(s - K, 0)`) is mapped back with `x = "
                "log(v)`. The rates are `k = m - alpha` for `m = 0` and each `m` of an `exp(m*x)` factor (`v**m` "
                "before the substitution) of a term of the field's data at a fixed time, at most three; two "
                "candidates, started at `t = 0` and at a free `-t0`; Stage B fits `A_k`, `B_k`, `x0`, `t0`. The "
                "Black-Scholes call `s*N(d1) - exp(-r*tau)*N(d2)` comes out as `s*(A + B*erf(...)) + exp(-tau/10)*(C "
                "+ D*erf(...))`. It applies only where some data hold `erf` or `erfc` (with every `B_k = 0` the "
                "family is the separable solver's sums of exponentials, and a member with `B_k != 0` carries erf at "
                "every time), so elsewhere it costs a check; no `dsolve` call; on a domain that holds `t = 0` only "
                "the candidate with `t0` (the other is a step there)")
    reduction = True

    def applies(self, problem: Problem) -> str:
        if problem.dim != 2 or problem.time is None or len(problem.fields) != 1 or len(problem.equations) != 1:
            return "not one field in one space variable and time"
        if not any(c.value.has(sp.erf, sp.erfc) for c in problem.constraints if c.kind == "pointwise"):
            # with every B = 0 the family is sums of exp(k*x + a*k**2*t), the separable solver's; a
            # member with B != 0 carries erf at every time, which an elementary datum cannot equal
            return "no erf or erfc in the data"
        form = parabolic(problem)
        return "" if isinstance(form, ParabolicForm) else form

    def solve(self, problem: Problem) -> Solutions:
        """The heat family in the gauge of the equation, back in the problem's variables: one candidate
        started at ``t = 0``, one at a free time ``-t0``."""
        form = parabolic(problem)
        if not isinstance(form, ParabolicForm):
            raise NotImplementedError(form)
        alpha, beta = gauge(form.a, form.b, form.c)
        ms = rates(problem, form)
        x, t = sp.Symbol("x_log", real=True), form.t
        positive = sp.Symbol("v_pos", positive=True)
        back = {x: sp.log(positive)} if form.euler else {x: form.v}
        shift = sp.Symbol(f"C{2 * len(ms) + 2}")
        out = []
        # started at t = 0, erf(x/sqrt(t)) is a step there: no classical solution on a domain that holds t = 0
        later = float(problem.bounds[list(problem.symbols).index(t)][0]) > 0
        for start in (t, t + shift) if later else (t + shift,):
            u = sp.Integer(0)
            for k, profile in heat_terms(form.a, [m - alpha for m in ms], x, t, start):
                # exp(alpha*x + beta*t)*exp(k*x + a*k**2*t), written exp(m*x)*exp(gamma*t): s**m after x = log(s)
                growth = sp.exp(sp.expand((k + alpha) * x)) * sp.exp(sp.expand((beta + form.a * k**2) * t))
                u += growth * profile
            out.append({problem.fields[0]: u.xreplace(back).xreplace({positive: form.v})})
        return out


def parabolic(problem: Problem) -> ParabolicForm | str:
    """The equation as a constant-coefficient parabolic one, or why it is not one."""
    assert problem.time is not None
    t = problem.vocabulary.var_symbols[problem.time]
    (v,) = [s for s in problem.symbols if s != t]
    linear = split_linear(residuals(problem)[0], jet_symbols(problem))
    if linear is None or linear.forcing != 0:
        return "not a homogeneous linear equation"
    jets = jet_symbols(problem)
    rate, spatial = sp.Integer(0), dict[int, sp.Expr]()
    for symbol, coefficient in linear.coefficients.items():
        wrt = jets[symbol].wrt
        steps = sum(1 for w in wrt if w != problem.time)
        if steps == len(wrt):
            spatial[steps] = spatial.get(steps, sp.Integer(0)) + coefficient
        elif wrt == (problem.time,):
            rate = coefficient
        else:
            return "a mixed or second time derivative"
    if rate == 0 or rate.free_symbols & {v, t} or any(c.has(t) for c in spatial.values()):
        return "not first order in time with coefficients free of time"
    polynomial, euler = _in_log(spatial, v, problem)
    if polynomial is None:
        return "coefficients neither constant nor equidimensional in a positive variable"
    theta = sp.Symbol("theta")
    coefficients = sp.Poly(sp.expand(-polynomial / rate), theta).all_coeffs()[::-1] + [0, 0, 0]
    c, b, a, *higher = (sp.cancel(k) for k in coefficients)
    if any(h != 0 for h in higher) or not a.is_positive:
        return "not second order with a positive diffusion coefficient"
    return ParabolicForm(v, t, euler, a, b, c)


def _in_log(spatial: dict[int, sp.Expr], v: sp.Symbol, problem: Problem) -> tuple[sp.Expr | None, bool]:
    """The spatial operator as a polynomial in ``theta = d/dx``, and whether ``x = log(v)``."""
    theta = sp.Symbol("theta")
    if all(not c.has(v) for c in spatial.values()):
        return sp.Add(*[c * theta**k for k, c in spatial.items()]), False
    low = float(problem.bounds[list(problem.symbols).index(v)][0])
    constants = euler_coefficients(spatial, v) if low > 0 else None
    if constants is None:
        return None, False
    return sp.Add(*[c * sp.ff(theta, k) for k, c in constants.items()]), True


def euler_coefficients(spatial: dict[int, sp.Expr], v: sp.Symbol) -> dict[int, sp.Expr] | None:
    """``{k: d_k}`` with each coefficient of ``d^k/dv^k`` equal to ``d_k*v**k``, or None when a term
    is not equidimensional (``s**2*V_ss + V_s``)."""
    out = {}
    for k, coefficient in spatial.items():
        constant = sp.cancel(sp.powsimp(coefficient / v**k))
        if constant.has(v):
            return None
        out[k] = constant
    return out


def gauge(a: sp.Expr, b: sp.Expr, c: sp.Expr) -> tuple[sp.Expr, sp.Expr]:
    """``(alpha, beta)`` of ``u = exp(alpha*x + beta*t)*w`` that turns ``u_t = a u_xx + b u_x + c u``
    into ``w_t = a w_xx``."""
    return sp.cancel(-b / (2 * a)), sp.cancel(c - b**2 / (4 * a))


def rates(problem: Problem, form: ParabolicForm) -> list[sp.Expr]:
    """``m`` of the ``exp(m*x)`` factors (``v**m``) of the field's values at fixed times, 0 first."""
    x = sp.Symbol("x_log", real=True)
    jet = problem.vocabulary.parse_jet(problem.fields[0])
    assert jet is not None      # a field's own name is always a jet
    own = problem.jet_symbol(jet)
    found: dict[sp.Expr, None] = {sp.Integer(0): None}
    for data in slice_data(problem):
        if data.variable != form.t or data.operator != own:
            continue
        value = data.value.xreplace({form.v: sp.exp(x) if form.euler else x})
        for term in terms(value):
            m = _rate(term, x)
            if m is not None:
                found[m] = None
    return list(found)[:MAX_RATES]


def _rate(term: sp.Expr, x: sp.Symbol) -> sp.Expr | None:
    """The ``m`` of a term ``exp(m*x + ...)*rest`` (rest free of exponentials of ``x``), a number."""
    exponent = sp.Integer(0)
    for factor in sp.Mul.make_args(sp.powsimp(term)):
        if isinstance(factor, sp.exp) and factor.has(x):
            exponent += factor.args[0]
    slope = sp.diff(exponent, x)
    return slope if slope.is_Rational else None


def heat_terms(a: sp.Expr, ks: list[sp.Expr], x: sp.Expr, t: sp.Expr, start: sp.Expr,
               first: int = 1) -> list[tuple[sp.Expr, sp.Expr]]:
    """``(k, A_k + B_k*erf((x + 2*a*k*t - x0)/sqrt(4*a*start)))`` for each ``k``: with the factor
    ``exp(k*x + a*k**2*t)``, each is a solution of ``w_t = a*w_xx`` for every constant (``C<first>`` is
    the jump point ``x0`` shared by all, then ``A`` and ``B`` of each ``k``)."""
    x0 = sp.Symbol(f"C{first}")
    out = []
    for i, k in enumerate(ks):
        amplitude, jump = sp.Symbol(f"C{first + 2 * i + 1}"), sp.Symbol(f"C{first + 2 * i + 2}")
        out.append((k, amplitude + jump * sp.erf((x + 2 * a * k * t - x0) / sp.sqrt(4 * a * start))))
    return out


