"""What a run writes for people: ``report.md`` and the figures beside it."""
