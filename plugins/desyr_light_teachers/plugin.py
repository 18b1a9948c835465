"""Registers the ``samples`` and ``callable`` teachers (no torch, no deepxde)."""
from desyr.plugin import Teacher, hookimpl
from desyr_light_teachers.teachers import CallableTeacher, SamplesTeacher


@hookimpl
def desyr_register_teachers() -> list[type[Teacher]]:
    return [SamplesTeacher, CallableTeacher]
