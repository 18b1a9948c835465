"""The independent verifier: the verdict, decided in a clean process from data alone.

``python -I -m desyr.verify`` reads one request (JSON on standard input: the config text,
the printed expressions, optionally the exact form, and the seed) and prints one verdict
(JSON).  It loads no entry point and imports no plugin.  ``desyr run``, ``refine`` and
``bench`` obtain their verdict this way (:func:`request_verdict`), and ``desyr verify``
re-verifies any result or any formula.  See ``docs/security.md``.
"""
from __future__ import annotations

from typing import Any

__all__ = ["VerifierError", "make_request", "request_verdict"]


def __getattr__(name: str) -> Any:
    # lazy: `desyr --help` builds the verify subcommand's parser without loading SymPy
    if name in ("VerifierError", "request_verdict"):
        from desyr.verify import child

        return getattr(child, name)
    if name == "make_request":
        from desyr.verify.request import make_request

        return make_request
    raise AttributeError(f"module 'desyr.verify' has no attribute {name!r}")
