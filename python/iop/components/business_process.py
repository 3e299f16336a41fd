"""`iop.components.business_process` (IoP 4 layout)."""
from .._components import BusinessProcess as _BusinessProcess  # noqa: F401
