"""Backups of a stored production taken before a plan is applied, and the rollback to one."""
import datetime
import getpass
import json
import socket
from pathlib import Path

from ._plan import ProductionChangePlan, fingerprint
from ._plan_verify import ProductionVerifyResult


def create_backup(backup_dir, plan, current, current_export, connections, queues):
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime('%Y%m%dT%H%M%SZ')
    path = Path(backup_dir) / f'{stamp}-{plan.id[:12]}'
    path.mkdir(parents=True, exist_ok=False)

    def write(name, value):
        (path / name).write_text(json.dumps(value, indent=2, sort_keys=True, default=str) + '\n', encoding='utf-8')

    write('production.json', current_export if current_export is not None else {})
    (path / 'production.xml').write_text(current.to_xml(), encoding='utf-8')
    write('connections.json', connections or {})
    write('queues.json', queues or {})
    plan.save(path / 'plan.json')
    write('metadata.json', {
        'backup_id': path.name, 'created_at': datetime.datetime.now(datetime.timezone.utc).isoformat(), 'user': _user(),
        'host': socket.gethostname(), 'namespace': plan.namespace, 'production': plan.production_name, 'plan_id': plan.id,
        'source_fingerprint': plan.source_fingerprint, 'desired_fingerprint': plan.desired_fingerprint,
    })
    return path


def _user():
    try:
        return getpass.getuser()
    except Exception:
        return ''


def rollback_backup(path, *, director=None, namespace=None, allow_destructive=False, update=True):
    from ._model import Production
    from ._runtime import resolve_director

    folder = Path(path)
    if not allow_destructive:
        raise RuntimeError('Rollback requires allow_destructive=True: it replaces the stored production with the backup.')
    plan_id = ''
    if (folder / 'plan.json').exists():
        plan_id = ProductionChangePlan.load(folder / 'plan.json').id
    chosen = resolve_director(director, namespace)
    if getattr(chosen, 'is_remote', False) is True:
        raise RuntimeError('Remote production rollback is not supported in v1.')
    export = json.loads((folder / 'production.json').read_text(encoding='utf-8'))
    if not export:
        raise RuntimeError(f'The backup {folder} holds no production: none was stored when it was taken. Delete the production instead.')
    restored = Production.from_dict(export)
    try:
        chosen.apply_production_definition(restored.to_dict(), allow_destructive=True, update=update)
        current = Production.from_iris(restored.name, namespace=namespace, director=chosen)
    except Exception as error:
        failure = {'id': 'rollback', 'op_type': 'rollback', 'path': f'production.{restored.name}', 'status': 'failed', 'message': str(error)}
        return ProductionVerifyResult(plan_id, restored.name, (), (failure,), ())
    if fingerprint(current) == fingerprint(restored) or not restored.diff(current).has_changes:
        return ProductionVerifyResult(plan_id, restored.name, ('rollback',), (), ())
    changes = [change.to_dict() for change in restored.diff(current).changes]
    failure = {'id': 'rollback', 'op_type': 'rollback', 'path': f'production.{restored.name}', 'status': 'failed', 'message': 'stored production differs from the backup', 'changes': changes}
    return ProductionVerifyResult(plan_id, restored.name, (), (failure,), ())
