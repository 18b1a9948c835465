"""Fingerprints of what a component is handed (:mod:`desyr.model.fingerprints`: the run watches with them too)."""
from __future__ import annotations

from desyr.model.fingerprints import changed_paths, fingerprint

__all__ = ["fingerprint", "changed_paths"]
