"""The unary library of a run: chosen from the problem (:mod:`.choice`) and grown on the evidence in the
teacher's values (:mod:`.evidence`) when the config lists none (``docs/escalation.md``)."""
