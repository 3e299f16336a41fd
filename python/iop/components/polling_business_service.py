"""`iop.components.polling_business_service` (IoP 4 layout)."""
from .._components import PollingBusinessService  # noqa: F401
