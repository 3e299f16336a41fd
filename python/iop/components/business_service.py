"""`iop.components.business_service` (IoP 4 layout)."""
from .._components import BusinessService as _BusinessService  # noqa: F401
