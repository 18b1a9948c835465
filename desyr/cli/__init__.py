"""The ``desyr`` command line: ``run``, ``refine``, ``bench``, ``verify``, ``exact``, ``export`` and friends."""
