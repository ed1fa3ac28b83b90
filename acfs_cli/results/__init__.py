"""The results layer: the one schema of a result row (``schema``), files written atomically
and the run lock (``files``), the row as parquet with a CRC of its data (``parquet``), the
manifest of a folder's current configuration (``manifest``), the store that writes cells and
the consolidated table (``store``), and the reading of an experiment folder for anyone who
needs it (``read``: the report, the reference optima, the command line). It imports only the
core."""
