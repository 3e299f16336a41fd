"""`iop.migration.utils`: IoP 4's Utils functions (register / bind / unbind / list bindings, migrate,
export and import of productions), run against Conveyor.

IoP writes IRIS proxy classes; Conveyor records class bindings in its store, and the only way in is a
settings.py migration. So registering classes here writes a small generated settings file and asks the
director to migrate it in place (the local home's server over its socket).
"""
import copy
import functools
import json
import os
import sys
import warnings

from ..runtime.director import default_director


def _director(namespace=None, mode=None):
    if mode and str(mode).upper() == 'LOCAL':
        from ..runtime._rest import _LocalDirector

        return _LocalDirector(namespace=namespace)
    if mode and str(mode).upper() == 'REMOTE':
        from ..runtime.remote import _RemoteDirector, get_remote_settings

        settings = get_remote_settings()
        if not settings:
            raise RuntimeError('Remote mode needs IOP_URL or REMOTE_SETTINGS (IOP_SETTINGS)')
        return _RemoteDirector(dict(settings, namespace=namespace or settings.get('namespace', 'USER')))
    return default_director(namespace)


def register_component(module, classname, path, overwrite=1, iris_classname='Python'):
    """Registers `module.classname` (found under `path`) under the name `iris_classname`."""
    from ..production._runtime import register_classes

    import importlib
    import sys

    path = os.path.abspath(path)
    if path not in sys.path:
        sys.path.insert(0, path)
    try:
        component_class = getattr(importlib.import_module(module), classname)
    except Exception as error:
        raise RuntimeError(
            f"Could not register IRIS proxy class '{iris_classname}' for Python component {module}.{classname}.\n"
            f'Cause: {type(error).__name__}: {error}\n'
            f'Fix: check that {path} holds the module {module} and that it defines {classname}.'
        ) from error
    name = iris_classname if iris_classname and iris_classname != 'Python' else f'Python.{module}.{classname}'.replace('_', '')
    try:
        return register_classes({name: component_class}, _director(), root_path=path)
    except Exception as error:
        raise RuntimeError(
            f"Could not register IRIS proxy class '{name}' for Python component {module}.{classname}.\n"
            f'Cause: {error}\nFix: is the Conveyor server of this home running (conveyor serve)?'
        ) from error


def bind_component(module, classname, path, overwrite=1, iris_classname='Python'):
    """IoP 4's name for register_component (looked up at call time, so a patched register_component is used)."""
    return register_component(module, classname, path, overwrite, iris_classname)


def unregister_component(iris_classname):
    if not iris_classname or not str(iris_classname).strip():
        raise ValueError('An IRIS class name is required (the name the class was registered under).')
    return _director().unbind_component(iris_classname)


def unbind_component(iris_classname):
    """IoP 4's name for unregister_component (looked up at call time)."""
    return unregister_component(iris_classname)


def list_bindings(unused_only=False):
    return _director().list_bindings(unused_only=unused_only)


list_component_bindings = list_bindings


def register_folder(path, overwrite=1, iris_package_name='Python'):
    return _register_settings({iris_package_name: {'path': os.path.abspath(path)}})


def register_file(file, overwrite=1, iris_package_name='Python'):
    file = os.path.abspath(file)
    return _register_settings({iris_package_name: {'path': os.path.dirname(file), 'file': os.path.basename(file)}})


def register_package(package, path, overwrite=1, iris_package_name='Python'):
    return _register_settings({iris_package_name: {'path': os.path.abspath(path), 'package': package}})


def _register_settings(classes):
    import tempfile

    folder = tempfile.mkdtemp(prefix='iop-register-')
    path = os.path.join(folder, 'iop_class_registration.py')  # not `settings`: user code may import its own
    with open(path, 'w', encoding='utf-8') as out:
        out.write(f'CLASSES = {classes!r}\n')
    try:
        return _director().migrate(path)
    finally:
        try:
            os.remove(path)
            os.rmdir(folder)
        except OSError:
            pass


def migrate(filename=None, mode=None, namespace=None, strict_production_validation=False):
    """Migrates a settings file (default ./settings.py): prints the plan, then runs it on the server."""
    filename = os.path.abspath(filename or 'settings.py')
    plan = explain_migration(filename, mode, namespace, strict_production_validation)
    print(plan)
    director = _director(namespace, mode)
    director.migrate(filename, strict_production_validation=strict_production_validation)
    print(format_migration_success(filename, namespace))
    return None


def format_migration_success(filename, namespace=None):
    return f'Migration succeeded in namespace {namespace}: {filename}' if namespace else f'Migration succeeded: {filename}'


def _build_migration_plan(settings, root_path, strict_production_validation=False):
    """What a migration of `settings` (a module or any object with CLASSES / PRODUCTIONS / SCHEMAS)
    would register: `{classes, schemas, productions, validation}` as lines, nothing written."""
    import inspect as _inspect

    from conveyor_migrate.classes import register_classes
    from conveyor_migrate.productions import register_productions
    from conveyor_migrate.script import register_schemas

    from ..messages.persistent import get_python_classname, is_persistent_message_class
    from ..production import Production

    root = os.path.abspath(root_path or '.')
    plan = {'classes': [], 'schemas': [], 'productions': [], 'validation': []}

    def component_line(binding):
        return f'{binding["name"]} -> {binding["module"]}.{binding["className"]} (component)'

    classes = getattr(settings, 'CLASSES', None)
    if classes is not None:
        if not isinstance(classes, dict):
            raise ValueError('CLASSES must be a dictionary.')
        for key, value in classes.items():
            if _inspect.isclass(value) and is_persistent_message_class(value):
                plan['classes'].append(f'{key} -> {get_python_classname(value)} (PersistentMessage)')
        plan['classes'].extend(component_line(b) for b in register_classes(classes, root))
    productions = getattr(settings, 'PRODUCTIONS', None)
    if productions is not None:
        if not isinstance(productions, (list, tuple)):
            raise ValueError('PRODUCTIONS must be a list.')
        documents, bindings = register_productions(productions, root, strict_production_validation, plan['validation'])
        plan['classes'].extend(component_line(b) for b in bindings)
        for production in productions:
            if isinstance(production, Production):
                plan['classes'].extend(f'{m.iris_classname} -> {get_python_classname(m.message_class)} (PersistentMessage)'
                                       for m in production.message_registrations())
        plan['productions'] = [document['name'] for document in documents]
    schemas = getattr(settings, 'SCHEMAS', None)
    if schemas is not None:
        plan['schemas'] = [schema['name'] for schema in register_schemas(schemas)]
    return plan


def format_migration_plan(plan, filename='', mode=None, namespace=None):
    lines = [f'Migration plan: {filename}']
    if mode:
        lines.append(f'Mode: {str(mode).upper()}')
    if namespace:
        lines.append(f'Namespace: {namespace}')
    for title, key in (('CLASSES', 'classes'), ('SCHEMAS', 'schemas'), ('PRODUCTIONS', 'productions'), ('VALIDATION', 'validation')):
        lines += ['', f'{title}:'] + [f'  {entry}' for entry in plan[key] or ['none']]
    return '\n'.join(lines)


def explain_migration(filename=None, mode=None, namespace=None, strict_production_validation=False):
    """The migration plan of a settings file, computed here without writing anything."""
    from conveyor_migrate.script import load_settings

    filename = os.path.abspath(filename or 'settings.py')
    settings = load_settings(filename)
    plan = _build_migration_plan(settings, os.path.dirname(filename), strict_production_validation)
    return format_migration_plan(plan, filename, mode, namespace)


def register_production_definition(production_name, production):
    """Stores a production from IoP's dict (`{"Production": {...}}` or `{name: {...}}`)."""
    from ..production._reconstruction import production_body

    name, body = production_body(production)
    if production_name and name and name != production_name:
        raise ValueError(f'Production name mismatch: {production_name} vs {name}')
    return _director().apply_production_definition({production_name or name: body}, allow_destructive=True)


def register_production(production_name, xml):
    """Stores a production given as IoP's XML."""
    return register_production_definition(production_name, xml_to_dict(xml))


def register_persistent_message(msg_cls, iris_classname=None, sync_schema=True):
    from ..messages.persistent import register_persistent_message as register

    return register(msg_cls, iris_classname, sync_schema)


def export_production(production_name):
    return _director().export_production(production_name)


def export_production_connections(production_name):
    return _director().export_production_connections(production_name)


def export_production_queue_info(production_name):
    return _director().export_production_queue_info(production_name)


def apply_production_plan(plan, allow_destructive=False):
    from ..production import Production, ProductionChangePlan

    plan = plan if isinstance(plan, ProductionChangePlan) else ProductionChangePlan.from_dict(plan)
    raise RuntimeError(f'Apply plan {plan.id[:12]} with Production.apply(plan) (it needs the desired production): '
                       f'{Production.__name__}.apply computes and writes the definition')


def set_classes_settings(class_items, root_path=None, persistent_registry=None):
    from conveyor_migrate.classes import register_classes

    bindings = register_classes(class_items, os.path.abspath(root_path or os.getcwd()))
    return _register_settings_bindings(bindings)


def _register_settings_bindings(bindings):
    from ..production._runtime import register_classes
    import importlib

    entries = {}
    for binding in bindings:
        if binding.get('persistent'):
            continue
        module = importlib.import_module(binding['module'])
        entries[binding['name']] = getattr(module, binding['className'])
    return register_classes(entries, _director()) if entries else None


def set_productions_settings(production_list, root_path=None, persistent_registry=None, strict_production_validation=False):
    """Stores each production of a settings file's PRODUCTIONS: DSL objects (validated, their classes registered
    once each through register_component) and IoP's legacy dicts (an item's class object is registered the same
    way and replaced by its name in a copy: the caller's dict is left as it was)."""
    from ..production import Production

    if not isinstance(production_list, (list, tuple)):
        raise ValueError('PRODUCTIONS must be a list.')
    registered = set()

    def register(component_class, name):
        if name not in registered:
            registered.add(name)
            register_component(component_class.__module__, component_class.__qualname__, _class_root(component_class, root_path), 1, name)

    for entry in production_list:
        if isinstance(entry, Production):
            entry.validate(strict=strict_production_validation)
            for ref in entry.component_registrations():
                register(ref.component_class, ref.class_name)
            for ref in entry.adapter_registrations():
                register(ref.adapter_class, ref.adapter_class_name)
            register_production_definition(entry.name, entry.to_dict())
        elif isinstance(entry, dict) and entry:
            name = next(iter(entry))
            entry = copy.deepcopy(entry)
            body = entry[name] if isinstance(entry[name], dict) else {}
            items = body.get('Item')
            for item in items if isinstance(items, list) else [items] if isinstance(items, dict) else []:
                component_class = item.get('@ClassName')
                if isinstance(component_class, type):
                    item['@ClassName'] = f'Python.{component_class.__module__}.{component_class.__qualname__}'.replace('_', '')
                    register(component_class, item['@ClassName'])
            register_production_definition(name, entry)
        else:
            raise ValueError('Each PRODUCTION entry must be a non-empty dict.')


def _class_root(component_class, root_path):
    """The folder a class's module is imported from: root_path when given, else the module's import root."""
    from ..production._runtime import _import_root

    if root_path:
        return os.path.abspath(root_path)
    return _import_root(sys.modules.get(component_class.__module__), component_class.__module__)


def filename_to_module(filename):
    """`pkg/mod.py` -> `pkg.mod` (a relative file name as a dotted module name)."""
    folder, name = os.path.split(filename)
    stem = name.split('.')[0]
    package = folder.replace(os.sep, '.')
    return f'{package}.{stem}' if len(package) > 1 else stem


def guess_path(module, path):
    """The file of `module` seen from the folder `path`; each leading dot past the first goes one folder up."""
    if not module:
        raise ValueError('Module name cannot be empty')
    dots = len(module) - len(module.lstrip('.'))
    module = module[dots:]
    for _ in range(max(dots - 1, 0)):
        path = os.path.dirname(path)
    relative = module[:-3].replace('.', os.sep) + '.py' if module.endswith('.py') else module.replace('.', os.sep) + '.py'
    return os.path.join(path, relative)


def import_module_from_path(module_name, file_path):
    """Imports the file at the absolute `file_path` as `module_name` (left out of sys.modules if it fails)."""
    import importlib.util

    if not os.path.isabs(file_path):
        raise ValueError('The file path must be absolute')
    spec = importlib.util.spec_from_file_location(module_name, file_path)
    if spec is None or spec.loader is None:
        raise ImportError(f'Cannot find module named {module_name} at {file_path}')
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(module_name, None)
        raise
    return module


def dict_to_xml(data):
    from ..production._render import dict_to_xml as render

    return render(data)


def xml_to_dict(xml_string):
    """IoP's xmltodict conversion of a production XML (attributes `@x`, text `#text`, repeated
    elements as lists; `Item` and `Setting` always lists)."""
    import xml.etree.ElementTree as ElementTree

    root = ElementTree.fromstring(xml_string)

    def convert(element):
        data = {f'@{key}': value for key, value in element.attrib.items()}
        children = list(element)
        for child in children:
            value = convert(child)
            if child.tag in data:
                if not isinstance(data[child.tag], list):
                    data[child.tag] = [data[child.tag]]
                data[child.tag].append(value)
            else:
                data[child.tag] = value
        text = (element.text or '').strip()
        if not data:
            return text or None
        if text:
            data['#text'] = text
        return data

    return {root.tag: convert(root)}


def xml_to_json(xml_string):
    """IoP's JSON of a production's XML: the `Production` key becomes the production's name when it has one."""
    def no_none(value):  # an empty element is "" in IoP's JSON, not null
        if isinstance(value, dict):
            return {key: no_none(item) for key, item in value.items()}
        if isinstance(value, list):
            return [no_none(item) for item in value]
        return '' if value is None else value

    data = no_none(xml_to_dict(xml_string))
    if isinstance(data, dict) and isinstance(data.get('Production'), dict):
        data = {data['Production'].get('@Name') or 'Production': data['Production']}
    return json.dumps(data)


_FUNCTIONS = (
    'register_component', 'bind_component', 'unregister_component', 'unbind_component', 'list_bindings', 'list_component_bindings',
    'register_folder', 'register_file', 'register_package', 'migrate', 'explain_migration', 'register_production',
    'register_production_definition', 'register_persistent_message', 'export_production', 'export_production_connections',
    'export_production_queue_info', 'set_classes_settings', 'set_productions_settings', 'dict_to_xml', 'xml_to_json',
    'filename_to_module', 'guess_path', 'import_module_from_path',
)


def _deprecated(name):
    function = globals()[name]

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        warnings.warn(
            f'iop.migration.utils._Utils.{name}() and iop.Utils.{name}() are deprecated; use iop.migration.utils.{name}() '
            'instead. This facade will be removed in v5.0.',
            DeprecationWarning,
            stacklevel=2,
        )
        return function(*args, **kwargs)

    return staticmethod(wrapper)


class _Utils:
    pass


for _name in _FUNCTIONS:
    setattr(_Utils, _name, _deprecated(_name))

__all__ = list(_FUNCTIONS) + ['apply_production_plan', 'xml_to_dict']
