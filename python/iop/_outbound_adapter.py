"""IoP 3.6's module name `iop._outbound_adapter`, kept for code that imports it (IoP 4 moved it)."""
from ._components import OutboundAdapter as _OutboundAdapter  # noqa: F401
