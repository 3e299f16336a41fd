"""IoP 3.6's module name `iop._business_process`, kept for code that imports it (IoP 4 moved it)."""
from ._components import BusinessProcess as _BusinessProcess  # noqa: F401
