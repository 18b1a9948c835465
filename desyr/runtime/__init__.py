"""Where work runs: executors, the run store, atomic files, progress lines and child processes."""
