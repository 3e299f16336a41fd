"""IoP 3.6's module name `iop._private_session_duplex`, kept for code that imports it (IoP 4 moved it)."""
from ._duplex import _DuplexHost as _PrivateSessionDuplex  # noqa: F401
