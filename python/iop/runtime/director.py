"""`iop.runtime.director`: IoP 4's Director functions, run against Conveyor.

IoP's functions drive the embedded IRIS; here they drive the Conveyor server of the local home
(CONVEYOR_HOME, else ~/.conveyor, over its unix socket) — or the remote server IOP_URL /
IOP_SETTINGS name, as IoP's CLI does. `create_business_service` and `get_business_service` reach
a service hosted by the calling worker (see iop._director).
"""
import functools
import warnings

from .._director import Director as _WorkerDirector
from ._rest import _LocalDirector, _RemoteDirector, format_log_entry


def default_director(namespace=None):
    from .remote import get_remote_settings

    settings = get_remote_settings()
    if settings:
        if namespace:
            settings = dict(settings, namespace=namespace)
        return _RemoteDirector(settings)
    return _LocalDirector(namespace=namespace)


def create_business_service(target):
    return _WorkerDirector().get_business_service(target)


def create_python_business_service(target):
    return _WorkerDirector().get_business_service(target)


def start_production(production_name=None):
    return default_director().start_production(production_name)


def start_production_with_log(production_name=None):
    return default_director().start_production_with_log(production_name)


def stop_production():
    return default_director().stop_production()


def restart_production():
    return default_director().restart_production()


def shutdown_production():
    return default_director().shutdown_production()


def update_production():
    return default_director().update_production()


def start_component(component_name):
    return default_director().start_component(component_name)


def stop_component(component_name):
    return default_director().stop_component(component_name)


def restart_component(component_name):
    return default_director().restart_component(component_name)


def list_productions():
    return default_director().list_productions()


def status_production():
    return default_director().status_production()


def set_default_production(production_name=''):
    return default_director().set_default_production(production_name)


def get_default_production():
    return default_director().get_default_production()


def format_log(row):
    """One log entry (a REST entry dict, or IoP's row list) as a line."""
    if isinstance(row, dict):
        return format_log_entry(row)
    return ' '.join(str(value) for value in row)


def read_top_log(top):
    return default_director().read_top_log(top)


def read_log():
    return default_director().read_top_log(1000)


def log_production_top(top=10):
    return default_director().log_production_top(top)


def log_production():
    return default_director().log_production()


def test_component(target, message=None, classname=None, body=None):
    return default_director().test_component(target, message=message, classname=classname, body=body, restart=False)


_FUNCTIONS = (
    'create_business_service', 'create_python_business_service', 'start_production', 'start_production_with_log',
    'stop_production', 'restart_production', 'shutdown_production', 'update_production', 'start_component', 'stop_component',
    'restart_component', 'list_productions', 'status_production', 'set_default_production', 'get_default_production',
    'format_log', 'read_top_log', 'read_log', 'log_production_top', 'log_production', 'test_component',
)


def _deprecated(name):
    function = globals()[name]

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        warnings.warn(
            f'iop.runtime.director._Director.{name}() and iop.Director.{name}() are deprecated; use '
            f'iop.runtime.director.{name}() instead. This facade will be removed in v5.0.',
            DeprecationWarning,
            stacklevel=2,
        )
        return function(*args, **kwargs)

    return staticmethod(wrapper)


class _Director(_WorkerDirector):
    """IoP's deprecated class facade: the module functions as static methods (warning), plus the
    instance method get_business_service (not deprecated)."""


for _name in _FUNCTIONS:
    setattr(_Director, _name, _deprecated(_name))
_Director.CreateBusinessService = _Director.create_business_service  # 3.6 spelling (IoP 4 removed it)
