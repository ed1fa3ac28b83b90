"""``python -m acfs_cli``: the same command line as ``acfs``."""

from acfs_cli.cli import app

if __name__ == "__main__":
    app(prog_name="acfs")
