"""IoP 4's `iop.runtime` package: the Director functions, the local and remote directors, their protocol."""
