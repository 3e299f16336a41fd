"""`iop.runtime.environment`: which director a Production uses when none is given."""
from .director import default_director  # noqa: F401
