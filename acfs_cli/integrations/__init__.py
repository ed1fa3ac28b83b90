"""Other libraries inside acfs, behind optional extras.

``simopt`` - loading SimOpt (simoptlib, ``pip install 'acfs[simopt]'``) and which of its
problems acfs takes; its problems live in :mod:`acfs_cli.problems.simopt`, its solvers in
:mod:`acfs_cli.methods.simopt`.
"""
