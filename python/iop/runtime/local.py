"""`iop.runtime.local`: the director of the local Conveyor home (IoP 4 layout)."""
from ._rest import _LocalDirector  # noqa: F401
