"""``desyr bench``: configurations over seeds in isolated child processes, and the paper-style table."""
