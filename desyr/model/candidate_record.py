"""A pooled candidate as it goes into ``result.json``: every field of the candidate and its refit outcome
(``tests/test_record_fields.py`` fails when one never reaches the record)."""
from __future__ import annotations

from desyr.model.candidates import Candidate, topology
from desyr.model.result import CandidateRecord
from desyr.symbolic.expressions import expression_text


def candidate_record(c: Candidate, removed: tuple[str, str] | None = None) -> CandidateRecord:
    """A pooled candidate as it goes into ``result.json``; ``removed``: Stage C's verdict on it (the gate
    that removed it and why), kept beside the candidate in :class:`desyr.model.outcomes.Selection`."""
    refit = c.refit
    removed_by, removed_reason = removed or (None, None)
    return CandidateRecord(
        id=c.id, searcher=c.searcher, search_seed=c.search_seed,
        topology={f: str(expression_text(topology(e))) for f, e in c.search_expressions.items()},
        pre_refit_expression={f: str(expression_text(e)) for f, e in c.search_expressions.items()},
        expression={f: str(expression_text(e)) for f, e in (c.expressions or {}).items()} or None,
        search_complexity=c.search_complexity, search_loss=c.search_loss,
        complexity=c.complexity if c.expressions else None,
        status=refit.status if refit else "pending", converged=c.converged,
        reason=refit.reason if refit else None, nfev=refit.nfev if refit else 0,
        objective=refit.objective if refit else None,
        params_initial=list(refit.initial) if refit else [], params_refined=list(refit.params) if refit else [],
        refit_seconds=round(refit.seconds, 6) if refit else None, refit_starts=refit.starts if refit else 0,
        shared_rates=list(refit.shared_rates) if refit else [],
        cleaned=c.cleaned, cleaning=c.cleaning_note, eps_T=c.eps_T, phi=c.phi,
        rho_r=c.rho_r, rho_c=c.rho_c, removed_by=removed_by, removed_reason=removed_reason,
        eps_T_fields=dict(c.eps_T_fields) if c.eps_T_fields is not None else None,
        refit_expression={f: str(expression_text(e)) for f, e in refit.expressions.items()} or None if refit else None,
        screening=c.extra.get("screening"), unknowns=c.unknowns_note)
