"""IoP 4's `iop.migration` package: Utils functions, migration of settings files."""
