"""CLASSES of a settings.py: every form IoP accepts, turned into class-binding records."""
import ast
import importlib
import inspect
import os
import sys

from iop import BusinessOperation, BusinessProcess, BusinessService, InboundAdapter, Message, OutboundAdapter
from iop._message import is_pydantic_message
from iop.messages.persistent import is_persistent_message_class, register_persistent_message
from iop._components import adapter_type_of
from iop._settings import declared_settings

# What a scanned file's class must derive from (by simple name) to be registered.
_COMPONENT_BASES = frozenset({
    'BusinessOperation', 'BusinessProcess', 'BusinessService', 'DuplexService', 'DuplexProcess', 'DuplexOperation',
    'InboundAdapter', 'OutboundAdapter', 'PollingBusinessService',
})

_KINDS = (
    (BusinessService, 'service'),
    (BusinessProcess, 'process'),
    (BusinessOperation, 'operation'),
    (InboundAdapter, 'inbound_adapter'),
    (OutboundAdapter, 'outbound_adapter'),
)


class EntryError(ValueError):
    """A problem with one entry of the settings file (a ValueError, as IoP raises for a bad entry)."""


def binding_of(cls, name, classpaths):
    kind = next((kind for base, kind in _KINDS if issubclass(cls, base)), None)
    if kind is None:
        raise EntryError(f'{cls.__module__}.{cls.__name__}: No IOP superclass found (it must derive from an iop component class)')
    return {
        'name': name,
        'kind': kind,
        'module': cls.__module__,
        'className': cls.__name__,
        'classpaths': _unique(classpaths),
        'settings': declared_settings(cls),
        'adapterType': adapter_type_of(cls) if kind in ('service', 'operation') else None,
    }


def register_classes(classes, root):
    if not isinstance(classes, dict):
        raise EntryError('CLASSES must be a dict of {registered name: class, module or dict}')
    bindings = []
    for key, value in classes.items():
        entry = f'CLASSES[{key!r}]'
        try:
            bindings.extend(_register_entry(key, value, root))
        except EntryError as error:
            raise EntryError(f'{entry}: {error}') from error
        except Exception as error:
            raise EntryError(f'{entry}: {type(error).__name__}: {error}') from error
    return bindings


def _register_entry(key, value, root):
    if inspect.isclass(value):
        if is_persistent_message_class(value):
            # IoP 4: a PersistentMessage in CLASSES is registered under this IRIS class name; Conveyor
            # keeps messages as JSON, so only the name is recorded (in the worker that loads the class).
            register_persistent_message(value, key)
            return []
        if issubclass(value, Message) or is_pydantic_message(value):
            raise EntryError(
                f'{value.__module__}.{value.__name__} is a message class and cannot be registered in CLASSES. '
                f'Use SCHEMAS = [{value.__name__}] if you need DTL support.'
            )
        return [binding_of(value, key, [root])]
    if inspect.ismodule(value):
        path = getattr(value, '__file__', None)
        if not path:
            raise EntryError(f'module {value.__name__} has no source file to scan')
        return _register_file(path, root, key, [root])
    if isinstance(value, dict):
        if 'path' not in value:
            raise EntryError(f'Invalid value for {key}: a dict needs a "path" key')
        path = _absolute(value['path'], root)
        if 'module' in value and 'class' in value:
            cls = _import_class(value['module'], value['class'], path)
            return [binding_of(cls, key, [root, path])]
        if 'package' in value:
            folder = os.path.join(path, *value['package'].split('.'))
            return _register_folder(folder, root, key)
        if 'file' in value:
            return _register_file(os.path.join(path, value['file']), root, key, [root, path])
        return _register_folder(path, root, key)
    raise EntryError(f'Invalid value for {key}: expected a class, a module or a dict, got {type(value).__name__}')


def _register_folder(folder, root, key):
    if not os.path.isdir(folder):
        raise EntryError(f'folder {folder} does not exist')
    bindings = []
    for name in sorted(os.listdir(folder)):
        if name.endswith('.py'):
            bindings.extend(_register_file(os.path.join(folder, name), root, key, [root, folder]))
    return bindings


def _register_file(path, root, key, classpaths):
    """IoP's file scan: classes with exactly one base named like a component class, registered as
    `<key>.<module>.<Class>` with every underscore removed."""
    if not os.path.isfile(path):
        raise EntryError(f'file {path} does not exist')
    with open(path, encoding='utf-8') as source:
        tree = ast.parse(source.read(), filename=path)
    module_name = os.path.splitext(os.path.basename(path))[0]
    folder = os.path.dirname(os.path.abspath(path))
    bindings = []
    for node in tree.body:
        if not isinstance(node, ast.ClassDef) or len(node.bases) != 1:
            continue
        base = node.bases[0]
        base_name = base.id if isinstance(base, ast.Name) else base.attr if isinstance(base, ast.Attribute) else None
        if base_name not in _COMPONENT_BASES:
            continue
        cls = _import_class(module_name, node.name, folder)
        name = f'{key}.{module_name}.{node.name}'.replace('_', '')
        bindings.append(binding_of(cls, name, classpaths + [folder]))
    return bindings


def _import_class(module_name, class_name, path):
    if path not in sys.path:
        sys.path.insert(0, path)
    module = importlib.import_module(module_name)
    try:
        return getattr(module, class_name)
    except AttributeError:
        raise EntryError(f'module {module_name} has no class {class_name}') from None


def _absolute(path, root):
    return os.path.normpath(path if os.path.isabs(path) else os.path.join(root, path))


def _unique(paths):
    seen = []
    for path in paths:
        normalized = os.path.normpath(os.path.abspath(path))
        if normalized not in seen:
            seen.append(normalized)
    return seen
