"""Built-in executors: ``serial``, ``processes`` (the default) and ``dask``."""
