from desyr.plugin import hookimpl


@hookimpl
def desyr_register_refiners():
    from desyr_scipy.refiner import ScipyRefiner

    return [ScipyRefiner]
