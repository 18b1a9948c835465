"""Implements a hook that DeSyR does not define: check_pending() must reject it."""
from desyr import hookimpl


@hookimpl
def desyr_no_such_hook():
    return None
