"""Routes read from the Python source of a stored production's items: `self.send_request_*(target, …)`
calls whose target is a literal or a `self.<setting>` attribute become `inferred` edges (interaction
`sync` or `async`), or tell an existing edge its interaction. The source is found from the item's
`%module` / `%classname` / `%classpaths` Host settings or the server's class metadata, under those
classpaths and the current folder."""
import ast
import os

_SEND_METHODS = {
    'send_request_sync': 'sync', 'SendRequestSync': 'sync', 'send_multi_request_sync': 'sync',
    'send_request_async': 'async', 'SendRequestAsync': 'async', 'send_request_async_ng': 'async',
    'send_generator_request': 'sync',
}


def _source_of(ref):
    host = ref.host_settings
    meta = ref.runtime_metadata or {}
    module = host.get('%module') or meta.get('module')
    class_name = host.get('%classname') or meta.get('classname')
    if not module or not class_name:
        return None
    classpaths = []
    for text in (host.get('%classpaths', ''), meta.get('classpaths', '')):
        if isinstance(text, list):
            classpaths.extend(text)
        else:
            classpaths.extend(part for part in str(text or '').replace('|', os.pathsep).split(os.pathsep) if part.strip())
    classpaths.append(os.getcwd())
    relative = module.replace('.', os.sep)
    for folder in classpaths:
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


def infer_source_edges(production):
    from ._graph import GraphEdge

    names = {item.name for item in production.items}
    for ref in production.items:
        located = _source_of(ref)
        if located is None:
            continue
        class_node = _class_node(*located)
        if class_node is None:
            continue
        defaults = _literal_defaults(class_node)
        for method, expression in _send_calls(class_node):
            setting = ''
            if isinstance(expression, ast.Constant) and isinstance(expression.value, str):
                target, detail = expression.value, f'{method} literal'
            elif isinstance(expression, ast.Attribute) and isinstance(expression.value, ast.Name) and expression.value.id == 'self':
                setting = expression.attr
                target = ref.host_settings.get(setting) or defaults.get(setting)
                detail = f'{method} self.{setting}'
            else:
                continue
            if not target or target not in names:
                continue
            interaction = _SEND_METHODS[method]
            existing = [i for i, edge in enumerate(production._edges) if edge.source_item == ref.name and edge.target == target]
            if existing:
                for index in existing:
                    edge = production._edges[index]
                    production._edges[index] = GraphEdge(edge.source_item, edge.source_target_setting, edge.target, edge.origin, interaction, dict(edge.metadata))
                continue
            production._edges.append(GraphEdge(ref.name, '', target, 'inferred', interaction, {'source': 'Python source', 'detail': detail}))
