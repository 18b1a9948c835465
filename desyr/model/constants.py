"""The numbers of the method (paper §3.4 and §3.5), defined once.

They live in the data model, not in the config layer: the model, the symbolic code and the
stages read them without importing the config, and a run's values (the defaults with what
its config and components override) come from :func:`desyr.config.settings.method_constants`.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class MethodConstants:
    """The numbers of the method, in one place; gates, cleaning and refits read these.

    The cleaning constants below ``rate_multiples`` only decide what Stage C *tries* to remove
    (with a refit of the reduced tree); whether it is kept is the acceptance check's decision
    (``physics_*`` and ``teacher_*``, the same as the relative gates)."""

    constraint_weight: float = 100.0          # lambda_c: PDE residual + 100 x constraint residuals
    teacher_factor: float = 3.0               # eps_T <= 3 eps_T,min + 1e-8
    teacher_absolute: float = 1e-8
    physics_factor: float = 1.05              # Phi <= 1.05 Phi_min + 1e-10
    physics_absolute: float = 1e-10
    clean_term_tolerance: float = 1e-8        # additive terms below this are proposed for removal
    snap_integer_tolerance: float = 1e-12     # constants this close to an integer are snapped
    exact_tolerance: float = 1e-8             # verified exact: every residual relative to the problem's scale at most this
    # a coupled shortlist keeps the candidates with eps_T,f <= 3 eps_T,f,min + 1e-8 (the teacher gate's numbers)
    rate_cluster_tolerance: float = 0.35      # coupled: relative spread of one rate cluster
    rate_match_tolerance: float = 1e-9        # coupled: a rate shared by two fields
    rate_multiple_tolerance: float = 1e-8     # coupled: k * shared rate
    rate_multiples: tuple[int, ...] = (1, 2, 3, 4)
    rate_minimum: float = 1e-10               # coupled: an exp rate smaller than this is no rate
    recovered_rel_l2: float = 1e-10           # bench and studies: relative L2 at most this counts as recovered
    # Stage C: cleaning with a refit (desyr.symbolic.degenerate, desyr.stages.select.reduce_degenerate)
    degenerate_argument_tolerance: float = 1e-3
    """A function argument whose variable part stays within this of 0 on the domain points is a
    rate near 0: ``exp(c*x)``, ``cos(c*x)`` -> 1, ``sin(c*x)`` -> ``c*x``, ``exp(a + c*x)`` -> ``exp(a)``."""
    like_term_tolerance: float = 1e-6
    """Two terms ``c1*g1 + c2*g2`` of one sum whose shapes (same tree up to their floats) differ by at
    most this times their size on the domain points merge into ``(c1 + c2)*g1``."""
    near_integer_tolerance: float = 1e-6
    """A float within this (relative, at least absolute) of a nonzero integer is proposed as that integer."""
    cleaning_rounds: int = 3
    """Rounds of reduction: each finds the near-degenerate parts of the current tree and keeps the first
    reduced, refit tree that passes the acceptance check; stops at a round that keeps none."""
    cleaning_refits: int = 8
    """Refits of reduced trees per candidate, over all rounds."""
    cleaning_refit_seconds: float = 10.0
    """Cap on the refiner's ``timeout`` option (where it has one) for each of those refits."""


#: the method's constants (thresholds, weights, budgets), one frozen instance every part reads
METHOD = MethodConstants()
