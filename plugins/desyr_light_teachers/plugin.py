"""Registers the ``samples`` and ``callable`` teachers (no torch, no deepxde) and ``--allow-callable``,
the consent the ``callable`` teacher needs before it imports and runs a function a config names."""
from __future__ import annotations

from typing import TYPE_CHECKING

from desyr.plugin import CommandOption, hookimpl

if TYPE_CHECKING:     # the roles load SymPy: declaring an option must not wait for it
    from desyr.plugin import StudyBench, Teacher
from desyr_light_teachers.callables import ALLOW_ENV

ALLOW_CALLABLE = CommandOption(
    "--allow-callable", "allow the 'callable' teacher to import and run the Python function a config names "
    "(configs are data: without this flag no config can make DeSyR run code)", environment=ALLOW_ENV)


@hookimpl
def desyr_register_teachers() -> list[type[Teacher]]:
    from desyr_light_teachers.teachers import CallableTeacher, SamplesTeacher

    return [SamplesTeacher, CallableTeacher]


@hookimpl
def desyr_cli_options() -> list[CommandOption]:
    return [ALLOW_CALLABLE]


@hookimpl
def desyr_study_bench() -> StudyBench:
    """The quick studies' tiny bench: this plugin's stand-in teachers (module ``tinybench``)."""
    from desyr_light_teachers.tinybench import study_bench

    return study_bench()
