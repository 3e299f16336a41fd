"""Routes read from the Python source of a stored production's items: `self.send_request_*(target, …)`
calls whose target is a literal or a `self.<setting>` attribute become `inferred` edges (interaction
`sync` or `async`), or tell an existing edge its interaction. The source is found from the item's
`%module` / `%classname` / `%classpaths` Host settings or the server's class metadata, under those
classpaths and the current folder; without them, a `Python.<module>.<Class>` item the server flags `iop`
is looked up by class name among the `.py` files there. An item whose class is ObjectScript (a `.cls`
file there declares it and does not extend `IOP.*`) has its `..SendRequestSync("X")` /
`..SendRequestAsync(..Setting)` calls read instead."""
import ast
import os
import re

_SKIPPED_FOLDERS = {'.git', '.hg', '.venv', 'venv', '__pycache__', 'node_modules', 'build', 'dist', '.tox', '.mypy_cache', '.pytest_cache'}
_OS_STRING = r'"(?:""|[^"])*"'
_OS_CLASS = re.compile(r'(?im)^\s*Class\s+([%A-Za-z][\w%.]*)(?:\s+Extends\s+(\([^)]*\)|[%A-Za-z][\w%.]*))?')
_OS_SEND = re.compile(r'(?i)\.\.(SendRequest(?:Sync|Async|AsyncNG)?)\s*\(\s*(' + _OS_STRING + r'|\.\.[%A-Za-z][\w%]*)')
_OS_PROPERTY_DEFAULT = re.compile(r'(?im)^\s*Property\s+([%A-Za-z][\w%]*)\b[^\n]*\bInitialExpression\s*=\s*(' + _OS_STRING + ')')

_SEND_METHODS = {
    'send_request_sync': 'sync', 'SendRequestSync': 'sync', 'send_multi_request_sync': 'sync',
    'send_request_async': 'async', 'SendRequestAsync': 'async', 'send_request_async_ng': 'async',
    'send_generator_request': 'sync',
}


def _roots(ref):
    host = ref.host_settings
    meta = ref.runtime_metadata or {}
    roots = []
    for text in (host.get('%classpaths', ''), meta.get('classpaths', '')):
        if isinstance(text, list):
            roots.extend(text)
        else:
            roots.extend(part.strip() for part in str(text or '').replace('|', os.pathsep).split(os.pathsep) if part.strip())
    roots.append(os.getcwd())
    return list(dict.fromkeys(os.path.abspath(os.path.expanduser(root)) for root in roots))


def _files(roots, suffix, cache):
    """(root, path) of the files ending in suffix under the roots, each folder listed once per from_dict."""
    found = []
    for root in roots:
        key = (root, suffix)
        if key not in cache:
            listing = []
            for folder, subfolders, names in os.walk(root):
                subfolders[:] = sorted(name for name in subfolders if name not in _SKIPPED_FOLDERS)
                listing.extend(os.path.join(folder, name) for name in sorted(names) if name.endswith(suffix))
            cache[key] = listing
        found.extend((root, path) for path in cache[key])
    return found


def _objectscript_class(class_name, roots, cache):
    """(text, extends IOP.*) of the first `.cls` file under the roots declaring class_name, or None."""
    for root in roots:
        key = ('classes', root)
        if key not in cache:
            declared = {}
            for _, path in _files([root], '.cls', cache):
                try:
                    with open(path, encoding='utf-8', errors='replace') as source:
                        text = source.read()
                except OSError:
                    continue
                match = _OS_CLASS.search(text)
                if match:
                    supers = re.split(r'[\s(),]+', match.group(2) or '')
                    declared.setdefault(match.group(1), (text, any(name.startswith('IOP.') for name in supers)))
            cache[key] = declared
        if class_name in cache[key]:
            return cache[key][class_name]
    return None


def _objectscript_defaults(text):
    return {name: value[1:-1].replace('""', '"') for name, value in _OS_PROPERTY_DEFAULT.findall(text)}


def _truthy(value):
    return value is True or str(value or '').strip().lower() in ('1', 'true', 'yes', 'on')


def _python_class_by_name(class_name, roots, cache):
    """The `.py` file under the roots defining `Python.<module>.<Class>`'s class, matched on its module path."""
    parts = [part for part in class_name.split('.') if part]
    if parts and parts[0] == 'Python':
        parts = parts[1:]
    if not parts:
        return None
    wanted_module = '.'.join(parts[:-1])
    for root, path in _files(roots, '.py', cache):
        module = '.'.join(part for part in os.path.splitext(os.path.relpath(path, root))[0].split(os.sep) if part != '__init__')
        if wanted_module and not (module == wanted_module or module.endswith('.' + wanted_module) or wanted_module.endswith('.' + module)):
            continue
        node = _class_node(path, parts[-1])
        if node is not None:
            return path, parts[-1]
    return None


def _source_of(ref, roots, defaults=None):
    host = ref.host_settings
    meta = ref.runtime_metadata or {}
    defaults = defaults or {}
    module = host.get('%module') or meta.get('module') or defaults.get('%module')
    class_name = host.get('%classname') or meta.get('classname') or defaults.get('%classname')
    if not module or not class_name:
        return None
    relative = module.replace('.', os.sep)
    for folder in roots:
        for candidate in (os.path.join(folder, relative + '.py'), os.path.join(folder, relative, '__init__.py')):
            if os.path.isfile(candidate):
                return candidate, class_name
    return None


def _class_node(path, class_name):
    try:
        with open(path, encoding='utf-8') as source:
            tree = ast.parse(source.read(), filename=path)
    except (OSError, SyntaxError, ValueError):
        return None
    return next((node for node in ast.walk(tree) if isinstance(node, ast.ClassDef) and node.name == class_name), None)


def _literal_defaults(class_node):
    """Attribute name -> literal item name, from `X = "A"`, `X = target("A")` and `self.X = "A"`."""
    found = {}

    def literal(value):
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            return value.value
        if isinstance(value, ast.Call) and value.args and isinstance(value.args[0], ast.Constant) and isinstance(value.args[0].value, str):
            return value.args[0].value
        return None

    for node in class_node.body:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name) and literal(node.value):
                    found.setdefault(target.id, literal(node.value))
    for node in ast.walk(class_node):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == 'self' and literal(node.value):
                    found.setdefault(target.attr, literal(node.value))
    return found


def _send_calls(class_node):
    """(method, target expression) of each `self.send_request_*` call."""
    for node in ast.walk(class_node):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        if node.func.attr not in _SEND_METHODS or not isinstance(node.func.value, ast.Name) or node.func.value.id != 'self':
            continue
        target = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == 'target'), None)
        if target is not None:
            yield node.func.attr, target


def _python_connections(ref, located):
    class_node = _class_node(*located)
    if class_node is None:
        return []
    defaults = _literal_defaults(class_node)
    found = []
    for method, expression in _send_calls(class_node):
        if isinstance(expression, ast.Constant) and isinstance(expression.value, str):
            targets, detail = [expression.value], f'{method} literal'
        elif isinstance(expression, ast.Attribute) and isinstance(expression.value, ast.Name) and expression.value.id == 'self':
            setting = expression.attr
            targets = _split(ref.host_settings.get(setting)) or _split(defaults.get(setting))
            detail = f'{method} self.{setting}'
        else:
            continue
        found.extend((target, 'Python source', detail, _SEND_METHODS[method]) for target in targets)
    return found


def _objectscript_connections(ref, text):
    defaults = _objectscript_defaults(text)
    found = []
    for method, expression in _OS_SEND.findall(text):
        if expression.startswith('"'):
            targets, detail = [expression[1:-1].replace('""', '"')], f'{method} literal'
        else:
            setting = expression[2:]
            targets = _split(ref.host_settings.get(setting)) or _split(defaults.get(setting))
            detail = f'{method} {expression}'
        lowered = method.lower()
        interaction = 'async' if 'async' in lowered else 'sync' if 'sync' in lowered else 'request'
        found.extend((target, 'ObjectScript source', detail, interaction) for target in targets)
    return found


def _split(value):
    return [part.strip() for part in str(value or '').split(',') if part.strip()]


def _connections_of(ref, cache):
    """(target, source label, detail, interaction) of each request the item's source code sends."""
    roots = _roots(ref)
    objectscript = _objectscript_class(ref.class_name, roots, cache) if ref.class_name else None
    if objectscript is not None and not objectscript[1]:
        return _objectscript_connections(ref, objectscript[0])
    located = _source_of(ref, roots, _objectscript_defaults(objectscript[0]) if objectscript else None)
    if located is None and (objectscript is not None or _truthy((ref.runtime_metadata or {}).get('iop'))) \
            and str(ref.class_name).startswith('Python.'):
        located = _python_class_by_name(ref.class_name, roots, cache)
    return _python_connections(ref, located) if located else []


def infer_source_edges(production):
    from ._graph import GraphEdge

    names = {item.name for item in production.items}
    cache = {}
    for ref in production.items:
        seen = set()
        for target, source, detail, interaction in _connections_of(ref, cache):
            if target not in names or (target, detail, interaction) in seen:
                continue
            seen.add((target, detail, interaction))
            existing = [i for i, edge in enumerate(production._edges) if edge.source_item == ref.name and edge.target == target]
            if existing:
                # a known route only learns its interaction, and only when it had none
                if interaction == 'request':
                    continue
                for index in existing:
                    edge = production._edges[index]
                    if edge.interaction not in ('', 'request', 'unknown'):
                        continue
                    metadata = dict(edge.metadata)
                    metadata.setdefault('source', source)
                    metadata.setdefault('detail', detail)
                    production._edges[index] = GraphEdge(edge.source_item, edge.source_target_setting, edge.target, edge.origin, interaction, metadata)
                continue
            production._edges.append(GraphEdge(ref.name, '', target, 'inferred', interaction, {'source': source, 'detail': detail}))
