"""The method's stages, one module each, in order: teach, search (with pool), refit, select, verify."""
