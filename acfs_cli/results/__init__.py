"""The results layer: the one schema of a result row, the store that writes cells and the
consolidated table, and the reading of an experiment folder for anyone who needs it (the
report, the reference optima, the command line). It imports only the core."""
