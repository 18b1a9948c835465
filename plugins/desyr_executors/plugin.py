"""Registers the built-in executors (dask is imported only when the ``dask`` executor is used) and
their command-line option ``--scheduler``."""
from __future__ import annotations

from typing import TYPE_CHECKING

from desyr.plugin import CommandOption, hookimpl

if TYPE_CHECKING:     # the roles load SymPy: declaring an option must not wait for it
    from desyr.plugin import Executor

#: a scheduler sends pickled code for desyr to run: trusted code, named by whoever runs desyr, never a config
SCHEDULER = CommandOption(
    "--scheduler", "Dask scheduler address for --executor dask (default: Dask's configuration, else an embedded "
    "local cluster)", metavar="ADDRESS", executor_option="scheduler",
    command_line_only=("execution.scheduler", "execution.options.scheduler"),
    instead="set DASK_SCHEDULER_ADDRESS or Dask's scheduler-address configuration")


@hookimpl
def desyr_register_executors() -> list[type[Executor]]:
    from desyr_executors.cluster import DaskExecutor
    from desyr_executors.local import ProcessExecutor, SerialExecutor

    return [SerialExecutor, ProcessExecutor, DaskExecutor]


@hookimpl
def desyr_cli_options() -> list[CommandOption]:
    return [SCHEDULER]
