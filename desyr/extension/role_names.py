"""The component roles by name, in the order every listing uses: a module of its own, importable without
the roles' base classes (which load SymPy) or the hook specifications (which name those classes)."""
from __future__ import annotations

#: the component roles, each with its registration hook ``desyr_register_<role>s``
ROLES = ("teacher", "searcher", "refiner", "gate", "executor")
