"""Registers the built-in executors (dask is imported only when the ``dask`` executor is used)."""
from desyr.plugin import hookimpl


@hookimpl
def desyr_register_executors():
    from desyr_executors.cluster import DaskExecutor
    from desyr_executors.local import ProcessExecutor, SerialExecutor

    return [SerialExecutor, ProcessExecutor, DaskExecutor]
