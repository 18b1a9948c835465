"""Coupled multi-field problems: shared rates (rates), augmentation (augment), group selection (groups)."""
