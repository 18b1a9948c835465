"""Which Python function a ``callable`` teacher may import and run, and importing it.

A config names ``function = "package.module:function"``; the function is called as ``f(X)``.
That is running code a config names, so it needs the consent of whoever runs desyr
(``--allow-callable`` or ``DESYR_ALLOW_CALLABLE=1``).  Even then only a *function of
someone's own module* is accepted; refused, each with one line:

- the standard library, built-in modules and built-in functions, and private or special
  attribute names (``_x``, ``__globals__``);
- programs rather than functions: any module named ``__main__`` (importing one runs its
  program, e.g. ``numpy.f2py.__main__``), and every function an installed distribution
  declares as a command-line program (a ``console_scripts`` / ``gui_scripts`` entry point,
  e.g. ``numpy.f2py.f2py2e:main``), by name and by where the function is defined;
- installers and build tools (:data:`TOOL_MODULES`): their functions install packages or
  compile and load code, which is never what a teacher is for.
"""
from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import site
import sys
import sysconfig
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

from desyr.plugin import ComponentError

#: environment variable that allows the ``callable`` teacher to import and run user code
ALLOW_ENV = "DESYR_ALLOW_CALLABLE"

#: packages (and everything under them) that install software or compile and load code
TOOL_MODULES = ("pip", "setuptools", "pkg_resources", "_distutils_hack", "distutils", "wheel", "ensurepip",
                "venv", "virtualenv", "pipx", "build", "installer", "conda", "Cython", "pyximport",
                "numpy.f2py", "numpy.distutils")
#: entry-point groups whose functions are programs (they read sys.argv, not points)
PROGRAM_GROUPS = ("console_scripts", "gui_scripts")


def short_repr(value: Any, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters, for one-line errors."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def callable_allowed() -> bool:
    """True when the person running DeSyR allowed configs to run their own Python functions."""
    return os.environ.get(ALLOW_ENV, "").strip().lower() in ("1", "true", "yes")


def _stdlib_dirs() -> list[Path]:
    paths = sysconfig.get_paths()
    dirs = {paths.get("stdlib"), paths.get("platstdlib"),
            sysconfig.get_paths(vars={"base": sys.base_prefix, "platbase": sys.base_exec_prefix}).get("stdlib")}
    return [Path(d).resolve() for d in dirs if d]


def _site_dirs() -> list[Path]:
    dirs = set(sysconfig.get_paths().get(k) for k in ("purelib", "platlib"))
    try:
        dirs |= set(site.getsitepackages())
    except AttributeError:   # pragma: no cover - old virtualenv
        pass
    user = getattr(site, "getusersitepackages", lambda: None)()
    if user:
        dirs.add(user)
    return [Path(d).resolve() for d in dirs if d]


def _under(path: Path, dirs: list[Path]) -> bool:
    return any(path == d or d in path.parents for d in dirs)


def _name_reason(module_name: str) -> str | None:
    parts = module_name.split(".")
    top = parts[0]
    if top == "builtins" or top in sys.builtin_module_names:
        return "it is built into Python"
    if any(p.startswith("__") and p.endswith("__") for p in parts):   # __main__ above all: importing runs it
        return "a '__main__' (or other special) module is a program, not a module of functions"
    if top in getattr(sys, "stdlib_module_names", ()):
        return "it is part of the Python standard library"
    tool = next((t for t in TOOL_MODULES if module_name == t or module_name.startswith(t + ".")), None)
    if tool:
        return f"it belongs to '{tool}', an installer or build tool"
    return None


def _program_reason(module_name: str, attr: str) -> str | None:
    """Why ``module_name:attr`` is a command-line program an installed distribution declares."""
    from importlib.metadata import entry_points

    try:
        found = [ep for group in PROGRAM_GROUPS for ep in entry_points(group=group)]
    except Exception:   # broken metadata of some distribution: no program is known then
        return None
    for ep in found:
        module, _, target = ep.value.partition(":")
        if module.strip() != module_name:
            continue
        if target.split("[")[0].strip() == attr:
            return f"it is the command-line program '{ep.name}' ({ep.group}), not a function of points"
        # what the program calls lives beside it (desyr's console script is cli.main:entry, which runs main)
        return f"it belongs to the module of the command-line program '{ep.name}' ({ep.group}), not a function of points"
    return None


def _stdlib_reason(module_name: str, origin: str | None) -> str | None:
    """Why ``module_name`` (found at ``origin``) is not an acceptable home of a teacher function."""
    why = _name_reason(module_name)
    if why:
        return why
    if origin in (None, "built-in", "frozen"):
        return "it has no source file"
    path = Path(origin).resolve()
    if _under(path, _stdlib_dirs()) and not _under(path, _site_dirs()):
        return "it lives in the Python standard library"
    return None


def _refuse(spec: Any, why: str) -> ComponentError:
    return ComponentError(f"teacher 'callable': function = {short_repr(spec)} refused: {why}")


def _no_consent(spec: str) -> ComponentError:
    return ComponentError(f"teacher 'callable' would import and run {short_repr(spec)}, Python code named by the "
                          f"config; this needs the consent of whoever runs desyr: pass --allow-callable or set "
                          f"{ALLOW_ENV}=1")


def check_spec(spec: Any) -> tuple[str, str]:
    """``spec``'s module and attribute, after every check that needs no import (the shape, the
    opt-in, the module's name); a run calls it at load, so a refused function stops it before any work."""
    if not isinstance(spec, str) or ":" not in spec:
        raise ComponentError(f"teacher 'callable' needs option function = \"module:function\", got {short_repr(spec)}")
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise ComponentError(f"teacher 'callable': bad function spec {short_repr(spec)}; write \"module:function\"")
    if not all(p.isascii() and p.isidentifier() for p in module_name.split(".") + attr.split(".")):
        raise ComponentError(f"teacher 'callable': bad function spec {short_repr(spec)}; "
                             f"module and function must be dotted Python names")
    if any(p.startswith("_") for p in attr.split(".")):
        raise _refuse(spec, "private or special attributes (starting with '_') are not accepted")
    if not callable_allowed():
        raise _no_consent(spec)
    why = _name_reason(module_name)          # before find_spec, which imports parent packages
    if why:
        raise _refuse(spec, f"module '{module_name}': {why}")
    why = _program_reason(module_name, attr)
    if why:
        raise _refuse(spec, why)
    return module_name, attr


def load_callable(spec: Any) -> Callable[..., Any]:
    """Import ``module:attr`` after the opt-in and origin checks; every failure is one ComponentError."""
    module_name, attr = check_spec(spec)
    try:
        found = importlib.util.find_spec(module_name)
    except BaseException as exc:
        if isinstance(exc, KeyboardInterrupt):
            raise
        raise ComponentError(f"teacher 'callable': cannot import module '{module_name}': "
                             f"{type(exc).__name__}: {short_repr(str(exc), 200)}") from None
    if found is None:
        raise ComponentError(f"teacher 'callable': cannot import module '{module_name}': no module of that name "
                             f"(it must be installed or on PYTHONPATH; the working directory is not searched)")
    why = _stdlib_reason(module_name, found.origin)
    if why:
        raise _refuse(spec, f"module '{module_name}': {why}")
    try:
        module = importlib.import_module(module_name)
    except BaseException as exc:   # SystemExit, or anything else the module raises at import
        if isinstance(exc, KeyboardInterrupt):
            raise
        raise ComponentError(f"teacher 'callable': cannot import module '{module_name}': "
                             f"{type(exc).__name__}: {short_repr(str(exc), 200)}") from None
    obj: Any = module
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except BaseException as exc:
            if isinstance(exc, KeyboardInterrupt):
                raise
            raise ComponentError(f"teacher 'callable': module '{module_name}' has no attribute '{attr}'") from None
        if isinstance(obj, types.ModuleType):
            why = _stdlib_reason(obj.__name__, getattr(obj, "__file__", None))
            if why:
                raise _refuse(spec, f"'{part}' is module '{obj.__name__}': {why}")
    if not callable(obj):
        raise ComponentError(f"teacher 'callable': {spec} is not callable")
    home = inspect.getmodule(obj)
    home_name = getattr(obj, "__module__", None) or (home.__name__ if home else None)
    if isinstance(obj, (types.BuiltinFunctionType, types.BuiltinMethodType)) or home_name is None:
        raise _refuse(spec, "it is a built-in function, not a Python function of your module")
    if isinstance(home_name, str):
        why = _stdlib_reason(home_name, getattr(home, "__file__", None) if home is not None else None) \
            if home_name != module_name else None
        if why:
            raise _refuse(spec, f"it comes from module '{home_name}': {why}")
        why = _program_reason(home_name, str(getattr(obj, "__qualname__", "")))   # a program re-exported
        if why:
            raise _refuse(spec, why)
    fn: Callable[..., Any] = obj
    return fn
