"""`iop.messages.decorators`: `@handler` (IoP 4 layout)."""
from .._dispatch import handler  # noqa: F401
