"""PRODUCTIONS of a settings.py: IoP's xmltodict-style dicts, normalised for the engine.

Values are rendered as the text IoP would put in the production XML (booleans `true`/`false`,
numbers their text); the engine parses them and fills in missing attributes.
"""
import copy
import inspect
import os
import sys

from iop.messages.persistent import register_persistent_message
from iop.production import Production
from iop.production._validation import build_report

from .classes import EntryError, binding_of

_PRODUCTION_FIELDS = {'@TestingEnabled': 'testingEnabled', '@LogGeneralTraceEvents': 'logGeneralTraceEvents', 'Description': 'description', 'ActorPoolSize': 'actorPoolSize'}
_ITEM_FIELDS = {
    '@Category': 'category', '@PoolSize': 'poolSize', '@Enabled': 'enabled', '@Foreground': 'foreground',
    '@Comment': 'comment', '@LogTraceEvents': 'logTraceEvents', '@Schedule': 'schedule',
}


def text(value):
    if value is None:
        return ''
    if isinstance(value, bool):
        return 'true' if value else 'false'
    return str(value)


def register_productions(productions, root, strict_production_validation=False, validation=None):
    """Returns (productions, class bindings made from class-valued @ClassName and from the Python
    classes of IoP 4 Production objects). Production objects are validated first: issues are appended
    to `validation` and warned, or with `strict_production_validation` raised."""
    if not isinstance(productions, (list, tuple)):
        raise EntryError('PRODUCTIONS must be a list of {production name: definition} dicts')
    result = []
    bindings = []
    for index, production in enumerate(productions):
        entry = f'PRODUCTIONS[{index}]'
        if isinstance(production, Production):
            entry = f'{entry} ({production.name})'
            report = build_report(production)
            if validation is not None:
                validation.extend(f'{production.name}: {issue.to_text()}' for issue in report.issues)
            report.raise_or_warn(strict=strict_production_validation)
            try:
                bindings.extend(_production_object_bindings(production, root))
                production = production.to_dict()
            except EntryError as error:
                raise EntryError(f'{entry}: {error}') from error
        else:
            production = copy.deepcopy(production) if isinstance(production, dict) else production
            if isinstance(production, dict) and production:
                report = build_report(production)
                if validation is not None:
                    validation.extend(f'{report.production}: {issue.to_text()}' for issue in report.issues)
                report.raise_or_warn(strict=strict_production_validation)
        if not isinstance(production, dict) or not production:
            raise EntryError(f'{entry}: expected a dict {{"Package.Name": {{...}}}}, got {type(production).__name__}')
        name = next(iter(production))
        entry = f'{entry} ({name})'
        try:
            result.append(_production(name, production[name], root, bindings))
        except EntryError as error:
            raise EntryError(f'{entry}: {error}') from error
        except Exception as error:
            raise EntryError(f'{entry}: {type(error).__name__}: {error}') from error
    return result, bindings


def _production(name, body, root, bindings):
    if not isinstance(name, str) or '.' not in name or name.startswith('.') or name.endswith('.'):
        raise EntryError('Invalid Production package or name: it needs a package, as in "Package.Name"')
    body = body or {}
    if not isinstance(body, dict):
        raise EntryError(f'the definition must be a dict, got {type(body).__name__}')
    definition = {'name': name}
    for key, field in _PRODUCTION_FIELDS.items():
        if key in body:
            definition[field] = text(body[key])
    production_settings = body.get('Setting') or []
    if isinstance(production_settings, dict):
        production_settings = [production_settings]
    definition['settings'] = _production_settings(production_settings)
    items = body.get('Item') or []
    if isinstance(items, dict):
        items = [items]
    definition['items'] = [_item(index, item, root, bindings) for index, item in enumerate(items)]
    return definition


def _production_settings(settings):
    """Production-level Settings (ShutdownTimeout, UpdateTimeout, AlertNotification…): no @Target, or
    @Target Production as IRIS writes it; each name once."""
    result = []
    seen = set()
    for setting in settings:
        if not isinstance(setting, dict) or not setting.get('@Name'):
            raise EntryError('each production-level Setting needs @Name and #text')
        name = text(setting['@Name'])
        target = setting.get('@Target', 'Production')
        if target not in ('Production', ''):
            raise EntryError(f'production-level Setting {name!r} has @Target {target!r}; use Production or leave it out')
        if name in seen:
            raise EntryError(f'production-level Setting {name!r} is given twice')
        seen.add(name)
        result.append({'name': name, 'value': text(setting.get('#text'))})
    return result


def _item(index, item, root, bindings):
    if not isinstance(item, dict):
        raise EntryError(f'Item[{index}] must be a dict, got {type(item).__name__}')
    name = item.get('@Name')
    if not name:
        raise EntryError(f'Item[{index}] has no @Name')
    if '@ClassName' not in item:
        raise EntryError(f'item {name!r} has no @ClassName')
    classname = item['@ClassName']
    if inspect.isclass(classname):
        bindings.append(binding_of(classname, name, [root]))
        classname = name
    normalized = {'name': text(name), 'classname': text(classname)}
    for key, field in _ITEM_FIELDS.items():
        if key in item:
            normalized[field] = text(item[key])
    settings = item.get('Setting') or []
    if isinstance(settings, dict):
        settings = [settings]
    normalized['settings'] = [_setting(name, setting) for setting in settings]
    return normalized


def _setting(item_name, setting):
    if not isinstance(setting, dict) or '@Name' not in setting:
        raise EntryError(f'item {item_name!r}: each Setting needs @Target, @Name and #text')
    target = setting.get('@Target', 'Host')
    if target not in ('Host', 'Adapter'):
        raise EntryError(f'item {item_name!r}: Setting {setting["@Name"]!r} has @Target {target!r}; use Host or Adapter')
    return {'target': target, 'name': text(setting['@Name']), 'value': text(setting.get('#text'))}


def _import_root(component_class):
    module = sys.modules.get(component_class.__module__)
    path = getattr(module, '__file__', None)
    if not path:
        return None
    root = os.path.dirname(os.path.abspath(path))
    for _ in range(component_class.__module__.count('.') + (1 if os.path.basename(path) == '__init__.py' else 0)):
        root = os.path.dirname(root)
    return root


def _production_object_bindings(production, root):
    """The Python classes a Production object names, registered under their class_name (each once),
    adapters under their adapter_class_name; its prod.message() entries as PersistentMessages."""
    found = []
    seen = set()
    registrations = [(ref.class_name, ref.component_class) for ref in production.component_registrations()]
    registrations += [(ref.adapter_class_name, ref.adapter_class) for ref in production.adapter_registrations()]
    for name, cls in registrations:
        if name in seen:
            continue
        seen.add(name)
        found.append(binding_of(cls, name, [root] + [path for path in [_import_root(cls)] if path]))
    for message in production.message_registrations():
        register_persistent_message(message.message_class, message.iris_classname, message.sync_schema)
    return found
