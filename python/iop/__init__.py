"""Conveyor's drop-in for IoP's `iop` package: what user components, messages and productions import.

Both API lines work side by side: IoP 3.6's names (and `grongier.pex`) and IoP 4.1.1's (`iop.__all__`
below, plus the `iop.components` / `iop.messages` / `iop.production` / `iop.runtime` /
`iop.migration` packages).
"""
from ._components import (
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
from ._business_host import apply_transform as transform
from ._business_host import import_schema
from ._dispatch import handler
from . import _message
from ._message import Message, PickleMessage
from .components.settings import Category, Setting, controls, setting
from .messages.persistent import Field, Model, PersistentMessage
from .migration.utils import (
    _Utils,
    bind_component,
    list_bindings,
    register_component,
    unbind_component,
    unregister_component,
)
from .production import (
    ComponentItem,
    ComponentRef,
    OperationItem,
    ProcessItem,
    Production,
    ProductionApplyResult,
    ProductionChangePlan,
    ProductionDiff,
    ProductionDiffEntry,
    ProductionGraph,
    ProductionPlanOperation,
    ProductionValidationError,
    ProductionValidationIssue,
    ProductionValidationReport,
    ProductionValidationWarning,
    ProductionVerifyResult,
    Route,
    ServiceItem,
    TargetSetting,
    TargetSettingRef,
    target,
)
from .runtime.director import _Director
from .runtime.protocol import DirectorProtocol


class Director(_Director):
    """IoP's Director: `get_business_service` (in a worker) and the deprecated static facade."""


class Utils(_Utils):
    """IoP's deprecated Utils facade: use iop.migration.utils functions."""


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
    # PydanticMessage and PydanticPickleMessage are made on first use (see _message).
    return getattr(_message, name)
