"""Change plans: the operations that turn the stored production into the desired one, from their
diff, each classified safe / destructive / unsupported, and the fingerprints that tie a plan to the
production it was made from. Applying, verifying and rolling back: _plan_apply.py, _plan_verify.py,
_plan_backup.py.
"""
import dataclasses
import datetime
import hashlib
import json
from pathlib import Path

from ._plan_paths import connection_source, item_field, item_name, setting_path

SAFE, DESTRUCTIVE, UNSUPPORTED = 'safe', 'destructive', 'unsupported'
_SAFE_ITEM_FIELDS = ('category', 'pool_size', 'enabled', 'foreground', 'comment', 'log_trace_events', 'schedule')


def _canonical(value):
    return json.dumps(value, sort_keys=True, separators=(',', ':'), default=str, ensure_ascii=False)


def fingerprint(production):
    return hashlib.sha256(_canonical(production.to_dict()).encode('utf-8')).hexdigest()


@dataclasses.dataclass(frozen=True)
class ProductionPlanOperation:
    id: str
    op_type: str
    action: str
    kind: str
    path: str
    before: object = None
    after: object = None
    risk: str = SAFE
    reason: str = ''
    detail: str = ''

    @property
    def supported(self):
        return self.risk != UNSUPPORTED

    @property
    def allowed_by_default(self):
        return self.risk == SAFE

    @property
    def requires_allow_destructive(self):
        return self.risk == DESTRUCTIVE

    def can_apply(self, *, allow_destructive=False):
        return self.supported and (self.allowed_by_default or (allow_destructive and self.requires_allow_destructive))

    def target_data(self):
        if self.op_type in ('add_item', 'delete_item'):
            return {'item': item_name(self.path)}
        if self.op_type in ('set_item_field', 'replace_item_class'):
            return {'item': item_name(self.path), 'field': item_field(self.path)}
        if self.op_type in ('set_setting', 'remove_setting'):
            parsed = setting_path(self.path)
            return {} if parsed is None else {'item': parsed[0], 'target': parsed[1], 'setting': parsed[2]}
        if self.op_type in ('set_route_setting', 'remove_route'):
            item, setting = connection_source(self.path)
            return {'source_item': item, 'source_target_setting': setting, 'item': item, 'target': 'Host', 'setting': setting}
        if self.op_type == 'set_production_field':
            return {'field': self.path[len('production.'):]}
        return {}

    def to_dict(self):
        data = {'id': self.id, 'op_type': self.op_type, 'action': self.action, 'kind': self.kind, 'path': self.path,
                'risk': self.risk, 'allowed_by_default': self.allowed_by_default}
        for key in ('before', 'after'):
            if getattr(self, key) is not None:
                data[key] = getattr(self, key)
        if self.reason:
            data['reason'] = self.reason
        if self.detail:
            data['detail'] = self.detail
        data.update(self.target_data())
        return data

    @classmethod
    def from_dict(cls, data):
        return cls(str(data['id']), str(data['op_type']), str(data.get('action', '')), str(data.get('kind', '')), str(data.get('path', '')),
                   data.get('before'), data.get('after'), str(data.get('risk', SAFE)), str(data.get('reason', '')), str(data.get('detail', '')))

    def to_text(self):
        reason = f': {self.reason}' if self.reason else ''
        return f'{self.id} {self.op_type} {self.path} [{self.risk}]{reason}'


@dataclasses.dataclass(frozen=True)
class ProductionChangePlan:
    id: str
    production_name: str
    namespace: str = ''
    created_at: str = ''
    source_fingerprint: str = ''
    desired_fingerprint: str = ''
    operations: tuple = ()
    warnings: tuple = ()
    metadata: dict = dataclasses.field(default_factory=dict)

    @property
    def has_changes(self):
        return bool(self.operations)

    @property
    def safe_operations(self):
        return tuple(op for op in self.operations if op.allowed_by_default)

    @property
    def blocked_operations(self):
        return tuple(op for op in self.operations if not op.allowed_by_default)

    def operations_for_apply(self, allow_destructive=False):
        return tuple(op for op in self.operations if op.can_apply(allow_destructive=allow_destructive))

    def to_dict(self):
        data = {
            'id': self.id, 'production': self.production_name, 'namespace': self.namespace, 'created_at': self.created_at,
            'source_fingerprint': self.source_fingerprint, 'desired_fingerprint': self.desired_fingerprint,
            'has_changes': self.has_changes, 'operations': [op.to_dict() for op in self.operations],
        }
        if self.warnings:
            data['warnings'] = list(self.warnings)
        if self.metadata:
            data['metadata'] = dict(self.metadata)
        return data

    @classmethod
    def from_dict(cls, data):
        return cls(str(data['id']), str(data.get('production', '')), str(data.get('namespace', '') or ''), str(data.get('created_at', '')),
                   str(data.get('source_fingerprint', '')), str(data.get('desired_fingerprint', '')),
                   tuple(ProductionPlanOperation.from_dict(op) for op in data.get('operations', [])),
                   tuple(data.get('warnings', []) or ()), dict(data.get('metadata', {}) or {}))

    def to_text(self):
        lines = [f'Production change plan: {self.production_name}', f'  id: {self.id}']
        if self.namespace:
            lines.append(f'  namespace: {self.namespace}')
        if self.operations:
            lines.append('  operations:')
            lines.extend(f'    {op.to_text()}' for op in self.operations)
        else:
            lines.append('  no changes')
        if self.warnings:
            lines.append('  warnings:')
            lines.extend(f'    {warning}' for warning in self.warnings)
        return '\n'.join(lines)

    def __str__(self):
        return self.to_text()

    def save(self, path):
        Path(path).write_text(json.dumps(self.to_dict(), indent=2, sort_keys=True) + '\n', encoding='utf-8')

    @classmethod
    def load(cls, path):
        return cls.from_dict(json.loads(Path(path).read_text(encoding='utf-8')))


def _classify(change):
    if change.kind == 'item':
        if change.action == 'add':
            return 'add_item', SAFE, ''
        if change.action == 'remove':
            return 'delete_item', DESTRUCTIVE, 'item deletion is destructive'
        field = item_field(change.path)
        if field == 'class_name':
            return 'replace_item_class', DESTRUCTIVE, 'class replacement can change runtime behavior'
        if field in _SAFE_ITEM_FIELDS:
            return 'set_item_field', SAFE, ''
        return 'set_item_field', UNSUPPORTED, 'unsupported item field'
    if change.kind == 'setting':
        if change.action == 'remove':
            return 'remove_setting', DESTRUCTIVE, 'setting removal is destructive'
        return 'set_setting', SAFE, ''
    if change.kind == 'connection':
        item, setting = connection_source(change.path)
        if not item or not setting:
            return 'set_route_setting', UNSUPPORTED, 'runtime-only route has no source setting to mutate'
        if change.action == 'remove':
            return 'remove_route', DESTRUCTIVE, 'route removal is destructive'
        return 'set_route_setting', SAFE, ''
    if change.kind == 'production':
        return 'set_production_field', SAFE, ''
    return 'unsupported', UNSUPPORTED, 'unsupported diff entry'


def build_plan(desired, current):
    diff = desired.diff(current)
    operations = []
    for index, change in enumerate(diff.changes, start=1):
        op_type, risk, reason = _classify(change)
        operations.append(ProductionPlanOperation(f'{index:04d}-{op_type}', op_type, change.action, change.kind, change.path,
                                                  change.before, change.after, risk, reason, change.detail))
    operations = tuple(operations)
    source, target = fingerprint(current), fingerprint(desired)
    plan_id = hashlib.sha256(_canonical({'production': desired.name, 'source': source, 'desired': target,
                                         'operations': [op.to_dict() for op in operations]}).encode('utf-8')).hexdigest()
    return ProductionChangePlan(
        plan_id, desired.name, str(desired.namespace or current.namespace or ''), datetime.datetime.now(datetime.timezone.utc).isoformat(),
        source, target, operations, diff.warnings, {'generator': 'iop.production.plan.v1', 'default_policy': 'safe-only'},
    )
