"""Reading ``[parameters]``, ``[unknowns]`` and ``[observations]`` (docs/parametric.md, docs/inverse.md).

A parameter is one more variable of the domain that no derivative is taken in: the teacher
takes it as an input, the search as a variable, and the result is one formula in it.  An
unknown is a coefficient of the equations, found from the physics and the observations.
Every mistake is one :class:`ConfigError` line, before any work.
"""
from __future__ import annotations

import csv
import hashlib
import math
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from desyr.errors import ConfigError
from desyr.model.names import check_name
from desyr.model.problem import Problem, Variable, jets_in
from desyr.model.unknowns import Observations, Unknown
from desyr.symbolic.expressions import ExpressionError

#: observation points a config may give or ask for: the refit evaluates every one at each step
MAX_OBSERVATIONS = 100_000
_GENERATED_KEYS = {"points", "noise", "seed"}
#: the largest stated noise: beyond it the misfit the verifier allows nears that of the zero function
MAX_NOISE = 0.5


def _span(name: str, span: Any, where: str, source: str) -> tuple[float, float]:
    if (not isinstance(span, list) or len(span) != 2
            or not all(isinstance(b, (int, float)) and not isinstance(b, bool) for b in span)
            or not all(math.isfinite(float(b)) for b in span)):
        raise ConfigError(f"{source}: [{where}] {name} must be [lo, hi] with finite numbers, got {span!r:.60}")
    lo, hi = float(span[0]), float(span[1])
    if not lo < hi:
        raise ConfigError(f"{source}: [{where}] {name} = [{lo:g}, {hi:g}] has zero or negative width; "
                          f"give lo < hi")
    return lo, hi


def read_parameters(data: Mapping[str, Any], taken: list[str], source: str) -> list[Variable]:
    """``[parameters] nu = [0.05, 0.2]`` as variables appended to the domain's."""
    table = data.get("parameters", {})
    out = []
    for name, span in table.items():
        check_name(name, "parameter", source)
        if name in taken:
            raise ConfigError(f"{source}: [parameters] {name} is already a variable of [domain]; "
                              f"a name is a variable, a parameter or an unknown, not two of them")
        out.append(Variable(name, *_span(name, span, "parameters", source)))
    return out


def read_unknowns(data: Mapping[str, Any], taken: list[str], fields: list[str], source: str) -> tuple[Unknown, ...]:
    """``[unknowns] nu = [0.01, 1]``: names with bounds (checked against the equations later)."""
    table = data.get("unknowns", {})
    out = []
    for name, span in table.items():
        check_name(name, "unknown", source)
        if name in taken or name in fields:
            what = "a field" if name in fields else "a variable or parameter"
            raise ConfigError(f"{source}: [unknowns] {name} is already {what}; "
                              f"a name is a variable, a parameter or an unknown, not two of them")
        out.append(Unknown(name, *_span(name, span, "unknowns", source)))
    return tuple(out)


def check_unknowns_used(problem: Problem) -> None:
    """Every unknown must appear in an equation or a constraint: otherwise nothing can decide it."""
    used: set[str] = set()
    for expr in [e.residual for e in problem.equations] + [c.residual for c in problem.constraints]:
        used |= {s.name for s in expr.free_symbols}
    for unknown in problem.unknowns:
        if unknown.name not in used:
            raise ConfigError(f"{problem.source}: [unknowns] {unknown.name} appears in no equation or constraint, "
                              f"so nothing can decide its value")
    if problem.unknowns and problem.observations is None and not problem.constraints:
        raise ConfigError(f"{problem.source}: [unknowns] needs [observations] (or constraints) that decide them")


def check_parameters_not_differentiated(problem: Problem) -> None:
    """A parameter labels a member of the family: an equation may not differentiate in it."""
    for expr in [e.lhs for e in problem.equations] + [c.operator for c in problem.constraints]:
        for jet in jets_in(expr, problem.vocabulary):
            bad = sorted(set(jet.wrt) & set(problem.parameters))
            if bad:
                raise ConfigError(f"{problem.source}: {jet.name} differentiates in the parameter {bad[0]}; "
                                  f"a parameter is constant in each member of the family")


def read_observations(data: Mapping[str, Any], problem: Problem) -> Observations | None:
    table = data.get("observations")
    if table is None:
        return None
    source = problem.source
    if not problem.unknowns:
        raise ConfigError(f"{source}: [observations] needs [unknowns] for them to decide")
    noise = table.get("noise", 0.0)
    if not isinstance(noise, (int, float)) or isinstance(noise, bool) or not 0 <= noise < MAX_NOISE:
        raise ConfigError(f"{source}: [observations] noise must be a relative level in [0, {MAX_NOISE:g}), got "
                          f"{noise!r:.40}; noisier data hardly tell a solution from zero")
    if "file" in table:
        unknown = sorted(set(table) - {"file", "noise"})
        if unknown:
            raise ConfigError(f"{source}: [observations] with a file takes only file and noise; "
                              f"unknown: {', '.join(unknown)}")
        X, values, fields, origin = _from_file(table["file"], problem)
    else:
        X, values, fields, origin = _generated(table, problem, float(noise))
    _check_inside(X, problem)
    for k, field in enumerate(fields):
        _check_size(field, values[:, k], source)
    return Observations(X, values, fields, float(noise), origin)


#: the largest observed magnitude: beyond it the squares in every misfit overflow a double
MAX_VALUE = 1e150


def _check_size(field: str, column: np.ndarray, source: str) -> None:
    """An observed field must have a size: ``noise`` is relative to it, so a field observed as 0
    everywhere would be exact and weigh without limit; and none may be so large that its square overflows."""
    largest = float(np.max(np.abs(column)))
    if largest == 0:
        raise ConfigError(f"{source}: [observations] {field} is 0 at every point; the noise is relative to a "
                          f"field's size, so this says nothing of its accuracy: leave {field} out")
    if largest > MAX_VALUE:
        raise ConfigError(f"{source}: [observations] {field} reaches {largest:.3g}; values beyond "
                          f"{MAX_VALUE:g} overflow the misfit: rescale the field")


def _generated(table: Mapping[str, Any], problem: Problem, noise: float
               ) -> tuple[np.ndarray, np.ndarray, tuple[str, ...], str]:
    """Values of given expressions at seeded points, with Gaussian noise of the stated relative size."""
    from desyr.model.points import interior_points
    from desyr.symbolic.numeric import evaluate

    source = problem.source
    fields = [k for k in table if k not in _GENERATED_KEYS]
    bad = sorted(set(fields) - set(problem.fields))
    if bad or not fields:
        raise ConfigError(f"{source}: [observations] gives a file = \"data.npz\" or an expression per field "
                          f"({', '.join(problem.fields)}) with points, noise and seed; unknown: {', '.join(bad) or '-'}")
    n = table.get("points", 100)
    seed = table.get("seed", 0)
    for key, value, high in (("points", n, MAX_OBSERVATIONS), ("seed", seed, 2**32 - 1)):
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= high or (key == "points" and
                                                                                               value < 1):
            raise ConfigError(f"{source}: [observations] {key} must be an integer in [{int(key == 'points')}, {high}]")
    rng = np.random.default_rng([seed, 7907])
    X = interior_points(problem, n, rng, lambda r, m, d: r.random((m, d)))
    columns = []
    for f in fields:
        try:
            expr = problem.parse(table[f])
        except ExpressionError as exc:
            raise ConfigError(f"{source}: [observations] {f}: {exc}") from None
        if any(s.name in problem.unknown_names for s in expr.free_symbols):
            raise ConfigError(f"{source}: [observations] {f} uses an unknown; data are numbers at points")
        with np.errstate(all="ignore"):
            clean = np.broadcast_to(evaluate(expr, problem.symbols, X), (n,)).astype(float)
        if not np.all(np.isfinite(clean)):
            raise ConfigError(f"{source}: [observations] {f} is not finite at some observation points")
        _check_size(f, clean, source)
        scale = float(np.sqrt(np.mean(np.square(clean))))
        columns.append(clean + noise * scale * rng.standard_normal(n))
    return X, np.column_stack(columns), tuple(fields), f"generated: {n} points, seed {seed}, noise {noise:g}"


def _from_file(name: Any, problem: Problem) -> tuple[np.ndarray, np.ndarray, tuple[str, ...], str]:
    """A ``.npz`` (arrays named by variables and fields) or ``.csv`` (a header of the same names)."""
    source = problem.source
    if not isinstance(name, str) or not name:
        raise ConfigError(f"{source}: [observations] file must be a path to a .npz or .csv file")
    path = Path(name)
    if not path.is_absolute():
        folder = Path(source).parent if Path(source).is_file() else Path.cwd()
        path = folder / path
    if path.suffix not in (".npz", ".csv") or not path.is_file():
        raise ConfigError(f"{source}: [observations] file {name!r:.80} is not an existing .npz or .csv file")
    try:
        columns = _npz_columns(path) if path.suffix == ".npz" else _csv_columns(path)
    except (OSError, ValueError, TypeError, IndexError, KeyError, zipfile.BadZipFile) as exc:
        # a file is data from anywhere: every way it can be malformed is one line
        raise ConfigError(f"{source}: [observations] file {name!r:.80} cannot be read: "
                          f"{' '.join(str(exc).split())[:160] or type(exc).__name__}") from None
    missing = [v for v in problem.variable_names if v not in columns]
    fields = tuple(f for f in problem.fields if f in columns)
    if missing or not fields:
        raise ConfigError(f"{source}: [observations] file {name!r:.80} needs columns for every variable "
                          f"({', '.join(problem.variable_names)}) and at least one field; missing: "
                          f"{', '.join(missing) or 'a field'}")
    n = {len(c) for c in columns.values()}
    if len(n) != 1 or not 1 <= next(iter(n)) <= MAX_OBSERVATIONS:
        raise ConfigError(f"{source}: [observations] file {name!r:.80}: columns must have one length, "
                          f"1 to {MAX_OBSERVATIONS}")
    X = np.column_stack([columns[v] for v in problem.variable_names])
    values = np.column_stack([columns[f] for f in fields])
    if not (np.all(np.isfinite(X)) and np.all(np.isfinite(values))):
        raise ConfigError(f"{source}: [observations] file {name!r:.80} has values that are not finite numbers")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    return X, values, fields, f"file {path} (sha256 {digest})"


#: bytes an observation file may hold once unpacked: a small .npz can inflate to gigabytes
MAX_FILE_BYTES = 64 * 2**20


def _npz_columns(path: Path) -> dict[str, np.ndarray]:
    with zipfile.ZipFile(path) as archive:        # sizes first, before anything is unpacked
        unpacked = sum(info.file_size for info in archive.infolist())
    if unpacked > MAX_FILE_BYTES:
        raise ValueError(f"it unpacks to {unpacked} bytes; at most {MAX_FILE_BYTES}")
    with np.load(path, allow_pickle=False) as data:
        return {k: _real_column(k, data[k]) for k in data.files}


def _real_column(name: str, values: np.ndarray) -> np.ndarray:
    """One array as float64: real numbers only (a complex or boolean array is not a measurement)."""
    if values.dtype.kind not in "iuf":
        raise ValueError(f"array {name!r} holds {values.dtype} values, not real numbers")
    if values.ndim != 1:    # flattening a grid pairs values with points by a layout nobody stated
        raise ValueError(f"array {name!r} has shape {values.shape}; give each variable and field as a 1-D "
                         f"array with one entry per point (ravel grids alike)")
    return np.asarray(values, dtype=float)


def _csv_columns(path: Path) -> dict[str, np.ndarray]:
    if path.stat().st_size > MAX_FILE_BYTES:
        raise ValueError(f"it has more than {MAX_FILE_BYTES} bytes")
    with path.open(newline="", encoding="utf-8-sig") as handle:     # a spreadsheet's byte-order mark is no name
        rows = [row for row in csv.reader(handle) if any(v.strip() for v in row)]
    if len(rows) < 2:
        raise ValueError("a header row and at least one row of numbers are needed")
    header = [h.strip() for h in rows[0]]
    if len(set(header)) != len(header):
        raise ValueError(f"the header names a column twice: {', '.join(header)}")
    for k, row in enumerate(rows[1:], 2):
        if len(row) != len(header):
            raise ValueError(f"row {k} has {len(row)} values for {len(header)} columns")
    table = np.array([[float(v) for v in row] for row in rows[1:]], dtype=float)
    return {h: table[:, i] for i, h in enumerate(header)}


def _check_inside(X: np.ndarray, problem: Problem) -> None:
    lo, hi = problem.bounds[:, 0], problem.bounds[:, 1]
    outside = np.any((X < lo) | (X > hi), axis=1) | problem.outside(X)
    if outside.any():
        point = ", ".join(f"{v} = {x:g}" for v, x in zip(problem.variable_names, X[np.argmax(outside)]))
        raise ConfigError(f"{problem.source}: [observations] {int(outside.sum())} point(s) lie outside the domain, "
                          f"e.g. {point}")
