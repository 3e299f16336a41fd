"""Change plans: operations from a diff, classified safe / destructive / unsupported; apply with a
backup and a recorded result, verify against the stored production, roll back from a backup.

Conveyor stores a production as one definition, so applying writes the definition that results
from the current one plus the applicable operations (through the server's apply route, which also
records the previous definition), rather than editing IRIS configuration objects one by one.
"""
import copy
import dataclasses
import datetime
import getpass
import hashlib
import json
import socket
from pathlib import Path

from ._common import PRODUCTION_SETTING_FIELDS, normalize_settings
from ._diff import item_signature, production_signature

SAFE, DESTRUCTIVE, UNSUPPORTED = 'safe', 'destructive', 'unsupported'
_SAFE_ITEM_FIELDS = ('category', 'pool_size', 'enabled', 'foreground', 'comment', 'log_trace_events', 'schedule')


def _canonical(value):
    return json.dumps(value, sort_keys=True, separators=(',', ':'), default=str, ensure_ascii=False)


def fingerprint(production):
    return hashlib.sha256(_canonical(production.to_dict()).encode('utf-8')).hexdigest()


def _item_name(path):
    return path.split('.', 2)[1] if path.startswith('items.') else ''


def _item_field(path):
    parts = path.split('.')
    return parts[2] if len(parts) > 2 else ''


def _setting_path(path):
    parts = path.split('.', 4)
    if len(parts) >= 4 and parts[0] == 'items' and parts[2] == 'settings':
        return parts[1], parts[3], parts[4] if len(parts) > 4 else ''
    return None


def _connection_source(path):
    rest = path[len('connections.'):] if path.startswith('connections.') else path
    item, separator, setting = rest.rpartition('.')
    return (item, setting) if separator else (rest, '')


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
            return {'item': _item_name(self.path)}
        if self.op_type in ('set_item_field', 'replace_item_class'):
            return {'item': _item_name(self.path), 'field': _item_field(self.path)}
        if self.op_type in ('set_setting', 'remove_setting'):
            parsed = _setting_path(self.path)
            return {} if parsed is None else {'item': parsed[0], 'target': parsed[1], 'setting': parsed[2]}
        if self.op_type in ('set_route_setting', 'remove_route'):
            item, setting = _connection_source(self.path)
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


@dataclasses.dataclass(frozen=True)
class ProductionApplyResult:
    plan_id: str
    production_name: str
    operations: tuple = ()
    updated_runtime: bool = False
    backup_path: str = ''

    def _count(self, status):
        return sum(1 for op in self.operations if op.get('status') == status)

    @property
    def applied(self):
        return self._count('applied')

    @property
    def skipped(self):
        return self._count('skipped')

    @property
    def failed(self):
        return self._count('failed')

    @property
    def success(self):
        return self.failed == 0

    def to_dict(self):
        data = {'plan_id': self.plan_id, 'production': self.production_name, 'success': self.success, 'applied': self.applied,
                'skipped': self.skipped, 'failed': self.failed, 'updated_runtime': self.updated_runtime, 'operations': list(self.operations)}
        if self.backup_path:
            data['backup_path'] = str(self.backup_path)
        return data

    @classmethod
    def from_dict(cls, data):
        return cls(str(data.get('plan_id', '')), str(data.get('production', '')), tuple(data.get('operations', [])),
                   bool(data.get('updated_runtime', False)), str(data.get('backup_path', '') or ''))

    def to_text(self):
        lines = [f'Production apply result: {self.production_name}', f'  plan: {self.plan_id}',
                 f'  applied: {self.applied}, skipped: {self.skipped}, failed: {self.failed}']
        if self.backup_path:
            lines.append(f'  backup: {self.backup_path}')
        if self.operations:
            lines.append('  operations:')
        for op in self.operations:
            lines.append(f'    {op.get("id", "")} {op.get("op_type", "")}: {op.get("status", "unknown")}')
        return '\n'.join(lines)

    def __str__(self):
        return self.to_text()


@dataclasses.dataclass(frozen=True)
class ProductionVerifyResult:
    plan_id: str
    production_name: str
    converged_operations: tuple = ()
    failed_operations: tuple = ()
    residual_operations: tuple = ()
    warnings: tuple = ()

    @property
    def success(self):
        return not self.failed_operations

    def to_dict(self):
        data = {'plan_id': self.plan_id, 'production': self.production_name, 'success': self.success,
                'converged_operations': list(self.converged_operations), 'failed_operations': list(self.failed_operations),
                'residual_operations': list(self.residual_operations)}
        if self.warnings:
            data['warnings'] = list(self.warnings)
        return data

    def to_text(self):
        lines = [f'Production verify result: {self.production_name}', f'  plan: {self.plan_id}',
                 f'  success: {"true" if self.success else "false"}', f'  converged: {len(self.converged_operations)}',
                 f'  failed: {len(self.failed_operations)}', f'  residual: {len(self.residual_operations)}']
        for label, ops in (('failed', self.failed_operations), ('residual', self.residual_operations)):
            if ops:
                lines.append(f'  {label} operations:')
                lines.extend(f'    {op.get("id")} {op.get("path")}' for op in ops)
        return '\n'.join(lines)

    def __str__(self):
        return self.to_text()


def _classify(change):
    if change.kind == 'item':
        if change.action == 'add':
            return 'add_item', SAFE, ''
        if change.action == 'remove':
            return 'delete_item', DESTRUCTIVE, 'item deletion is destructive'
        field = _item_field(change.path)
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
        item, setting = _connection_source(change.path)
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


def _operation_result(op, status, message=''):
    data = op.to_dict()
    data['status'] = status
    if message:
        data['message'] = message
    return data


def _skip_message(op):
    if op.risk == DESTRUCTIVE:
        return 'requires allow_destructive=True'
    if op.risk == UNSUPPORTED:
        return op.reason or 'unsupported operation'
    return 'operation is not applicable'


def _apply_operation(working, desired, op):
    """Applies one plan operation to `working` (a copy of the current production), values from `desired`,
    or, without one, from the operation itself (its `after`), as IRIS applies a plan it is given."""
    touched = _item_name(op.path) or _connection_source(op.path)[0]
    if op.op_type in ('remove_setting', 'remove_route') and touched not in {item.name for item in working.items}:
        return  # the item itself was deleted by an earlier operation of the plan
    if op.op_type == 'add_item':
        if desired is None:
            after = op.after or {}
            ref = working.component(_item_name(op.path), None, class_name=after.get('class_name') or None, enabled=after.get('enabled', True),
                                    pool_size=after.get('pool_size', 1), category=after.get('category', ''), foreground=after.get('foreground', False),
                                    comment=after.get('comment', ''), log_trace_events=after.get('log_trace_events', False),
                                    schedule=after.get('schedule', ''), settings=dict(after.get('host_settings') or {}),
                                    adapter_settings=dict(after.get('adapter_settings') or {}))
            ref.other_settings = copy.deepcopy(after.get('other_settings') or [])
            return
        source = desired.item(_item_name(op.path))
        ref = working.component(source.name, None, class_name=source.class_name, kind=source.kind, adapter_class_name=source.adapter_class_name,
                                enabled=source.enabled, pool_size=source.pool_size, category=source.category, foreground=source.foreground,
                                comment=source.comment, log_trace_events=source.log_trace_events, schedule=source.schedule,
                                settings=dict(source.host_settings), adapter_settings=dict(source.adapter_settings))
        ref.other_settings = copy.deepcopy(source.other_settings)
    elif op.op_type == 'delete_item':
        working.delete_component(_item_name(op.path))
    elif op.op_type in ('set_item_field', 'replace_item_class'):
        field = _item_field(op.path)
        value = op.after if desired is None else getattr(desired.item(_item_name(op.path)), field)
        setattr(working.item(_item_name(op.path)), field, value)
    elif op.op_type in ('set_setting', 'remove_setting'):
        item, target, setting = _setting_path(op.path)
        ref = working.item(item)
        if target == 'Other':
            ref.other_settings = copy.deepcopy(op.after if desired is None else desired.item(item).other_settings)
        else:
            mapping = ref.host_settings if target == 'Host' else ref.adapter_settings
            if op.op_type == 'remove_setting':
                mapping.pop(setting, None)
            elif desired is None:
                mapping[setting] = op.after
            else:
                source = desired.item(item)
                mapping[setting] = (source.host_settings if target == 'Host' else source.adapter_settings)[setting]
    elif op.op_type in ('set_route_setting', 'remove_route'):
        item, setting = _connection_source(op.path)
        ref = working.item(item)
        if op.op_type == 'remove_route':
            ref.host_settings.pop(setting, None)
        else:
            planned = ','.join(op.after or [])
            ref.host_settings[setting] = planned if desired is None else desired.item(item).host_settings.get(setting, planned)
    elif op.op_type == 'set_production_field':
        field = op.path[len('production.'):]
        setattr(working, field, op.after if desired is None else getattr(desired, field))
    else:
        raise ValueError(f'Unsupported plan operation: {op.op_type}')


def _apply_operations(working, desired, operations):
    """`working` after each operation in turn, as IoP applies a plan: one that fails is reported `failed`
    and leaves `working` as it was; the others still apply. Returns (working, results)."""
    results = []
    for op in operations:
        trial = _working_copy(working)
        try:
            _apply_operation(trial, desired, op)
        except Exception as error:
            results.append(_operation_result(op, 'failed', f'{type(error).__name__}: {error}'))
            continue
        working = trial
        results.append(_operation_result(op, 'applied'))
    return working, results


def apply_plan_to_stored(director, plan, allow_destructive=False):
    """IoP's director call `apply_production_plan(plan, allow_destructive)`: the plan's operations (a
    `ProductionChangePlan` or its dict) applied to the stored production with their own values, each
    reported `applied`, `failed` or `skipped` (a destructive one without `allow_destructive`, an unsupported
    one), then what was applied written in one request. Answers IoP's `{'production', 'operations'}`, with
    `error` when the write failed (nothing written then)."""
    from ._model import stored_or_blank

    plan = plan if isinstance(plan, ProductionChangePlan) else ProductionChangePlan.from_dict(plan)
    if not plan.production_name:
        raise ValueError('Production plan is missing the production name.')
    current, _ = stored_or_blank(plan.production_name, director=director)
    applicable = [op for op in plan.operations if op.can_apply(allow_destructive=allow_destructive)]
    working, results = _apply_operations(_working_copy(current), None, applicable)
    skipped = [_operation_result(op, 'skipped', _skip_message(op)) for op in plan.operations if not op.can_apply(allow_destructive=allow_destructive)]
    answer = {'production': plan.production_name, 'operations': results + skipped}
    if any(result['status'] == 'applied' for result in results):
        try:
            director.apply_production_definition(working.to_dict(), allow_destructive=allow_destructive)
        except Exception as error:
            answer['error'] = str(error)
    return answer


def _working_copy(current):
    from ._model import Production

    return Production.from_dict(copy.deepcopy(current.to_dict()))


def create_backup(backup_dir, plan, current, current_export, connections, queues):
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime('%Y%m%dT%H%M%SZ')
    path = Path(backup_dir) / f'{stamp}-{plan.id[:12]}'
    path.mkdir(parents=True, exist_ok=False)

    def write(name, value):
        (path / name).write_text(json.dumps(value, indent=2, sort_keys=True, default=str) + '\n', encoding='utf-8')

    write('production.json', current_export if current_export is not None else {})
    (path / 'production.xml').write_text(current.to_xml(), encoding='utf-8')
    write('connections.json', connections or {})
    write('queues.json', queues or {})
    plan.save(path / 'plan.json')
    write('metadata.json', {
        'backup_id': path.name, 'created_at': datetime.datetime.now(datetime.timezone.utc).isoformat(), 'user': _user(),
        'host': socket.gethostname(), 'namespace': plan.namespace, 'production': plan.production_name, 'plan_id': plan.id,
        'source_fingerprint': plan.source_fingerprint, 'desired_fingerprint': plan.desired_fingerprint,
    })
    return path


def _user():
    try:
        return getpass.getuser()
    except Exception:
        return ''


def apply_plan(desired, plan, *, allow_destructive=False, backup_dir='.iop/backups', root_path=None, update=True):
    from ._runtime import register_production_classes, resolve_director

    director = resolve_director(desired._director, desired.namespace)
    if getattr(director, 'is_remote', False) is True:
        raise RuntimeError('Remote production plan apply is not supported in v1. Run --apply-plan against the local Conveyor home, '
                           'or migrate the settings file remotely (-m).')
    from ._model import stored_or_blank

    # The server's own fingerprint of what is stored now: the write below is refused if anything changes meanwhile.
    server_fingerprint = director.stored_fingerprint(desired.name) if hasattr(director, 'stored_fingerprint') else None
    current, export = stored_or_blank(desired.name, desired.namespace, director)
    if plan is None:
        plan = build_plan(desired, current)
    applicable = plan.operations_for_apply(allow_destructive)
    skipped = [_operation_result(op, 'skipped', _skip_message(op)) for op in plan.operations if not op.can_apply(allow_destructive=allow_destructive)]
    if not applicable:
        return ProductionApplyResult(plan.id, plan.production_name, tuple(skipped), False, '')
    if fingerprint(current) != plan.source_fingerprint:
        raise RuntimeError('Cannot apply production plan: current IRIS production changed since the plan was created. '
                           'Create a new plan and review it before applying.')
    connections = _try(lambda: director.export_production_connections(desired.name))
    queues = _try(lambda: director.export_production_queue_info(desired.name))
    backup = create_backup(backup_dir, plan, current, export, connections, queues)
    register_production_classes(desired, director, root_path=root_path)
    # As IoP applies a plan: operation by operation, a failing one reported `failed` and the others kept;
    # what was applied is then written as one definition (all or nothing on the server, across kill -9).
    working, results = _apply_operations(_working_copy(current), desired, applicable)
    if not any(result['status'] == 'applied' for result in results):
        return ProductionApplyResult(plan.id, plan.production_name, tuple(results + skipped), False, str(backup))
    options = {'source_fingerprint': server_fingerprint} if server_fingerprint else {}
    try:
        answer = director.apply_production_definition(working.to_dict(), allow_destructive=allow_destructive, update=update, **options)
    except Exception as error:
        # IoP raises when the production cannot be saved; nothing of the plan was written.
        raise RuntimeError(f'Cannot apply production plan {plan.id}: {error}') from error
    return ProductionApplyResult(plan.id, plan.production_name, tuple(results + skipped), bool((answer or {}).get('updated_runtime', False)), str(backup))


def _try(call):
    try:
        return call()
    except Exception:
        return None


def _converged(op, current):
    items = {item.name: item for item in current.items}
    if op.op_type == 'add_item':
        ref = items.get(_item_name(op.path))
        return ref is not None and item_signature(ref) == op.after
    if op.op_type == 'delete_item':
        return _item_name(op.path) not in items
    if op.op_type in ('set_item_field', 'replace_item_class'):
        ref = items.get(_item_name(op.path))
        return ref is not None and item_signature(ref).get(_item_field(op.path)) == op.after
    if op.op_type == 'set_production_field':
        return production_signature(current).get(op.path[len('production.'):]) == op.after
    if op.op_type in ('set_setting', 'remove_setting'):
        parsed = _setting_path(op.path)
        if parsed is None:
            return False
        item, target, setting = parsed
        ref = items.get(item)
        if ref is None:
            return op.op_type == 'remove_setting'
        if target == 'Other':
            return item_signature(ref)['other_settings'] == op.after
        mapping = normalize_settings(ref.host_settings if target == 'Host' else ref.adapter_settings)
        if op.op_type == 'remove_setting':
            return setting not in mapping
        return str(mapping.get(setting, '')) == str(op.after if op.after is not None else '')
    if op.op_type in ('set_route_setting', 'remove_route'):
        from ._diff import _connections

        routes = _connections(current, False)
        source = _connection_source(op.path)
        if op.op_type == 'remove_route':
            return source not in routes
        return routes.get(source, []) == op.after
    return False


def verify_against(plan, current):
    converged, failed, residual = [], [], []
    for op in plan.operations:
        if not op.allowed_by_default:
            residual.append(op.to_dict())
        elif _converged(op, current):
            converged.append(op.id)
        else:
            failed.append(op.to_dict())
    return ProductionVerifyResult(plan.id, plan.production_name, tuple(converged), tuple(failed), tuple(residual), tuple(current.graph().warnings))


def verify_plan(production, plan):

    from ._model import stored_or_blank

    name = plan.production_name or production.name
    return verify_against(plan, stored_or_blank(name, production.namespace, production._director)[0])


def rollback_backup(path, *, director=None, namespace=None, allow_destructive=False, update=True):
    from ._model import Production
    from ._runtime import resolve_director

    folder = Path(path)
    if not allow_destructive:
        raise RuntimeError('Rollback requires allow_destructive=True: it replaces the stored production with the backup.')
    plan_id = ''
    if (folder / 'plan.json').exists():
        plan_id = ProductionChangePlan.load(folder / 'plan.json').id
    chosen = resolve_director(director, namespace)
    if getattr(chosen, 'is_remote', False) is True:
        raise RuntimeError('Remote production rollback is not supported in v1.')
    export = json.loads((folder / 'production.json').read_text(encoding='utf-8'))
    if not export:
        raise RuntimeError(f'The backup {folder} holds no production: none was stored when it was taken. Delete the production instead.')
    restored = Production.from_dict(export)
    try:
        chosen.apply_production_definition(restored.to_dict(), allow_destructive=True, update=update)
        current = Production.from_iris(restored.name, namespace=namespace, director=chosen)
    except Exception as error:
        failure = {'id': 'rollback', 'op_type': 'rollback', 'path': f'production.{restored.name}', 'status': 'failed', 'message': str(error)}
        return ProductionVerifyResult(plan_id, restored.name, (), (failure,), ())
    if fingerprint(current) == fingerprint(restored) or not restored.diff(current).has_changes:
        return ProductionVerifyResult(plan_id, restored.name, ('rollback',), (), ())
    changes = [change.to_dict() for change in restored.diff(current).changes]
    failure = {'id': 'rollback', 'op_type': 'rollback', 'path': f'production.{restored.name}', 'status': 'failed', 'message': 'stored production differs from the backup', 'changes': changes}
    return ProductionVerifyResult(plan_id, restored.name, (), (failure,), ())


__all__ = ['ProductionApplyResult', 'ProductionChangePlan', 'ProductionPlanOperation', 'ProductionVerifyResult', 'PRODUCTION_SETTING_FIELDS']
