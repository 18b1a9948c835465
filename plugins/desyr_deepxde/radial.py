"""A network of the squared distance from a centre: the teacher's first rung where the problem is unchanged
by rotations about a point of its plane (:func:`desyr.plugin.rotation`).

Such a network is radial by construction, so it cannot learn a solution that is not: on a square with
the data of a radial solution, Liouville's equation also has a smaller solution that a full network
learns (issue 47), and a radial network leaves it out.  It also has one input fewer, so it trains
faster and further on the same budget (the planar heat kernel: three inputs become two).  Its S_val is
measured as any network's, in the problem's own variables; where it does not fall to the level the
searches need, the full ladder follows and the smaller S_val is kept.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import torch

from desyr.plugin import Problem, Rotation, rotation

#: the radial rung ends the ladder when its S_val is at or below this many times ``stop_below``
ENOUGH = 10.0
#: the ladder's name for the radial network (a fully connected one on the reduced inputs)
RADIAL = "radial"


def problem_rotation(problem: Problem, setting: str) -> Rotation | None:
    """The rotation a radial network uses, or None (``symmetry = "none"``, or none found)."""
    return rotation(problem) if setting == "auto" else None


def radial_transform(rot: Rotation, names: Sequence[str], bounds: Sequence[tuple[float, float]], scaled: bool
                     ) -> Callable[[torch.Tensor], torch.Tensor]:
    """The map from the network's inputs (in ``names``' order) to the squared distance from the centre,
    mapped onto [-1, 1] over the domain's reach, followed by the other inputs (scaled as a full
    network's are).  Derivatives are taken through it, so residuals stay in the problem's variables."""
    i, j = names.index(rot.x), names.index(rot.y)
    rest = [k for k in range(len(names)) if k not in (i, j)]
    low, high = squared_reach(bounds[i], bounds[j], rot.centre)
    dtype = torch.get_default_dtype()
    lo = torch.tensor([bounds[k][0] for k in rest], dtype=dtype)
    hi = torch.tensor([bounds[k][1] for k in rest], dtype=dtype)
    x0, y0 = rot.centre

    def transform(x: torch.Tensor) -> torch.Tensor:
        s = (x[:, i:i + 1] - x0) ** 2 + (x[:, j:j + 1] - y0) ** 2
        others = x[:, rest]
        if scaled:
            others = 2 * (others - lo.to(x.device)) / (hi.to(x.device) - lo.to(x.device)) - 1
        return torch.cat([2 * (s - low) / (high - low) - 1, others], dim=1)

    return transform


def squared_reach(xs: tuple[float, float], ys: tuple[float, float], centre: tuple[float, float]
                  ) -> tuple[float, float]:
    """The least and the greatest squared distance from ``centre`` over the box ``xs`` × ``ys``."""
    x0, y0 = centre
    near = (np.clip(x0, *xs) - x0) ** 2 + (np.clip(y0, *ys) - y0) ** 2
    far = max((a - x0) ** 2 + (b - y0) ** 2 for a in xs for b in ys)
    return float(near), float(max(far, near + 1e-12))
