from desyr.plugin import hookimpl


@hookimpl
def desyr_register_gates():
    from desyr_gates.gates import PAPER_GATES

    return list(PAPER_GATES)
