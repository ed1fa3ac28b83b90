"""The core: the problem protocol and its normalisation, the decision set, the task and the
budgeted oracle (the risk estimator and the named streams are :mod:`acfs_cli.core.risk` and
:mod:`acfs_cli.common.seeding`). Nothing here knows any particular problem or method."""
