"""Applying a change plan: its applicable operations, one by one, to a copy of the stored
production, after a backup, with each operation's result recorded.

Conveyor stores a production as one definition, so applying writes the definition that results
from the current one plus the applicable operations (through the server's apply route, which also
records the previous definition), rather than editing IRIS configuration objects one by one.
"""
import copy
import dataclasses

from ._plan import DESTRUCTIVE, UNSUPPORTED, ProductionChangePlan, build_plan, fingerprint
from ._plan_backup import create_backup
from ._plan_paths import connection_source, item_field, item_name, setting_path


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
    touched = item_name(op.path) or connection_source(op.path)[0]
    if op.op_type in ('remove_setting', 'remove_route') and touched not in {item.name for item in working.items}:
        return  # the item itself was deleted by an earlier operation of the plan
    if op.op_type == 'add_item':
        if desired is None:
            after = op.after or {}
            ref = working.component(item_name(op.path), None, class_name=after.get('class_name') or None, enabled=after.get('enabled', True),
                                    pool_size=after.get('pool_size', 1), category=after.get('category', ''), foreground=after.get('foreground', False),
                                    comment=after.get('comment', ''), log_trace_events=after.get('log_trace_events', False),
                                    schedule=after.get('schedule', ''), settings=dict(after.get('host_settings') or {}),
                                    adapter_settings=dict(after.get('adapter_settings') or {}))
            ref.other_settings = copy.deepcopy(after.get('other_settings') or [])
            return
        source = desired.item(item_name(op.path))
        ref = working.component(source.name, None, class_name=source.class_name, kind=source.kind, adapter_class_name=source.adapter_class_name,
                                enabled=source.enabled, pool_size=source.pool_size, category=source.category, foreground=source.foreground,
                                comment=source.comment, log_trace_events=source.log_trace_events, schedule=source.schedule,
                                settings=dict(source.host_settings), adapter_settings=dict(source.adapter_settings))
        ref.other_settings = copy.deepcopy(source.other_settings)
    elif op.op_type == 'delete_item':
        working.delete_component(item_name(op.path))
    elif op.op_type in ('set_item_field', 'replace_item_class'):
        field = item_field(op.path)
        value = op.after if desired is None else getattr(desired.item(item_name(op.path)), field)
        setattr(working.item(item_name(op.path)), field, value)
    elif op.op_type in ('set_setting', 'remove_setting'):
        item, target, setting = setting_path(op.path)
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
        item, setting = connection_source(op.path)
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
