"""Two teachers without neural networks.

``samples``  -- values tabulated in a ``.npz`` or ``.csv`` file, interpolated at new
               points: ``np.interp`` in 1-D; piecewise-linear ``LinearNDInterpolator``
               on the Delaunay triangulation of the samples in d >= 2, with the
               nearest sample outside the convex hull (``NearestNDInterpolator``).
``callable`` -- ``function = "package.module:function"``, called as ``f(X)`` with X of
               shape (n, d) in the problem's variable order.
"""
from __future__ import annotations

import csv
import importlib
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from desyr.roles import ComponentError, Teacher, TeacherModel


def _as_values(Y: Any, n: int, n_fields: int, who: str) -> np.ndarray:
    try:
        Y = np.asarray(Y, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ComponentError(f"{who} returned values that are not numbers: {exc}") from None
    if Y.ndim == 0:
        Y = np.full((n, 1), float(Y))
    if Y.ndim == 1:
        Y = Y.reshape(-1, 1)
    if Y.ndim != 2 or Y.shape[0] != n or Y.shape[1] != n_fields:
        raise ComponentError(f"{who} gave values of shape {Y.shape}; expected ({n},) or ({n}, {n_fields}) "
                             f"for {n_fields} field(s)")
    return Y


def _check_X(X: np.ndarray, d: int) -> np.ndarray:
    X = np.asarray(X, dtype=float)
    if X.ndim == 1 and d == 1:
        X = X.reshape(-1, 1)
    if X.ndim != 2 or X.shape[1] != d:
        raise ValueError(f"expected points of shape (n, {d}), got {X.shape}")
    return X


# ====================================================================== samples
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
            return np.interp(X[:, 0], self.xs, self.ys)
        out = np.asarray(self.linear(X), dtype=float).reshape(len(X))
        outside = ~np.isfinite(out)
        if outside.any():
            out[outside] = np.asarray(self.nearest(X[outside]), dtype=float).reshape(-1)
        return out


class SamplesModel(TeacherModel):
    def __init__(self, X: np.ndarray, Y: np.ndarray, fields: Sequence[str], info: dict) -> None:
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


def _stacked(data, keys: set[str], whole: str, names: list[str], kind: str, path: Path) -> np.ndarray:
    """Array ``whole`` (X or Y) if present, else the columns named by ``names``."""
    if whole in keys:
        arr = np.asarray(data[whole], dtype=float)
        return arr.reshape(-1, 1) if whole == "X" and arr.ndim == 1 else arr
    missing = [n for n in names if n not in keys]
    if missing:
        raise ComponentError(f"teacher 'samples': {path} needs an array '{whole}' or arrays named by the "
                             f"{kind}; missing {', '.join(missing)} (found: {', '.join(sorted(keys))})")
    return np.column_stack([np.asarray(data[n], dtype=float).reshape(-1) for n in names])


def _read_npz(path: Path, variables: list[str], fields: list[str]) -> tuple[np.ndarray, np.ndarray]:
    try:
        data = np.load(path, allow_pickle=False)
    except Exception as exc:
        raise ComponentError(f"teacher 'samples': cannot read {path}: {exc}") from None
    keys = set(data.files)
    X = _stacked(data, keys, "X", variables, "variables", path)
    Y = _stacked(data, keys, "Y", fields, "fields", path)
    return X, Y


def _read_csv(path: Path, variables: list[str], fields: list[str]) -> tuple[np.ndarray, np.ndarray]:
    try:
        with open(path, newline="", encoding="utf-8") as fh:
            rows = list(csv.reader(fh))
    except OSError as exc:
        raise ComponentError(f"teacher 'samples': cannot read {path}: {exc}") from None
    rows = [r for r in rows if r and any(c.strip() for c in r)]
    if len(rows) < 2:
        raise ComponentError(f"teacher 'samples': {path} needs a header row naming the columns and at least one data row")
    header = [h.strip() for h in rows[0]]
    missing = [n for n in variables + fields if n not in header]
    if missing:
        raise ComponentError(f"teacher 'samples': {path} has no column(s) {', '.join(missing)} "
                             f"(header: {', '.join(header)}; needed: {', '.join(variables + fields)})")
    idx = [header.index(n) for n in variables + fields]
    try:
        table = np.array([[float(r[i]) for i in idx] for r in rows[1:]], dtype=float)
    except (ValueError, IndexError) as exc:
        raise ComponentError(f"teacher 'samples': {path} has a non-numeric or short row: {exc}") from None
    return table[:, :len(variables)], table[:, len(variables):]


class SamplesTeacher(Teacher):
    """Interpolates tabulated values (``.npz`` or ``.csv``)."""

    name = "samples"
    options = {"path": None}

    def prepare(self, problem, context) -> TeacherModel:
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
        Y = _as_values(Y, X.shape[0], len(fields), f"teacher 'samples' ({path})")
        keep = np.all(np.isfinite(X), axis=1) & np.all(np.isfinite(Y), axis=1)
        X, Y = X[keep], Y[keep]
        if len(X) < len(variables) + 1:
            raise ComponentError(f"teacher 'samples': {path} has only {len(X)} usable rows")
        info = {"teacher": "samples", "path": str(path), "n_samples": int(len(X)), "cached": False,
                "interpolation": "np.interp" if len(variables) == 1 else "LinearNDInterpolator + nearest outside hull"}
        context.progress.message(f"teacher samples: {len(X)} samples from {path.name}")
        return SamplesModel(X, Y, fields, info)


# ===================================================================== callable
def load_callable(spec: Any) -> Callable:
    if not isinstance(spec, str) or ":" not in spec:
        raise ComponentError(f"teacher 'callable' needs option function = \"module:function\", got {spec!r}")
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise ComponentError(f"teacher 'callable': bad function spec {spec!r}; write \"module:function\"")
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:
        raise ComponentError(f"teacher 'callable': cannot import module '{module_name}': "
                             f"{type(exc).__name__}: {exc}") from None
    obj = module
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise ComponentError(f"teacher 'callable': module '{module_name}' has no attribute '{attr}'") from None
    if not callable(obj):
        raise ComponentError(f"teacher 'callable': {spec} is not callable")
    return obj


class CallableModel(TeacherModel):
    def __init__(self, fn: Callable, spec: str, d: int, fields: Sequence[str]) -> None:
        self.fn, self.spec, self.d, self.fields = fn, spec, d, list(fields)

    def predict(self, X: np.ndarray) -> np.ndarray:
        X = _check_X(X, self.d)
        try:
            Y = self.fn(X)
        except Exception as exc:
            raise ComponentError(f"teacher 'callable': {self.spec} failed: {type(exc).__name__}: {exc}") from exc
        return _as_values(Y, X.shape[0], len(self.fields), f"teacher 'callable' ({self.spec})")

    def info(self) -> dict[str, Any]:
        return {"teacher": "callable", "function": self.spec, "cached": False}


class CallableTeacher(Teacher):
    """Values from a user function ``f(X) -> (n,) or (n, n_fields)``."""

    name = "callable"
    options = {"function": None}

    def prepare(self, problem, context) -> TeacherModel:
        spec = self.settings["function"]
        fn = load_callable(spec)
        model = CallableModel(fn, spec, problem.dim, problem.fields)
        # Fail early with a clear message rather than deep inside the search stage.
        lo, hi = problem.bounds[:, 0], problem.bounds[:, 1]
        model.predict(((lo + hi) / 2).reshape(1, -1))
        context.progress.message(f"teacher callable: {spec}")
        return model
