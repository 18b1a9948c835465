"""Two teachers without neural networks.

``samples``  -- values tabulated in a ``.npz`` or ``.csv`` file, interpolated at new
               points: ``np.interp`` in 1-D; piecewise-linear ``LinearNDInterpolator``
               on the Delaunay triangulation of the samples in d >= 2, with the
               nearest sample outside the convex hull (``NearestNDInterpolator``).
``callable`` -- ``function = "package.module:function"``, called as ``f(X)`` with X of
               shape (n, d) in the problem's variable order.  It runs code a config names,
               so it needs ``--allow-callable`` (or ``DESYR_ALLOW_CALLABLE=1``); what is never
               accepted (the standard library, programs, installers...) is in ``callables.py``.
"""
from __future__ import annotations

import csv
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from desyr.plugin import ComponentError, Option, Problem, RunContext, Teacher, TeacherModel
from desyr_light_teachers.callables import ALLOW_ENV, callable_allowed, check_spec, load_callable, short_repr

__all__ = ["ALLOW_ENV", "CallableTeacher", "SamplesTeacher", "callable_allowed", "load_callable"]


def _numeric(arr: Any, what: str) -> np.ndarray:
    """``arr`` as float64 if it holds real numbers (ints or floats), else a one-line ComponentError."""
    try:
        a = np.asarray(arr)
    except Exception as exc:   # ragged lists and the like
        raise ComponentError(f"{what} is not an array of numbers ({type(exc).__name__}: {exc})") from None
    if a.dtype.kind == "c":
        raise ComponentError(f"{what} holds complex numbers; only real values are accepted")
    if a.dtype.kind not in "iuf":
        raise ComponentError(f"{what} holds {a.dtype} values, not real numbers")
    return a.astype(np.float64, copy=False)


def _finite(arr: np.ndarray, what: str) -> np.ndarray:
    bad = ~np.isfinite(arr)
    if bad.any():
        raise ComponentError(f"{what} has {int(bad.sum())} non-finite value(s) (nan or inf)")
    return arr


def _as_values(Y: Any, n: int, n_fields: int, who: str) -> np.ndarray:
    values = _finite(_numeric(Y, f"{who}: the values"), f"{who}: the values")
    if values.ndim == 0:
        values = np.full((n, 1), float(values))
    if values.ndim == 1:
        values = values.reshape(-1, 1)
    if values.ndim != 2 or values.shape[0] != n or values.shape[1] != n_fields:
        raise ComponentError(f"{who} gave values of shape {values.shape}; expected ({n},) or ({n}, {n_fields}) "
                             f"for {n_fields} field(s)")
    return values


def _check_X(X: np.ndarray, d: int) -> np.ndarray:
    X = np.asarray(X, dtype=float)
    if X.ndim == 1 and d == 1:
        X = X.reshape(-1, 1)
    if X.ndim != 2 or X.shape[1] != d:
        raise ValueError(f"expected points of shape (n, {d}), got {X.shape}")
    return X


class _Interpolant:
    def __init__(self, X: np.ndarray, y: np.ndarray) -> None:
        self.d = X.shape[1]
        if self.d == 1:
            order = np.argsort(X[:, 0], kind="stable")
            xs, ys = X[order, 0], y[order]
            xs, first = np.unique(xs, return_index=True)   # duplicates: keep the first
            self.xs, self.ys = xs, ys[first]
        else:
            from scipy.interpolate import LinearNDInterpolator, NearestNDInterpolator
            try:
                self.linear = LinearNDInterpolator(X, y)
            except Exception as exc:   # qhull errors (too few or degenerate points)
                raise ComponentError(f"teacher 'samples': cannot triangulate the sample points: {exc}") from None
            self.nearest = NearestNDInterpolator(X, y)

    def __call__(self, X: np.ndarray) -> np.ndarray:
        if self.d == 1:
            line: np.ndarray = np.interp(X[:, 0], self.xs, self.ys)
            return line
        out = np.asarray(self.linear(X), dtype=float).reshape(len(X))
        outside = ~np.isfinite(out)
        if outside.any():
            out[outside] = np.asarray(self.nearest(X[outside]), dtype=float).reshape(-1)
        return out


class SamplesModel(TeacherModel):
    def __init__(self, X: np.ndarray, Y: np.ndarray, fields: Sequence[str], info: dict[str, Any]) -> None:
        self.fields = list(fields)
        self.X, self.Y = X, Y
        self.d = X.shape[1]
        self._interp = [_Interpolant(X, Y[:, k]) for k in range(Y.shape[1])]
        self._info = info

    def predict(self, X: np.ndarray) -> np.ndarray:
        X = _check_X(X, self.d)
        return np.column_stack([f(X) for f in self._interp]).astype(np.float64)

    def info(self) -> dict[str, Any]:
        return dict(self._info)


def _stacked(data: Mapping[str, Any], keys: set[str], whole: str, names: list[str], kind: str, path: Path) -> np.ndarray:
    """Array ``whole`` (X or Y) if present, else the columns named by ``names``."""
    if whole in keys:
        arr = _npz_array(data, whole, path)
        return arr.reshape(-1, 1) if whole == "X" and arr.ndim == 1 else arr
    missing = [n for n in names if n not in keys]
    if missing:
        raise ComponentError(f"teacher 'samples': {path} needs an array '{whole}' or arrays named by the "
                             f"{kind}; missing {', '.join(missing)} (found: {', '.join(sorted(keys))})")
    columns = [_npz_array(data, n, path).reshape(-1) for n in names]
    if len({len(c) for c in columns}) > 1:
        sizes = ", ".join(f"{n}: {len(c)}" for n, c in zip(names, columns))
        raise ComponentError(f"teacher 'samples': the arrays in {path} have different lengths ({sizes})")
    return np.column_stack(columns)


def _npz_array(data: Mapping[str, Any], key: str, path: Path) -> np.ndarray:
    try:
        raw = data[key]
    except Exception as exc:   # object arrays (pickles are refused), corrupt members
        raise ComponentError(f"teacher 'samples': cannot read array '{key}' from {path}: "
                             f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}") from None
    return _numeric(raw, f"teacher 'samples': array '{key}' in {path}")


def _read_npz(path: Path, variables: list[str], fields: list[str]) -> tuple[np.ndarray, np.ndarray]:
    try:
        data = np.load(path, allow_pickle=False)
        keys = set(data.files)
    except Exception as exc:
        raise ComponentError(f"teacher 'samples': cannot read {path}: {type(exc).__name__}: "
                             f"{str(exc).splitlines()[0] if str(exc) else ''}") from None
    if not isinstance(data, np.lib.npyio.NpzFile):
        raise ComponentError(f"teacher 'samples': {path} is a single .npy array, not an .npz archive of named arrays")
    X = _stacked(data, keys, "X", variables, "variables", path)
    Y = _stacked(data, keys, "Y", fields, "fields", path)
    return X, Y


def _read_csv(path: Path, variables: list[str], fields: list[str]) -> tuple[np.ndarray, np.ndarray]:
    try:
        # utf-8-sig: a byte-order mark (Excel writes one) is not part of the first column name
        with open(path, newline="", encoding="utf-8-sig") as fh:
            rows = list(csv.reader(fh))
    except OSError as exc:
        raise ComponentError(f"teacher 'samples': cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise ComponentError(f"teacher 'samples': {path} is not UTF-8 text (byte {exc.object[exc.start]:#04x} "
                             f"at offset {exc.start}); save it as UTF-8") from None
    except csv.Error as exc:
        raise ComponentError(f"teacher 'samples': {path} is not a readable CSV file: {exc}") from None
    rows = [r for r in rows if r and any(c.strip() for c in r)]
    if len(rows) < 2:
        raise ComponentError(f"teacher 'samples': {path} needs a header row naming the columns and at least one data row")
    header = [h.strip() for h in rows[0]]
    missing = [n for n in variables + fields if n not in header]
    if missing:
        raise ComponentError(f"teacher 'samples': {path} has no column(s) {', '.join(missing)} "
                             f"(header: {', '.join(header)}; needed: {', '.join(variables + fields)})")
    idx = [header.index(n) for n in variables + fields]
    table = np.empty((len(rows) - 1, len(idx)))
    for k, r in enumerate(rows[1:], start=2):
        for j, i in enumerate(idx):
            cell = r[i].strip() if i < len(r) else None
            if cell is None:
                raise ComponentError(f"teacher 'samples': {path} row {k} is short (no column {header[i]})")
            try:
                table[k - 2, j] = float(cell)
            except ValueError:
                what = "a complex number" if "j" in cell.lower() and cell.lower() not in ("inf", "nan") else "not a number"
                raise ComponentError(f"teacher 'samples': {path} row {k}, column {header[i]}: "
                                     f"{short_repr(cell)} is {what}") from None
    return table[:, :len(variables)], table[:, len(variables):]


class SamplesTeacher(Teacher):
    """Interpolates tabulated values (``.npz`` or ``.csv``)."""

    name = "samples"
    options = {"path": Option(None, "the samples file, .npz (arrays X, Y or one per name) or .csv (header row)",
                              kind=str, nullable=True)}

    def prepare(self, problem: Problem, context: RunContext) -> TeacherModel:
        raw = self.settings["path"]
        if not raw:
            raise ComponentError("teacher 'samples' needs option path = \"file.npz\" or \"file.csv\"")
        path = Path(str(raw)).expanduser()
        if not path.is_file():
            raise ComponentError(f"teacher 'samples': file not found: {path}")
        variables, fields = list(problem.variable_names), list(problem.fields)
        suffix = path.suffix.lower()
        if suffix == ".npz":
            X, Y = _read_npz(path, variables, fields)
        elif suffix == ".csv":
            X, Y = _read_csv(path, variables, fields)
        else:
            raise ComponentError(f"teacher 'samples': {path} must end in .npz or .csv")
        if X.ndim != 2 or X.shape[1] != len(variables):
            raise ComponentError(f"teacher 'samples': X in {path} has shape {X.shape}; expected (n, {len(variables)}) "
                                 f"for variables {', '.join(variables)}")
        _finite(X, f"teacher 'samples': the points in {path}")
        Y = _as_values(Y, X.shape[0], len(fields), f"teacher 'samples' ({path})")
        if len(X) < len(variables) + 1:
            raise ComponentError(f"teacher 'samples': {path} has only {len(X)} usable rows")
        info = {"teacher": "samples", "path": str(path), "n_samples": int(len(X)), "cached": False,
                "interpolation": "np.interp" if len(variables) == 1 else "LinearNDInterpolator + nearest outside hull"}
        context.progress.message(f"teacher samples: {len(X)} samples from {path.name}")
        return SamplesModel(X, Y, fields, info)


class CallableModel(TeacherModel):
    def __init__(self, fn: Callable[..., Any], spec: str, d: int, fields: Sequence[str]) -> None:
        self.fn, self.spec, self.d, self.fields = fn, spec, d, list(fields)

    def predict(self, X: np.ndarray) -> np.ndarray:
        X = _check_X(X, self.d)
        try:
            Y = self.fn(X)
        except BaseException as exc:   # SystemExit too: a user function must not end the run silently
            if isinstance(exc, KeyboardInterrupt):
                raise
            raise ComponentError(f"teacher 'callable': {self.spec} failed on {len(X)} point(s): "
                                 f"{type(exc).__name__}: {short_repr(str(exc), 200)}") from None
        return _as_values(Y, X.shape[0], len(self.fields), f"teacher 'callable' ({self.spec})")

    def info(self) -> dict[str, Any]:
        return {"teacher": "callable", "function": self.spec, "cached": False}


class CallableTeacher(Teacher):
    """Values from a user function ``f(X) -> (n,) or (n, n_fields)``."""

    name = "callable"
    options = {"function": Option(None, "\"module:function\" of an installed module (needs --allow-callable "
                                        "or DESYR_ALLOW_CALLABLE=1)", kind=str, nullable=True)}

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        # Refuse at load, before any work or output: no consent, or a function no consent would allow.
        if self.settings["function"] is not None:
            check_spec(self.settings["function"])

    def prepare(self, problem: Problem, context: RunContext) -> TeacherModel:
        spec = self.settings["function"]
        fn = load_callable(spec)
        model = CallableModel(fn, spec, problem.dim, problem.fields)
        # Fail early, not deep in the search: the centre, then a batch (some functions fail only on batches).
        lo, hi = problem.bounds[:, 0], problem.bounds[:, 1]
        model.predict(((lo + hi) / 2).reshape(1, -1))
        rng = np.random.default_rng(0)
        model.predict(lo + (hi - lo) * rng.random((64, problem.dim)))
        context.progress.message(f"teacher callable: {spec}")
        return model
