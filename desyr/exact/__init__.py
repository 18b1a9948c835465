"""Exact closed forms of a recovered solution: checked constant identification,
canonical rewrites, post hoc symbolic match (see ``docs/exact.md``); the export of
:mod:`desyr.codegen` is offered here too.

Nothing here imports torch or jax; the generated code for those backends does.
"""
from desyr.codegen.export import FORMATS, export, to_callable
from desyr.exact.form import ExactForm, exact_form
from desyr.exact.identify import propose
from desyr.exact.match import symbolic_match
from desyr.exact.records import Acceptance, ConstantDecision, RewriteDecision

__all__ = ["Acceptance", "ConstantDecision", "ExactForm", "FORMATS", "RewriteDecision", "exact_form", "export",
           "propose", "symbolic_match", "to_callable"]
