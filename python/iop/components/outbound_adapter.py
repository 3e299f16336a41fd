"""`iop.components.outbound_adapter` (IoP 4 layout)."""
from .._components import OutboundAdapter as _OutboundAdapter  # noqa: F401
