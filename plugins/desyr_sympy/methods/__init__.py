"""The exact methods of the SymPy searcher, in the order they are tried: :data:`METHODS`.

Each module here defines one :class:`~desyr_sympy.method.ExactMethod`; this list is the only place that
names them.  The searcher's option choices, its help text and the docs' table are built from it, so a new
method is one module plus one entry below (docs/solvers.md, "Writing an exact method").  The order is
cheap and most specific first, so an anytime caller sees the likeliest answer early.
"""
from __future__ import annotations

from desyr_sympy.method import ExactMethod
from desyr_sympy.methods.characteristics import Characteristics
from desyr_sympy.methods.dsolve import Dsolve
from desyr_sympy.methods.dsolve_ics import DsolveIcs
from desyr_sympy.methods.energy import Energy
from desyr_sympy.methods.fronts import Fronts
from desyr_sympy.methods.integrate import Integrate
from desyr_sympy.methods.linear_part import LinearPart
from desyr_sympy.methods.linearise import Linearise
from desyr_sympy.methods.pair import Pair
from desyr_sympy.methods.parabolic import Parabolic
from desyr_sympy.methods.phase import Phase
from desyr_sympy.methods.polar import Polar
from desyr_sympy.methods.radial import Radial
from desyr_sympy.methods.radial_similarity import RadialSimilarity
from desyr_sympy.methods.separable import Separable
from desyr_sympy.methods.separation import Separation
from desyr_sympy.methods.series import Series
from desyr_sympy.methods.similarity import Similarity
from desyr_sympy.methods.travelling import Travelling
from desyr_sympy.methods.undetermined import Undetermined
from desyr_sympy.methods.vanishing import Vanishing
from desyr_sympy.methods.waves import Waves

METHODS: tuple[ExactMethod, ...] = (
    Integrate(),
    DsolveIcs(),
    Dsolve(),
    Characteristics(),
    Separable(),
    Polar(),
    Travelling(),
    Energy(),
    Waves(),
    Fronts(),
    Phase(),
    Similarity(),
    RadialSimilarity(),
    Parabolic(),
    LinearPart(),
    Vanishing(),
    Undetermined(),
    Linearise(),
    Pair(),
    Separation(),
    Radial(),
    Series(),
)

__all__ = ["METHODS", "ExactMethod"]
