"""IoP 3.6's module name `iop._business_operation`, kept for code that imports it (IoP 4 moved it)."""
from ._components import BusinessOperation as _BusinessOperation  # noqa: F401
