"""Renderings of a Production: IoP's export dict, its XML, and Python source (`--format python|class`)."""
import keyword
import re
from xml.sax.saxutils import escape, quoteattr

from ._common import PRODUCTION_SETTING_FIELDS, bool_text, split_targets, text_value

_HEADER = [
    '# Generated from IRIS production export.',
    '# Review before using as source of truth; some runtime/dynamic routing intent',
    '# cannot be fully reconstructed from deployed IRIS metadata.',
]


def production_to_dict(production):
    data = {
        '@Name': production.name,
        '@TestingEnabled': bool_text(production.testing_enabled),
        '@LogGeneralTraceEvents': bool_text(production.log_general_trace_events),
        'Description': production.description,
        'ActorPoolSize': text_value(production.actor_pool_size),
    }
    settings = [
        {'@Name': iris_name, '#text': text_value(getattr(production, field))}
        for field, (iris_name, default) in PRODUCTION_SETTING_FIELDS.items()
        if text_value(getattr(production, field)) != text_value(default)
    ]
    if settings:
        data['Setting'] = settings
    if production.items:
        data['Item'] = [item.to_dict() for item in production.items]
    return {production.name: data}


def dict_to_xml(data, indent='\t'):
    """xmltodict-style dict -> XML text (attributes `@x`, text `#text`, lists repeat the element)."""
    lines = []
    for tag, value in data.items():
        _element(lines, tag, value, 0, indent)
    return '\n'.join(lines)


def _element(lines, tag, value, depth, indent):
    pad = indent * depth
    if isinstance(value, list):
        for entry in value:
            _element(lines, tag, entry, depth, indent)
        return
    if not isinstance(value, dict):
        text = text_value(value)
        lines.append(f'{pad}<{tag}>{escape(text)}</{tag}>' if text else f'{pad}<{tag}></{tag}>')
        return
    attributes = ''.join(f' {key[1:]}={quoteattr(text_value(entry))}' for key, entry in value.items() if key.startswith('@'))
    children = {key: entry for key, entry in value.items() if not key.startswith('@') and key != '#text'}
    text = text_value(value.get('#text'))
    if not children:
        lines.append(f'{pad}<{tag}{attributes}>{escape(text)}</{tag}>')
        return
    lines.append(f'{pad}<{tag}{attributes}>' + escape(text))
    for key, entry in children.items():
        _element(lines, key, entry, depth + 1, indent)
    lines.append(f'{pad}</{tag}>')


def production_to_xml(production):
    return dict_to_xml({'Production': production_to_dict(production)[production.name]})


def _route_targets(production):
    """(item, setting) -> targets of authored/runtime routes whose setting is a Host setting."""
    routes = {}
    for edge in production.edges:
        if edge.source_target_setting:
            targets = routes.setdefault((edge.source_item, edge.source_target_setting), [])
            if edge.target not in targets:
                targets.append(edge.target)
    return routes


def _identifier(name, used):
    base = re.sub(r'\W+', '_', name).strip('_').lower() or 'item'
    if base[0].isdigit() or keyword.iskeyword(base):
        base = f'item_{base}'
    candidate, counter = base, 2
    while candidate in used or candidate in ('prod', 'Production'):
        candidate, counter = f'{base}_{counter}', counter + 1
    used.add(candidate)
    return candidate


def _production_arguments(production):
    arguments = [repr(production.name)]
    for field, default in (('testing_enabled', False), ('log_general_trace_events', False), ('actor_pool_size', 2), ('description', '')):
        value = getattr(production, field)
        if text_value(value) != text_value(default):
            arguments.append(f'{field}={_literal(value)}')
    for field, (_, default) in PRODUCTION_SETTING_FIELDS.items():
        value = getattr(production, field)
        if text_value(value) != text_value(default):
            arguments.append(f'{field}={_literal(value)}')
    return arguments


def _literal(value):
    if isinstance(value, str):
        lowered = value.strip().lower()
        if lowered in ('true', 'false'):
            return repr(lowered == 'true')
        if re.fullmatch(r'-?\d+', value.strip()):
            return value.strip()
    return repr(value)


def _item_arguments(item, routes):
    arguments = [f'class_name={item.class_name!r}', f'kind={item.kind!r}']
    for field, default in (('enabled', True), ('pool_size', 1), ('category', ''), ('foreground', False), ('comment', ''),
                           ('log_trace_events', False), ('schedule', '')):
        value = getattr(item, field)
        if text_value(value) != text_value(default):
            arguments.append(f'{field}={_literal(value)}')
    if item.adapter_class_name:
        arguments.append(f'adapter_class_name={item.adapter_class_name!r}')
    host = {name: value for name, value in item.host_settings.items() if (item.name, name) not in routes}
    if host:
        arguments.append(f'settings={host!r}')
    if item.adapter_settings:
        arguments.append(f'adapter_settings={dict(item.adapter_settings)!r}')
    return arguments


def production_to_python(production):
    routes = _route_targets(production)
    names = {item.name for item in production.items}
    used, variables = set(), {}
    lines = list(_HEADER) + ['from iop import Production', '', '']
    lines.append(f'prod = Production({", ".join(_production_arguments(production))})')
    lines.append('')
    for item in production.items:
        variables[item.name] = _identifier(item.name, used)
        lines.append(f'{variables[item.name]} = prod.component({item.name!r}, {", ".join(_item_arguments(item, routes))})')
    if production.items:
        lines.append('')
    route_lines = []
    for (source, setting), targets in routes.items():
        if source not in variables:
            continue
        for index, target in enumerate(targets):
            if target not in names:
                route_lines.append(f'# TODO: {source}.{setting} targets {target!r}, which is not an item of this production')
                continue
            mode = '' if index == 0 else ", mode='add'"
            route_lines.append(f'{variables[source]}.connect({setting!r}, {variables[target]}{mode})')
    if route_lines:
        lines.extend(route_lines + [''])
    warnings = production.graph().warnings
    if warnings:
        lines.append('# Import warnings:')
        lines.extend(f'# - {warning}' for warning in warnings)
        lines.append('')
    lines.append('PRODUCTIONS = [prod]')
    return '\n'.join(lines) + '\n'


_ITEM_TYPES = {'service': 'ServiceItem', 'process': 'ProcessItem', 'operation': 'OperationItem', 'component': 'ComponentItem'}
_ITEM_GROUPS = {'service': 'services', 'process': 'processes', 'operation': 'operations', 'component': 'components'}


def production_class_name(production_name):
    last = production_name.split('.')[-1]
    if last == 'Production' and '.' in production_name:
        last = production_name.split('.')[-2] + 'Production'
    name = re.sub(r'\W+', '_', last).strip('_') or 'GeneratedProduction'
    return f'P{name}' if name[0].isdigit() else name


def production_to_class(production):
    routes = _route_targets(production)
    names = {item.name for item in production.items}
    groups = {kind: [item for item in production.items if (item.kind if item.kind in _ITEM_TYPES else 'component') == kind] for kind in _ITEM_TYPES}
    used_types = sorted(_ITEM_TYPES[kind] for kind, items in groups.items() if items)
    has_routes = any(target in names for (source, _), targets in routes.items() for target in targets)
    imports = ['Production'] + used_types + (['Route'] if has_routes else [])
    class_name = production_class_name(production.name)
    lines = list(_HEADER)
    if any(item.component_class is None and str(item.class_name or '').startswith('Python.') for item in production.items):
        lines.append('# TODO: replace Python.* string class names with imported classes before migrating again, '
                     'or keep those classes registered.')
    lines += [f'from iop import {", ".join(imports)}', '', '', f'class {class_name}(Production):', f'    name = {production.name!r}']
    for argument in _production_arguments(production)[1:]:
        field, _, value = argument.partition('=')
        lines.append(f'    {field} = {value}')
    for kind, items in groups.items():
        if not items:
            continue
        lines.append(f'    {_ITEM_GROUPS[kind]} = (')
        for item in items:
            arguments = [repr(item.name), repr(item.class_name)] + [a for a in _item_arguments(item, routes)[2:]]
            item_routes = [(setting, [t for t in targets if t in names]) for (source, setting), targets in routes.items() if source == item.name]
            item_routes = [(setting, targets) for setting, targets in item_routes if targets]
            if item_routes:
                rendered = ', '.join(f'Route({setting!r}, {targets[0]!r})' if len(targets) == 1 else f'Route({setting!r}, {tuple(targets)!r})' for setting, targets in item_routes)
                arguments.append(f'routes=({rendered},)')
            if item.component_class is None and str(item.class_name or '').startswith('Python.'):
                lines.append('        # TODO: replace this proxy class name with the Python class object '
                             'if this item should be registered automatically.')
            lines.append(f'        {_ITEM_TYPES[kind]}({", ".join(arguments)}),')
        lines.append('    )')
    lines += ['', '', f'PRODUCTIONS = [{class_name}()]']
    return '\n'.join(lines) + '\n'


def split_route_targets(value):
    return split_targets(value)
