"""IoP 4's `iop.components` package: the component base classes and declared settings."""
from .._components import (
    BusinessOperation,
    BusinessProcess,
    BusinessService,
    InboundAdapter,
    OutboundAdapter,
    PollingBusinessService,
)
from .settings import Category, Setting, TargetSetting, controls, setting, target

__all__ = [
    'BusinessOperation', 'BusinessProcess', 'BusinessService', 'DuplexOperation', 'DuplexProcess', 'DuplexService',
    'InboundAdapter', 'OutboundAdapter', 'PollingBusinessService', 'Category', 'Setting', 'TargetSetting', 'controls',
    'setting', 'target',
]


def __getattr__(name):
    if name in ('DuplexOperation', 'DuplexProcess', 'DuplexService'):
        from .. import _duplex

        return getattr(_duplex, name)
    raise AttributeError(f'module {__name__!r} has no attribute {name!r}')
