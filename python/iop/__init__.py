"""Conveyor's drop-in for IoP's `iop` package: what user components, messages and productions import.

Both API lines work side by side: IoP 3.6's names (and `grongier.pex`) and IoP 4.1.1's (`iop.__all__`
below, plus the `iop.components` / `iop.messages` / `iop.production` / `iop.runtime` /
`iop.migration` packages).
"""
from ._components import (
    BusinessOperation,
    BusinessProcess,
    BusinessService,
    InboundAdapter,
    OutboundAdapter,
    PollingBusinessService,
)
from ._business_host import apply_transform as transform
from ._business_host import import_schema
from ._dispatch import handler
from . import _message
from ._message import Message, PickleMessage
from .components.settings import Category, Setting, TargetSetting, controls, setting, target

# Loaded on first use: a worker imports `iop` at every start and most components need none of these
# (the Production DSL, the directors' HTTP client, the migration helpers, duplex and persistent messages).
_LAZY = {
    'ComponentItem': 'production', 'ComponentRef': 'production', 'OperationItem': 'production', 'ProcessItem': 'production',
    'Production': 'production', 'ProductionApplyResult': 'production', 'ProductionChangePlan': 'production',
    'ProductionDiff': 'production', 'ProductionDiffEntry': 'production', 'ProductionGraph': 'production',
    'ProductionPlanOperation': 'production', 'ProductionValidationError': 'production',
    'ProductionValidationIssue': 'production', 'ProductionValidationReport': 'production',
    'ProductionValidationWarning': 'production', 'ProductionVerifyResult': 'production', 'Route': 'production',
    'ServiceItem': 'production', 'TargetSettingRef': 'production',
    'bind_component': 'migration.utils', 'list_bindings': 'migration.utils', 'register_component': 'migration.utils',
    'unbind_component': 'migration.utils', 'unregister_component': 'migration.utils',
    'DirectorProtocol': 'runtime.protocol',
    'DuplexOperation': '_duplex', 'DuplexProcess': '_duplex', 'DuplexService': '_duplex',
    'Field': 'messages.persistent', 'Model': 'messages.persistent', 'PersistentMessage': 'messages.persistent',
}


def _facades():
    from .migration.utils import _Utils
    from .runtime.director import _Director

    class Director(_Director):
        """IoP's Director: `get_business_service` (in a worker) and the deprecated static facade."""

    class Utils(_Utils):
        """IoP's deprecated Utils facade: use iop.migration.utils functions."""

    for cls in (Director, Utils):
        cls.__module__ = __name__
    return {'Director': Director, 'Utils': Utils}


__all__ = [
    'BusinessOperation', 'BusinessProcess', 'BusinessService', 'Category', 'ComponentItem', 'ComponentRef', 'Director',
    'DirectorProtocol', 'DuplexOperation', 'DuplexProcess', 'DuplexService', 'Field', 'InboundAdapter', 'Message', 'Model',
    'OperationItem', 'OutboundAdapter', 'PersistentMessage', 'PickleMessage', 'PollingBusinessService', 'ProcessItem',
    'Production', 'ProductionApplyResult', 'ProductionChangePlan', 'ProductionDiff', 'ProductionDiffEntry', 'ProductionGraph',
    'ProductionPlanOperation', 'ProductionVerifyResult', 'ProductionValidationError', 'ProductionValidationIssue',
    'ProductionValidationReport', 'ProductionValidationWarning', 'PydanticMessage', 'PydanticPickleMessage', 'Route',
    'ServiceItem', 'Setting', 'TargetSetting', 'TargetSettingRef', 'Utils', 'bind_component', 'controls', 'handler',
    'list_bindings', 'register_component', 'setting', 'target', 'unbind_component', 'unregister_component',
]


def __getattr__(name):
    import importlib

    if name in _LAZY:
        value = getattr(importlib.import_module(f'{__name__}.{_LAZY[name]}'), name)
    elif name in ('Director', 'Utils'):
        globals().update(_facades())
        value = globals()[name]
    else:
        # PydanticMessage and PydanticPickleMessage are made on first use (see _message).
        return getattr(_message, name)
    globals()[name] = value
    return value
