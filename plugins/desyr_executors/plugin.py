"""Registers the built-in executors (dask is imported only when the ``dask`` executor is used)."""
from desyr.plugin import Executor, hookimpl


@hookimpl
def desyr_register_executors() -> list[type[Executor]]:
    from desyr_executors.cluster import DaskExecutor
    from desyr_executors.local import ProcessExecutor, SerialExecutor

    return [SerialExecutor, ProcessExecutor, DaskExecutor]
