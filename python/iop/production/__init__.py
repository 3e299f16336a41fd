"""IoP 4's `iop.production` package: productions as code."""
from ..components.settings import TargetSetting, target
from ._declarations import ComponentItem, OperationItem, ProcessItem, Route, ServiceItem
from ._diff import ProductionDiff, ProductionDiffEntry
from ._graph import GraphEdge, GraphNode, ProductionGraph
from ._model import Production
from ._plan import ProductionChangePlan, ProductionPlanOperation
from ._plan_apply import ProductionApplyResult
from ._plan_verify import ProductionVerifyResult
from ._refs import ComponentRef, PersistentMessageRegistration, TargetSettingRef
from ._validation import ProductionValidationError, ProductionValidationIssue, ProductionValidationReport, ProductionValidationWarning


def resolve_target(production, target_or_ref):
    return production.resolve_target(target_or_ref)


__all__ = [
    'ComponentItem', 'ComponentRef', 'GraphEdge', 'GraphNode', 'OperationItem', 'PersistentMessageRegistration', 'ProcessItem',
    'Production', 'ProductionApplyResult', 'ProductionChangePlan', 'ProductionDiff', 'ProductionDiffEntry', 'ProductionGraph',
    'ProductionPlanOperation', 'ProductionValidationError', 'ProductionValidationIssue', 'ProductionValidationReport',
    'ProductionValidationWarning', 'ProductionVerifyResult', 'Route', 'ServiceItem', 'TargetSetting', 'TargetSettingRef',
    'resolve_target', 'target',
]
