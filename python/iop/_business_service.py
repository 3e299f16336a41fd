"""IoP 3.6's module name `iop._business_service`, kept for code that imports it (IoP 4 moved it)."""
from ._components import BusinessService as _BusinessService  # noqa: F401
