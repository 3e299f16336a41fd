"""Verifying a change plan: whether the stored production now holds what each of its operations set."""
import dataclasses

from ._common import normalize_settings
from ._diff import item_signature, production_signature
from ._plan_paths import connection_source, item_field, item_name, setting_path


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


def _converged(op, current):
    items = {item.name: item for item in current.items}
    if op.op_type == 'add_item':
        ref = items.get(item_name(op.path))
        return ref is not None and item_signature(ref) == op.after
    if op.op_type == 'delete_item':
        return item_name(op.path) not in items
    if op.op_type in ('set_item_field', 'replace_item_class'):
        ref = items.get(item_name(op.path))
        return ref is not None and item_signature(ref).get(item_field(op.path)) == op.after
    if op.op_type == 'set_production_field':
        return production_signature(current).get(op.path[len('production.'):]) == op.after
    if op.op_type in ('set_setting', 'remove_setting'):
        parsed = setting_path(op.path)
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
        source = connection_source(op.path)
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
