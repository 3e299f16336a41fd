"""IoP 3.6's module name `iop._inbound_adapter`, kept for code that imports it (IoP 4 moved it)."""
from ._components import InboundAdapter as _InboundAdapter  # noqa: F401
