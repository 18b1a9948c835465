from desyr.plugin import Gate, hookimpl


@hookimpl
def desyr_register_gates() -> list[type[Gate]]:
    from desyr_gates.gates import PAPER_GATES

    return list(PAPER_GATES)
