from desyr.plugin import Refiner, hookimpl


@hookimpl
def desyr_register_refiners() -> list[type[Refiner]]:
    from desyr_scipy.refiner import ScipyRefiner

    return [ScipyRefiner]
