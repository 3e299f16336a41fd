"""Runs the Python of a DTL transform (language="python", Python <code>) for the engine.

The worker host (conveyor_host) answers a `dtl` frame {mode, code, imports, source, target, aux,
locals} with `run_dtl_python`: `source` / `target` offer the IoP virtual-document calls
(GetValueAt, SetValueAt) over the JSON documents. The code is compiled under the file name
`<dtl python>`, so a failure names the line of the action's code that raised.
"""
import re

CODE_FILE = '<dtl python>'
IMPORTS_FILE = '<dtl imports>'
# Names the engine gives the code; they are not locals of the transform.
_DOCUMENTS = ('source', 'target', 'aux')


def _steps(path):
    out = []
    for part in path.split('.'):
        m = re.match(r'^([A-Za-z_%][A-Za-z0-9_]*)?((?:\([^)]*\))*)$', part)
        if not m:
            raise ValueError('bad path ' + path)
        if m.group(1):
            out.append(m.group(1))
        for ix in re.findall(r'\(([^)]*)\)', m.group(2)):
            out.append(int(ix) if ix.isdigit() else ix.strip('"'))
    return out

class Document:
    def __init__(self, data):
        self.data = data
    def GetValueAt(self, path):
        node = self.data
        for s in _steps(path):
            if isinstance(s, int) and isinstance(node, list):
                node = node[s - 1] if 0 < s <= len(node) else None
            elif isinstance(node, dict):
                node = node.get(str(s))
            else:
                node = None
            if node is None:
                return ''
        return node
    def SetValueAt(self, value, path, action='set', key=''):
        steps = _steps(path)
        node = self.data
        for s in steps[:-1]:
            node = node.setdefault(str(s), {})
        last = str(steps[-1])
        if action == 'append':
            node.setdefault(last, []).append(value)
        else:
            node[last] = value
        return 1

def run_dtl_python(request):
    """`eval`: {'value': the expression's value}; `exec`: {'target': ..., 'locals': ...} after the code ran."""
    scope = dict(request['locals'])
    scope.update(source=Document(request['source']), target=Document(request['target']), aux=request['aux'])
    if request['imports'].strip():
        exec(compile(request['imports'], IMPORTS_FILE, 'exec'), scope)
    if request['mode'] == 'eval':
        return {'value': eval(compile(request['code'], CODE_FILE, 'eval'), scope)}
    exec(compile(request['code'], CODE_FILE, 'exec'), scope)
    target = scope['target']
    return {
        'target': target.data if isinstance(target, Document) else target,
        'locals': {k: v for k, v in scope.items() if k in request['locals'] or (k not in _DOCUMENTS and not k.startswith('__') and isinstance(v, (str, int, float, bool, list, dict)))},
    }
