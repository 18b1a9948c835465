"""The independent verifier: the verdict, decided in a clean process from data alone.

``python -I -m desyr.verify`` reads one request (JSON on standard input: the config text,
the printed expressions, optionally the exact form, and the seed) and prints one verdict
(JSON).  It loads no entry point and imports no plugin.  ``desyr run``, ``refine`` and
``bench`` obtain their verdict this way (:func:`request_verdict`), and ``desyr verify``
re-verifies any result or any formula.  See ``docs/security.md``.
"""
from desyr.verify.child import VerifierError, request_verdict
from desyr.verify.request import make_request

__all__ = ["VerifierError", "make_request", "request_verdict"]
