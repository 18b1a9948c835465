"""Registers the ``samples`` and ``callable`` teachers (no torch, no deepxde)."""
from desyr.plugin import hookimpl
from desyr_light_teachers.teachers import CallableTeacher, SamplesTeacher


@hookimpl
def desyr_register_teachers():
    return [SamplesTeacher, CallableTeacher]
