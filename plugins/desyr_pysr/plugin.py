from desyr import hookimpl


@hookimpl
def desyr_register_searchers():
    return []
