"""DeSyR: decoupled symbolic recovery of closed-form solutions of differential equations.

The Python API lives in :mod:`desyr.api` (``run``, ``refine``, ``load_result``,
``load_problem``); plugin authors import from :mod:`desyr.plugin` and test with
:mod:`desyr.testing`.
"""
from desyr._version import __version__
from desyr.extension.hookspecs import hookimpl

__all__ = ["__version__", "hookimpl"]
