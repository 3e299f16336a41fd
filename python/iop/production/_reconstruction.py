"""A Production rebuilt from a stored one: IoP's export dict (`{name: {...}}` or `{"Production": {...}}`)
or Conveyor's structured export (`{name, items: [...]}`), plus the server's connections and queues."""
from ._common import PRODUCTION_FIELDS_BY_SETTING, split_targets
from ._source_inference import infer_source_edges

_KIND_SUFFIXES = (('Service', 'service'), ('Process', 'process'), ('Operation', 'operation'))
_KIND_PREFIXES = ('Python.', 'Ens.', 'EnsLib.', 'IOP.', 'Conveyor.')
_IGNORED_RUNTIME_TARGETS = frozenset({'Ens.Alert', 'Ens.ScheduleHandler'})


def _as_list(value):
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def structured_to_iop(data):
    """Conveyor's structured export -> IoP's dict body (the two carry the same production)."""
    body = {
        '@Name': data.get('name', ''),
        '@TestingEnabled': 'true' if data.get('test_enabled', data.get('testingEnabled')) else 'false',
        '@LogGeneralTraceEvents': 'true' if data.get('log_trace_events', data.get('logGeneralTraceEvents')) else 'false',
        'Description': data.get('description', '') or '',
        'ActorPoolSize': str(data.get('actor_pool_size', data.get('actorPoolSize', 2))),
    }
    # Production-level settings: Conveyor's structured export carries them as `settings` when there are any.
    production_settings = [{'@Name': s.get('name', ''), '#text': s.get('value', '')} for s in data.get('settings') or []]
    if production_settings:
        body['Setting'] = production_settings
    items = []
    for item in data.get('items') or []:
        entry = {
            '@Name': item.get('name', ''), '@Category': item.get('category', '') or '', '@ClassName': item.get('classname', ''),
            '@PoolSize': str(item.get('pool_size', item.get('poolSize', 1))),
            '@Enabled': 'true' if item.get('enabled', True) else 'false',
            '@Foreground': 'true' if item.get('foreground', False) else 'false',
            '@Comment': item.get('comment', '') or '',
            '@LogTraceEvents': 'true' if item.get('log_trace_events', item.get('logTraceEvents', False)) else 'false',
            '@Schedule': item.get('schedule', '') or '',
        }
        settings = [{'@Target': s.get('target', 'Host'), '@Name': s.get('name', ''), '#text': s.get('value', '')} for s in item.get('settings') or []]
        if settings:
            entry['Setting'] = settings
        items.append(entry)
    if items:
        body['Item'] = items
    return body


def production_body(data):
    """(name, IoP dict body) of any accepted export form."""
    if not isinstance(data, dict) or not data:
        raise ValueError('A production export must be a non-empty dict')
    if 'items' in data and 'name' in data and not any(key.startswith('@') for key in data):
        body = structured_to_iop(data)
        return body['@Name'], body
    if '@Name' in data:
        return data['@Name'], data
    if 'Production' in data and isinstance(data['Production'], dict):
        body = data['Production']
        return body.get('@Name', ''), body
    name = next(iter(data))
    body = data[name]
    if not isinstance(body, dict):
        raise ValueError(f'Production export for {name!r} must be a dict')
    return body.get('@Name', name), body


def kind_of_class(class_name, metadata_kind=None):
    if metadata_kind in ('service', 'process', 'operation', 'component'):
        return metadata_kind
    if class_name and class_name.startswith(_KIND_PREFIXES):
        for suffix, kind in _KIND_SUFFIXES:
            if class_name.endswith(suffix):
                return kind
    return 'component'


def production_from_dict(cls, data, *, connections=None, queue_info=None, namespace=None, director=None):
    from ._model import Production

    name, body = production_body(data)
    fields = {
        'testing_enabled': body.get('@TestingEnabled', 'false'),
        'log_general_trace_events': body.get('@LogGeneralTraceEvents', 'false'),
        'actor_pool_size': body.get('ActorPoolSize', '2'),
        'description': body.get('Description', '') or '',
    }
    for setting in _as_list(body.get('Setting')):
        field = PRODUCTION_FIELDS_BY_SETTING.get(setting.get('@Name'))
        if field is not None:
            fields[field] = setting.get('#text', '')
    factory = cls if isinstance(cls, type) and issubclass(cls, Production) else Production
    production = factory._blank(name, namespace=namespace, director=director, **_normalized_fields(fields))
    metadata = {entry.get('item'): entry for entry in (connections or {}).get('items', []) if isinstance(entry, dict)}
    for item in _as_list(body.get('Item')):
        class_name = item.get('@ClassName')
        if isinstance(class_name, dict):
            class_name = class_name.get('#text', '')
        meta = metadata.get(item.get('@Name'), {})
        ref = production.component(
            item.get('@Name', ''), None, class_name=str(class_name or ''), kind=kind_of_class(class_name, meta.get('kind')),
            adapter_class_name=meta.get('adapter_class_name') or '', enabled=item.get('@Enabled', 'true'),
            pool_size=item.get('@PoolSize', '1'), category=item.get('@Category', '') or '', foreground=item.get('@Foreground', 'false'),
            comment=item.get('@Comment', '') or '', log_trace_events=item.get('@LogTraceEvents', 'false'), schedule=item.get('@Schedule', '') or '',
        )
        if meta:
            ref.runtime_metadata = dict(meta)
        for setting in _as_list(item.get('Setting')):
            target = setting.get('@Target', 'Host') or 'Host'
            value = setting.get('#text', '')
            value = '' if value is None else str(value)
            if target == 'Host':
                ref.host_settings[setting.get('@Name', '')] = value
            elif target == 'Adapter':
                ref.adapter_settings[setting.get('@Name', '')] = value
            else:
                ref.other_settings.append({'@Target': target, '@Name': setting.get('@Name', ''), '#text': value})
    _add_runtime_edges(production, metadata)
    _add_inferred_edges(production, metadata)
    infer_source_edges(production)
    for warning in (connections or {}).get('warnings', []) or []:
        production._graph_warnings.append(str(warning))
    for item_name, meta in metadata.items():
        production._graph_warnings.extend(f'{item_name}: {warning}' for warning in meta.get('warnings') or [])
    if isinstance(queue_info, dict):
        production._queue_info = {entry.get('item'): {k: v for k, v in entry.items() if k != 'item'}
                                  for entry in queue_info.get('items', []) if isinstance(entry, dict)}
    return production


def _normalized_fields(fields):
    return {key: value for key, value in fields.items()}


def _add_runtime_edges(production, metadata):
    names = {item.name for item in production.items}
    for item_name, meta in metadata.items():
        if item_name not in names:
            continue
        ref = production.item(item_name)
        for target in meta.get('connections') or []:
            if target in _IGNORED_RUNTIME_TARGETS:
                continue
            setting = next((name for name, value in ref.host_settings.items() if target in split_targets(value)), '')
            if setting:
                ref.target_setting_names.add(setting)
                production._register_connection(item_name, setting, target, replace=False, origin='runtime')
            else:
                production._register_connection(item_name, '', target, replace=False, origin='runtime')


def _add_inferred_edges(production, metadata=None):
    """Host settings whose value names items of the production, not already a route; the metadata says
    why the server's runtime discovery did not give it (when the server answered for that item)."""
    names = {item.name for item in production.items}
    metadata = metadata or {}
    for ref in production.items:
        reported = metadata.get(ref.name)
        discovered = reported is not None and [t for t in reported.get('connections') or [] if t not in _IGNORED_RUNTIME_TARGETS]
        if reported is None or (reported.get('warnings') and not discovered):
            # not asked, or the server's discovery failed for this item (its warnings say why): no reason to give
            extra = {}
        elif not discovered:
            extra = {'reason': 'runtime discovery returned no targets'}
        else:
            extra = {'reason': 'runtime discovery did not report this target setting'}
        for setting, value in ref.host_settings.items():
            targets = split_targets(value)
            if not targets or not all(target in names for target in targets) or setting.startswith('%'):
                continue
            if discovered and not setting.lower().endswith(('targetconfigname', 'targetconfignames')):
                # the server reported this item's routes: only a TargetConfigName(s) it left out is still a route
                continue
            if (ref.name, setting) in production._connections:
                continue
            ref.target_setting_names.add(setting)
            for target in targets:
                production._register_connection(ref.name, setting, target, replace=False, origin='inferred', metadata={'source': 'Host setting fallback', **extra})
