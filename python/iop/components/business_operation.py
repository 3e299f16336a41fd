"""`iop.components.business_operation` (IoP 4 layout)."""
from .._components import BusinessOperation as _BusinessOperation  # noqa: F401
