"""The constraints of :func:`desyr.config.builder.sympy_problem`: the general :class:`Constraint`
and its shorthands, each a small frozen record the builder writes as a ``[[constraints]]`` table."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from desyr.errors import ConfigError

#: where a constraint holds: ``{x: 0}`` (a face), ``{x: 0, y: 0}`` (a point), or a set word
On = Mapping[Any, Any] | str


@dataclass(frozen=True)
class Constraint:
    """``operator = value`` on ``on``: the general form (the other constraints are shorthands)."""

    operator: Any          # an expression in the fields and their derivatives, e.g. u(x, t).diff(x)
    on: On | Sequence[On]
    value: Any = 0         # a number, an expression in the variables, or "reference"
    points: int | None = None
    label: str | None = None


def Dirichlet(field: Any, on: On | Sequence[On] = "boundary", value: Any = 0, points: int | None = None,
              label: str | None = None) -> Constraint:
    """The field's value on ``on`` (``"boundary"``: every face of the spatial variables)."""
    return Constraint(field, on, value, points, label)


def Neumann(field: Any, on: Mapping[Any, Any], value: Any = 0, points: int | None = None,
            label: str | None = None) -> Constraint:
    """The outward normal derivative on one face of the box, as DeepXDE's ``NeumannBC``: on
    ``{x: lo}`` it is ``-u_x``, on ``{x: hi}`` it is ``u_x``. The side is read from the domain when
    the problem is built (:class:`NormalDerivative`)."""
    if not isinstance(on, Mapping) or len(on) != 1:
        raise ConfigError(f"Neumann: on must fix exactly one variable, such as {{x: 0}}, got {on!r:.60}")
    return Constraint(NormalDerivative(field, *next(iter(on.items()))), on, value, points, label)


def Initial(field: Any, value: Any = 0, derivative: int = 0, points: int | None = None,
            label: str | None = None) -> Constraint:
    """The field (``derivative = 0``) or its time derivative of that order at the initial time."""
    if not isinstance(derivative, int) or isinstance(derivative, bool) or not 0 <= derivative <= 4:
        raise ConfigError(f"Initial: derivative must be an integer in [0, 4], got {derivative!r:.40}")
    return Constraint(TimeDerivative(field, derivative), "initial", value, points, label)


def PointValue(field: Any, at: Mapping[Any, Any], value: Any = 0, label: str | None = None) -> Constraint:
    """The field's value at one point: every variable fixed."""
    return Constraint(field, at, value, None, label)


@dataclass(frozen=True)
class NormalDerivative:
    """A Neumann constraint's operator until the problem is built: the outward normal derivative of
    ``field`` on the face ``variable = at`` (its sign comes from the domain)."""

    field: Any
    variable: Any
    at: Any


@dataclass(frozen=True)
class TimeDerivative:
    """An initial constraint's operator until the problem is built: ``field``'s time derivative of ``order``."""

    field: Any
    order: int
