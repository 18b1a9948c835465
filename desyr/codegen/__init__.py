"""Expressions as code: the exported solution in NumPy, PyTorch, JAX, C, Fortran, Julia and LaTeX, and as a
callable (``docs/exact.md``, *Export*). Works on expressions and variable names alone, below the data model."""
