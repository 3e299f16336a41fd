"""`iop.components.business_host` (IoP 4 layout)."""
from .._business_host import _BusinessHost  # noqa: F401
