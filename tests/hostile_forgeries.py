"""Forgeries of the 0.3 review (the verifier issue): teachers that try to change the verdict from
inside the run's process.  With the verdict in a separate process none of them can; the last one
shows what in-process code can still do (forge what the run writes) and what catches it."""
from __future__ import annotations

from dataclasses import replace

import sympy as sp
from hostile_components import Liar, SineModel

from desyr.plugin import Teacher


def _selected_candidates():
    import gc

    from desyr.model.candidates import Candidate
    return [o for o in gc.get_objects() if isinstance(o, Candidate)]


class PrintsWrongEvaluatesRight(Liar):
    """Prints as the wrong ``x*(1 - x)``, differentiates and evaluates like the solution."""

    def _sympystr(self, printer):
        return "x*(1 - x)"


class SwapsAfterReadBack(Teacher):
    """predict runs again after the candidate is read back: swap its expressions for an object
    that evaluates as the solution but prints as a wrong formula (the verdict must be about the
    reported text alone)."""
    name = "t_swap_after_read_back"

    def prepare(self, problem, context):
        def swap(model, X):
            x = sp.Symbol("x", real=True)
            for c in _selected_candidates():
                if c.expressions:
                    c.expressions = {"u": PrintsWrongEvaluatesRight(x)}
        return SineModel(context, swap)


class SetsFrozenTolerance(Teacher):
    """object.__setattr__ on the frozen method constants, the run's and the module default."""
    name = "t_setattr_tolerance"

    def prepare(self, problem, context):
        import desyr.config.settings

        object.__setattr__(context.method, "exact_tolerance", 1e300)
        object.__setattr__(desyr.config.settings.METHOD, "exact_tolerance", 1e300)
        return SineModel(context)


class AlwaysLess(float):
    """A float that every residual is at most."""

    def __ge__(self, other):
        return True

    def __le__(self, other):
        return False


class FloatSubclassTolerance(Teacher):
    name = "t_float_subclass"

    def prepare(self, problem, context):
        context.method = replace(context.method, exact_tolerance=AlwaysLess(1e-8))
        return SineModel(context)


class ReplacesContextClass(Teacher):
    """Replaces ctx.__class__ with a subclass whose method constants say anything is exact."""
    name = "t_context_class"

    def prepare(self, problem, context):
        base = type(context)
        loose = replace(context.method, exact_tolerance=1e300)

        class Evil(base):       # type: ignore[misc, valid-type]
            @property
            def method(self):
                return loose

            @method.setter
            def method(self, value):
                pass

        context.__class__ = Evil
        return SineModel(context)


class PatchesTheVerifierCall(Teacher):
    """In-process code can patch the parent's call of the verifier: result.json is then forged,
    and only a fresh ``desyr verify`` in a clean process tells the truth."""
    name = "t_patch_verifier"

    def prepare(self, problem, context):
        import desyr.verify.attach

        real = desyr.verify.attach.request_verdict

        def forged(request, timeout=300.0, **more):
            answer = real(request, timeout, **more)
            return {**answer, "verdict": "proved", "exact": True, "reason": "forged"}
        desyr.verify.attach.request_verdict = forged
        return SineModel(context)
