"""``python -m acfs_cli``: the same command line as ``acfs``."""

from acfs_cli.cli import main

if __name__ == "__main__":
    main()
