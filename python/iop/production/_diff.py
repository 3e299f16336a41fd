"""Diff of two productions: the entries that turn the *current* one into the *desired* one."""
import dataclasses
import json

from ._common import PRODUCTION_SETTING_FIELDS, bool_text, text_value

_ITEM_SCALARS = ('class_name', 'category', 'pool_size', 'enabled', 'foreground', 'comment', 'log_trace_events', 'schedule')


def canonical_value(value):
    if isinstance(value, dict):
        return {str(key): canonical_value(value[key]) for key in sorted(value, key=str)}
    if isinstance(value, (list, tuple)):
        return [canonical_value(item) for item in value]
    if isinstance(value, bool):
        return bool_text(value)
    if value is None:
        return ''
    return value


def _value_text(value):
    if isinstance(value, str):
        return repr(value)
    try:
        return json.dumps(value, sort_keys=True)
    except TypeError:
        return repr(value)


@dataclasses.dataclass(frozen=True)
class ProductionDiffEntry:
    action: str
    kind: str
    path: str
    before: object = None
    after: object = None
    detail: str = ''

    def to_dict(self):
        data = {'action': self.action, 'kind': self.kind, 'path': self.path}
        if self.before is not None:
            data['before'] = self.before
        if self.after is not None:
            data['after'] = self.after
        if self.detail:
            data['detail'] = self.detail
        return data

    def to_text(self):
        line = f'{self.action} {self.kind} {self.path}'
        if self.detail:
            return f'{line}: {self.detail}'
        if self.action == 'change':
            return f'{line}: {_value_text(self.before)} -> {_value_text(self.after)}'
        if self.action == 'add':
            return f'{line}: {_value_text(self.after)}'
        if self.action == 'remove':
            return f'{line}: {_value_text(self.before)}'
        return line


@dataclasses.dataclass(frozen=True)
class ProductionDiff:
    production_name: str
    changes: tuple = ()
    warnings: tuple = ()

    @property
    def has_changes(self):
        return bool(self.changes)

    def to_dict(self):
        data = {'production': self.production_name, 'has_changes': self.has_changes, 'changes': [change.to_dict() for change in self.changes]}
        if self.warnings:
            data['warnings'] = list(self.warnings)
        return data

    def to_text(self):
        lines = [f'Production diff: {self.production_name}']
        lines.extend(f'  {change.to_text()}' for change in self.changes)
        if not self.changes:
            lines.append('  no changes')
        if self.warnings:
            lines.append('  warnings:')
            lines.extend(f'    {warning}' for warning in self.warnings)
        return '\n'.join(lines)

    def __str__(self):
        return self.to_text()


def production_signature(production):
    signature = {
        'testing_enabled': bool_text(production.testing_enabled),
        'log_general_trace_events': bool_text(production.log_general_trace_events),
        'actor_pool_size': text_value(production.actor_pool_size),
        'description': production.description,
    }
    signature.update({field: text_value(getattr(production, field)) for field in PRODUCTION_SETTING_FIELDS})
    return signature


def item_signature(item):
    return {
        'class_name': item.class_name or '',
        'category': item.category,
        'pool_size': text_value(item.pool_size),
        'enabled': bool_text(item.enabled),
        'foreground': bool_text(item.foreground),
        'comment': item.comment,
        'log_trace_events': bool_text(item.log_trace_events),
        'schedule': item.schedule,
        'host_settings': {key: text_value(item.host_settings[key]) for key in sorted(item.host_settings)},
        'adapter_settings': {key: text_value(item.adapter_settings[key]) for key in sorted(item.adapter_settings)},
        'other_settings': canonical_value(item.other_settings),
    }


def _mapping_changes(changes, kind, base, before, after):
    for key in sorted(before.keys() - after.keys()):
        changes.append(ProductionDiffEntry('remove', kind, f'{base}.{key}', before=before[key]))
    for key in sorted(after.keys() - before.keys()):
        changes.append(ProductionDiffEntry('add', kind, f'{base}.{key}', after=after[key]))
    for key in sorted(before.keys() & after.keys()):
        if before[key] != after[key]:
            changes.append(ProductionDiffEntry('change', kind, f'{base}.{key}', before=before[key], after=after[key]))


def _connections(production, detailed):
    found = {}
    for edge in production.graph().edges:
        source = (edge.source_item, edge.source_target_setting)
        if detailed:
            value = {'target': edge.target, 'origin': edge.origin, 'interaction': edge.interaction}
            if edge.metadata:
                value['metadata'] = canonical_value(edge.metadata)
            found.setdefault(source, []).append(value)
        else:
            found.setdefault(source, set()).add(edge.target)
    if detailed:
        return {source: sorted(values, key=lambda v: json.dumps(v, sort_keys=True)) for source, values in sorted(found.items())}
    return {source: sorted(targets) for source, targets in sorted(found.items())}


def _source_path(source):
    item, setting = source
    return f'{item}.{setting}' if setting else item


def diff_productions(desired, current, *, detailed=False):
    changes = []
    warnings = [f'desired: {w}' for w in desired.graph().warnings] + [f'current: {w}' for w in current.graph().warnings]
    if current.name != desired.name:
        changes.append(ProductionDiffEntry('change', 'production', 'production.name', before=current.name, after=desired.name))
    _mapping_changes(changes, 'production', 'production', production_signature(current), production_signature(desired))
    desired_items = {item.name: item_signature(item) for item in desired.items}
    current_items = {item.name: item_signature(item) for item in current.items}
    for name in sorted(current_items.keys() - desired_items.keys()):
        changes.append(ProductionDiffEntry('remove', 'item', f'items.{name}', before=current_items[name]))
    for name in sorted(desired_items.keys() - current_items.keys()):
        changes.append(ProductionDiffEntry('add', 'item', f'items.{name}', after=desired_items[name]))
    for name in sorted(desired_items.keys() & current_items.keys()):
        before, after = current_items[name], desired_items[name]
        _mapping_changes(changes, 'item', f'items.{name}', {f: before[f] for f in _ITEM_SCALARS}, {f: after[f] for f in _ITEM_SCALARS})
        _mapping_changes(changes, 'setting', f'items.{name}.settings.Host', before['host_settings'], after['host_settings'])
        _mapping_changes(changes, 'setting', f'items.{name}.settings.Adapter', before['adapter_settings'], after['adapter_settings'])
        if before['other_settings'] != after['other_settings']:
            changes.append(ProductionDiffEntry('change', 'setting', f'items.{name}.settings.Other', before=before['other_settings'], after=after['other_settings']))
    desired_routes, current_routes = _connections(desired, detailed), _connections(current, detailed)
    for source in sorted(current_routes.keys() - desired_routes.keys()):
        changes.append(ProductionDiffEntry('remove', 'connection', f'connections.{_source_path(source)}', before=current_routes[source]))
    for source in sorted(desired_routes.keys() - current_routes.keys()):
        changes.append(ProductionDiffEntry('add', 'connection', f'connections.{_source_path(source)}', after=desired_routes[source]))
    for source in sorted(desired_routes.keys() & current_routes.keys()):
        if desired_routes[source] != current_routes[source]:
            changes.append(ProductionDiffEntry('change', 'connection', f'connections.{_source_path(source)}', before=current_routes[source], after=desired_routes[source]))
    return ProductionDiff(desired.name, tuple(changes), tuple(warnings))


def deployable_diff(desired, current):
    return diff_productions(desired, current)


def graph_diff(desired, current):
    return diff_productions(desired, current, detailed=True)
