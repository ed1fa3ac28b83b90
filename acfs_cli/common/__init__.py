"""What every layer may import, the report as well as the core: how values are named and
printed (:mod:`~acfs_cli.common.naming`), named random streams
(:mod:`~acfs_cli.common.seeding`) and the text of a problem's code fingerprint
(:mod:`~acfs_cli.common.codes`). It imports the standard library and numpy only."""
