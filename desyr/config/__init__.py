"""Reading a problem config: bounded text reading, the declared sections and loading into a ``Problem``."""
