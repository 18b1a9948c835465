"""The mathematics of candidates: parsing, evaluation, residuals, parameterization and simplification."""
