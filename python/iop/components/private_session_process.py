"""`iop.components.private_session_process` (IoP 4 layout)."""
from .._duplex import DuplexProcess as _PrivateSessionProcess  # noqa: F401
