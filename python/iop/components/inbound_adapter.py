"""`iop.components.inbound_adapter` (IoP 4 layout)."""
from .._components import InboundAdapter as _InboundAdapter  # noqa: F401
