"""A differential problem: domain (a box, or a shape over the spatial variables), fields, equations, constraints, reference.

Built from a TOML config (see ``docs/config.md``).  Equations and constraint
operators are sympy expressions over variables and *jet symbols* (``u``,
``u_x``, ``u_xx``...), so the refit, the verification and the PINN teacher all
read the same single definition.
"""
from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import sympy as sp

from desyr.errors import ConfigError
from desyr.model.frozen import ReadOnly, as_tuples, frozen
from desyr.model.geometry import Geometry, Part
from desyr.model.informative import EXACT_DATA_MISFIT, Window, scan, spread
from desyr.model.nesting import config_json_loads
from desyr.model.patches import exact_number
from desyr.model.toml_writer import dumps
from desyr.model.unknowns import Misfit, Observations, Unknown, allowed_misfit, least_misfit
from desyr.symbolic.conditions import Condition
from desyr.symbolic.expressions import ExpressionError, Jet, Vocabulary, parse_expression


@dataclass(frozen=True)
class Variable:
    name: str
    lo: float
    hi: float


@dataclass(frozen=True)
class Face:
    """A constraint set: the box with some variables fixed to values.

    All variables fixed gives a single point; one spatial variable fixed gives a
    face; ``t`` fixed at its lower bound gives the initial slice.  ``fixed`` holds
    (variable name, value) pairs, each value a float as the config's number was read
    (``x = pi`` is ``("x", 3.141592653589793)``): symbolic work makes it exact first.
    """

    fixed: tuple[tuple[str, float], ...]

    def describe(self) -> str:
        return ", ".join(f"{n} = {v:g}" for n, v in self.fixed)


@dataclass(frozen=True)
class Equation:
    text: str
    lhs: sp.Expr              # over variables and jets
    forcing: sp.Expr          # over variables only
    forcing_text: str
    #: what lhs and rhs as written need of their arguments (sqrt(u): u >= 0), for the verifier
    conditions: tuple[Condition, ...] = ()

    def __post_init__(self) -> None:
        as_tuples(self, "conditions")

    @property
    def residual(self) -> sp.Expr:
        return self.lhs - self.forcing


@dataclass(frozen=True)
class Constraint:
    """``operator = value`` on its sets (``kind`` "pointwise"); ``operator`` equal at each point of its
    sets and at that point moved by ``shift`` ("periodic"); or the integral of ``operator`` over the
    domain equal to ``value`` ("integral", with the domain's ``measure``: by quadrature, no sets)."""

    label: str
    operator: sp.Expr         # over variables and jets
    value: sp.Expr            # over variables only
    faces: tuple[Face | Part, ...]
    n_points: int
    kind: str = "pointwise"
    shift: tuple[float, ...] = ()
    measure: float = 1.0
    #: what the operator and value as written need of their arguments (log(u): u > 0), for the verifier
    conditions: tuple[Condition, ...] = ()
    #: ``shift`` as the exact numbers the config wrote (``x = [0.1, 0.3]``: 1/5, not the float 0.19999999999999998)
    exact_shift: tuple[sp.Expr, ...] = ()

    def __post_init__(self) -> None:
        as_tuples(self, "faces", "shift", "conditions", "exact_shift")

    def moved(self, numbers: Mapping[float, sp.Expr] | None = None) -> tuple[sp.Expr, ...]:
        """The periodic shift, exactly: as the config wrote it (a constraint built without it reads each
        float as written, :func:`desyr.model.written.exact_number`)."""
        return self.exact_shift or tuple(exact_number(d, numbers) for d in self.shift)

    @property
    def residual(self) -> sp.Expr:
        """The pointwise residual over jets (a periodic or integral one needs :meth:`Problem.constraint_residual`)."""
        return self.operator - self.value

    @property
    def fields(self) -> set[str]:
        return {j.field for j in jets_in(self.operator)}


@dataclass(frozen=True)
class ProblemSet:
    """A named set of bundled problems that a plugin declares (``desyr_problem_sets``).

    ``desyr bench --all --set NAME`` runs ``specs`` in order; the set marked ``default`` is what
    ``--all`` runs without ``--set``, and where bare names (``burgers``, ``13``) are looked up first."""

    name: str                      # the spec prefix without its colon, e.g. "paper"
    title: str
    specs: tuple[str, ...]         # full specs, e.g. ("paper:param_poisson", ...)
    default: bool = False


@dataclass(frozen=True)
class Problem:
    """A checked problem config: variables and domain, fields, equations, constraints, the optional
    reference solution, point counts and the sections as written; frozen (tuples and read-only
    mappings), so no component can change the problem the run verifies against.

    Lists and dicts given to the constructor are kept as tuples and read-only mappings; derive a
    changed problem with :func:`dataclasses.replace`. The run reads the sections once, into its
    :class:`desyr.config.spec.RunSpec` (``read_spec``); a plugin's own section stays readable here."""

    name: str
    title: str
    variables: tuple[Variable, ...]
    fields: tuple[str, ...]
    equations: tuple[Equation, ...]
    constraints: tuple[Constraint, ...]
    reference: Mapping[str, sp.Expr] | None
    vocabulary: Vocabulary
    time: str | None = None
    points: Mapping[str, int] = field(default_factory=dict)
    sections: Mapping[str, Any] = field(default_factory=dict)   # the config's tables as written, read by read_spec
    source: str = ""
    #: the config as data (TOML text, or JSON of the table a plugin gave): what the verifier reads
    config_text: str = ""
    config_format: str = "json"
    #: the spatial shape (None: the box of the variables' ranges)
    geometry: Geometry | None = None
    #: variables that are parameters of a family (``[parameters]``): sampled like any variable,
    #: never differentiated, kept symbolic in the result
    parameters: tuple[str, ...] = ()
    #: coefficients of the equations to identify (``[unknowns]``), and the data that decide them
    unknowns: tuple[Unknown, ...] = ()
    observations: Observations | None = None
    #: float -> the exact number the config wrote for it (shape text, sets, domain): what proofs use
    numbers: Mapping[float, sp.Expr] = field(default_factory=dict)

    def __post_init__(self) -> None:
        as_tuples(self, "variables", "fields", "equations", "constraints", "parameters", "unknowns")
        for name in ("points", "sections", "numbers"):
            object.__setattr__(self, name, frozen(getattr(self, name)))
        if self.reference is not None:
            object.__setattr__(self, "reference", ReadOnly(self.reference))

    def to_toml(self) -> str:
        """The config as TOML text that reads back to an equal problem: the text as read for a TOML
        config (``extends`` already resolved), the table written as TOML for one given as data."""
        if self.config_format == "toml":
            return self.config_text
        return dumps(config_json_loads(self.config_text))

    # ---------------------------------------------------------------- symbols
    @property
    def variable_names(self) -> list[str]:
        """The variables' names, in order: the columns of every point array."""
        return [v.name for v in self.variables]

    @property
    def symbols(self) -> list[sp.Symbol]:
        """The variables' SymPy symbols (real), in :attr:`variable_names` order: build expressions from
        these (a plain ``sympy.Symbol("x")`` is another symbol than the problem's ``x``)."""
        return [self.vocabulary.var_symbols[v] for v in self.variable_names]

    @property
    def bounds(self) -> np.ndarray:
        """The box of the variables' ranges, (d, 2): lower and upper bound per variable."""
        return np.array([[v.lo, v.hi] for v in self.variables], dtype=float)

    @property
    def dim(self) -> int:
        """How many variables."""
        return len(self.variables)

    @property
    def unknown_names(self) -> list[str]:
        """The names of the unknown coefficients (``[unknowns]``), in order."""
        return [u.name for u in self.unknowns]

    @property
    def solution_names(self) -> list[str]:
        """The names a solution gives: every field, then every unknown coefficient."""
        return [*self.fields, *self.unknown_names]

    def physics_only(self) -> Problem:
        """The same problem without its observations: what a refit that must hold the physics exactly
        minimises once the data have picked the branch (the unknowns fixed)."""
        return self if self.observations is None else dataclasses.replace(self, observations=None)

    def unknown_symbol(self, name: str) -> sp.Symbol:
        """The SymPy symbol of the unknown coefficient ``name``, as the equations use it."""
        symbol = self.vocabulary.extra[name]
        assert isinstance(symbol, sp.Symbol)
        return symbol

    def parse(self, text: str | float, *, allow_fields: bool = False, written: bool = False,
              conditions: list[Condition] | None = None) -> sp.Expr:
        """Parse a user expression in this problem's names (fields only if allowed); ``written``: the
        config's own text, whose decimals are the rationals they spell (``1.397`` -> 1397/1000);
        ``conditions`` collects the domain conditions of the text as written."""
        expr = parse_expression(text, self.vocabulary, written=written, conditions=conditions)
        if not allow_fields and jets_in(expr, self.vocabulary):
            raise ExpressionError(f"{text!r} may only use the variables {', '.join(self.variable_names)}")
        return expr

    def jets(self) -> list[Jet]:
        """Every field derivative the equations and constraints need, sorted."""
        found: set[Jet] = set()
        for expr in [*(e.lhs for e in self.equations), *(c.operator for c in self.constraints)]:
            found |= jets_in(expr, self.vocabulary)
        return sorted(found, key=lambda j: (j.field, j.order, j.wrt))

    def jet_symbol(self, jet: Jet) -> sp.Symbol:
        """The symbol standing for a field derivative (``u_xx``) in the equations and constraints."""
        return self.vocabulary.jet_symbol(jet)

    # ---------------------------------------------------------- substitution
    def apply(self, expr: sp.Expr, solution: Mapping[str, sp.Expr]) -> sp.Expr:
        """Replace every jet in ``expr`` by the matching derivative of ``solution``, then every unknown
        coefficient by its value where ``solution`` gives one (``{"u": ..., "nu": 1/10}``): in the
        equations and in the solution itself, whose family an exact solver may write in the unknown."""
        subs = {}
        for sym in expr.free_symbols:
            jet = self.vocabulary.jet_of(sym)
            if jet is None:
                continue
            if jet.field not in solution:
                raise ConfigError(f"no expression given for field '{jet.field}'")
            base = solution[jet.field]
            subs[sym] = sp.diff(base, *[self.vocabulary.var_symbols[v] for v in jet.wrt]) if jet.wrt else base
        return self.resolved(expr.xreplace(subs), solution)

    def resolved(self, expr: sp.Expr, solution: Mapping[str, sp.Expr]) -> sp.Expr:
        """``expr`` with each unknown replaced by its value in ``solution`` (where given)."""
        values = {self.unknown_symbol(n): sp.sympify(solution[n]) for n in self.unknown_names if n in solution}
        return expr.xreplace(values) if values else expr

    def constraint_residual(self, con: Constraint, solution: Mapping[str, sp.Expr],
                            applied: sp.Expr | None = None) -> sp.Expr:
        """The residual of ``solution`` at one point of ``con``'s sets (an integral constraint: the
        integrand, whose quadrature sum is the residual); ``applied``: the operator with ``solution`` put
        in, where the caller has it already."""
        applied = self.apply(con.operator, solution) if applied is None else applied
        value = self.resolved(con.value, solution)          # a value may use an unknown: A*sin(pi*x)
        if con.kind == "periodic":
            return applied - applied.xreplace(self.shift_map(con)) - value
        if con.kind == "integral":
            return applied - value / sp.Float(con.measure)
        return applied - value

    def shift_map(self, con: Constraint) -> dict[sp.Basic, sp.Expr]:
        """A periodic constraint's move from a point of its set to its partner: each variable plus its shift."""
        return {self.vocabulary.var_symbols[v]: self.vocabulary.var_symbols[v] + d
                for v, d in zip(self.variable_names, con.moved(self.numbers)) if d != 0}

    def outside(self, X: np.ndarray) -> np.ndarray:
        """Which points of ``X`` (n, d) lie outside the domain's shape (none, on a box)."""
        if self.geometry is None:
            return np.zeros(len(X), dtype=bool)
        columns = [self.variable_names.index(v) for v in self.geometry.space]
        return np.asarray(self.geometry.shape.level(X[:, columns]) > 0)

    def misfit(self, solution: Mapping[str, sp.Expr]) -> Misfit | None:
        """How far ``solution`` is from the observations that carry information (None without
        observations): those where a constraint fixes the field are left out and counted; the rest
        are tested pooled and on every window of the scan (:func:`desyr.model.informative.scan`)."""
        obs = self.observations
        if obs is None:
            return None
        from desyr.symbolic.numeric import evaluate
        absolute: dict[str, float] = {}
        relative: dict[str, float] = {}
        above: dict[str, Window] = {}
        below: dict[str, Window] = {}
        left, where, counts = 0, list[str](), list[int]()
        exact = EXACT_DATA_MISFIT           # the round-off allowance, relative to the RMS: the tightest field's
        for f in obs.fields:
            fixed, sets = _imposed(self, f, obs.X)
            keep = ~fixed
            left, counts = left + int(fixed.sum()), counts + [int(keep.sum())]
            where += [s for s in sets if s not in where]
            if not keep.any():
                absolute[f] = relative[f] = 0.0
                continue
            with np.errstate(all="ignore"):
                values = evaluate(self.apply(solution[f], solution), self.symbols, obs.X[keep])
                residual = values - obs.column(f)[keep]
                rms = float(np.sqrt(np.mean(np.square(residual))))
                scale = float(np.sqrt(np.mean(np.square(obs.column(f)[keep])))) or 1.0
            absolute[f] = rms if np.isfinite(rms) else math.inf
            relative[f] = absolute[f] / scale
            # round-off is allowed against the values' spread, which a shared offset does not inflate
            allowance = EXACT_DATA_MISFIT * spread(obs.column(f)[keep]) / scale
            exact = min(exact, allowance)
            high, low = scan(residual / scale, _orderings(self, obs.X[keep]), obs.noise, len(self.unknowns),
                             len(obs.fields), allowance)
            above |= {f: high} if high else {}
            below |= {f: low} if low else {}
        n = min(counts)
        return Misfit(absolute, relative, allowed_misfit(obs.noise, n, exact),
                      least_misfit(obs.noise, n, len(self.unknowns)), left, tuple(where), above, below)

    def evaluate_reference(self, X: np.ndarray) -> np.ndarray | None:
        """Reference values (n, n_fields), or None; only for post hoc error."""
        if not self.reference:
            return None
        from desyr.symbolic.numeric import evaluate
        return np.column_stack([evaluate(self.reference[f], self.symbols, X) for f in self.fields])


# ------------------------------------------------------------------------ which observations inform
#: how close to a face a point must lie, as a fraction of the variable's range, to be on it
ON_FACE = 1e-9


def _imposed(problem: Problem, field: str, X: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """Which rows of ``X`` lie where a constraint fixes ``field``'s value (with no unknown in it), and
    the sets that did. Only faces of the box are recognised; a point on a shape's curved part counts as
    informative (its value still enters the two-sided test)."""
    mask = np.zeros(X.shape[0], dtype=bool)
    where: list[str] = []
    for con in problem.constraints:
        if not _fixes(problem, con, field):
            continue
        for face in con.faces:
            fixed = getattr(face, "fixed", None)
            if not fixed:
                continue
            on = np.ones(X.shape[0], dtype=bool)
            for name, value in fixed:
                k = problem.variable_names.index(name)
                width = float(problem.bounds[k, 1] - problem.bounds[k, 0]) or 1.0
                on &= np.abs(X[:, k] - value) <= ON_FACE * width
            if on.any():
                mask |= on
                where.append(face.describe())
    return mask, where


def _fixes(problem: Problem, con: Constraint, field: str) -> bool:
    """Whether ``con`` sets ``field`` itself to a value that no unknown moves (``u = sin(pi*x)``; not
    ``u_x = 0``, nor ``u = A*sin(pi*x)``, whose data do decide A)."""
    if con.kind != "pointwise":
        return False
    jet = problem.vocabulary.jet_of(con.operator) if con.operator.is_Symbol else None
    if jet is None or jet.field != field or jet.wrt:
        return False
    unknowns = {problem.unknown_symbol(n) for n in problem.unknown_names}
    return not (con.value.free_symbols & unknowns)


def _orderings(problem: Problem, X: np.ndarray) -> list[tuple[str, np.ndarray]]:
    """The orders the scan cuts into windows: each variable, and the distance to the constraints' sets
    (a fraction of the domain's size), which gathers padding spread along several faces or a curved rim."""
    keys = [(name, X[:, k]) for k, name in enumerate(problem.variable_names)]
    width = np.where(np.ptp(problem.bounds, axis=1) > 0, np.ptp(problem.bounds, axis=1), 1.0)
    near = np.full(X.shape[0], np.inf)
    for con in problem.constraints:
        for face in con.faces:
            fixed = getattr(face, "fixed", None)
            if fixed:
                k = [problem.variable_names.index(name) for name, _ in fixed]
                values = np.array([value for _, value in fixed])
                near = np.minimum(near, np.max(np.abs(X[:, k] - values) / width[k], axis=1))
    if problem.geometry is not None:
        space = [problem.variable_names.index(v) for v in problem.geometry.space]
        depth = -np.asarray(problem.geometry.shape.level(X[:, space]), dtype=float) / float(np.max(width[space]))
        near = np.minimum(near, np.maximum(depth, 0.0))
    if np.isfinite(near).all():
        keys.append(("", near))
    return keys


def jets_in(expr: sp.Expr, vocabulary: Vocabulary | None = None) -> set[Jet]:
    out = set()
    for sym in expr.free_symbols:
        jet = vocabulary.jet_of(sym) if vocabulary else None
        if jet is not None:
            out.add(jet)
    return out
