"""IoP 4's `iop.components` package: the component base classes and declared settings."""
from .._components import (
    BusinessOperation,
    BusinessProcess,
    BusinessService,
    DuplexOperation,
    DuplexProcess,
    DuplexService,
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
