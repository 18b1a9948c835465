"""desyr-oot-example: an out-of-tree DeSyR plugin (teacher, searcher, refiner, gate, problem)."""

__version__ = "1.0"
