"""`iop.messages.dispatch`: which method handles a request (IoP 4 layout)."""
from .._dispatch import build_table, dispatch_table, find_handler, handler, request_keys  # noqa: F401
