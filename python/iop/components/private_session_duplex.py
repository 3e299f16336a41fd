"""`iop.components.private_session_duplex` (IoP 4 layout)."""
from .._duplex import _DuplexHost as _PrivateSessionDuplex  # noqa: F401
