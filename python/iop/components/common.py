"""`iop.components.common` (IoP 4 layout)."""
from .._common import _Common  # noqa: F401
