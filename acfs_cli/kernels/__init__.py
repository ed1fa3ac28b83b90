"""Shared algorithm pieces: designs, normals, batch estimates, finite-difference stencils on
common samples, the L-BFGS-B polish, pattern search, the CEM loop and DE on a surrogate.
Each exists once; the methods compose them."""
