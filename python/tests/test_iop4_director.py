import json
import os
import shutil
import socketserver
import tempfile
import threading
import unittest
from http.server import BaseHTTPRequestHandler
from unittest import mock
from urllib.parse import parse_qs, urlsplit

from iop import Production
from iop.runtime import director as director_functions
from iop.runtime._http import HTTPError
from iop.runtime.local import _LocalDirector
from iop.runtime.remote import _RemoteDirector, get_remote_settings

from tests.iop4_fixtures.components import OrderOperation, OrderService


class FakeServer:
    """The edge of these tests: a stand-in of Conveyor's /api/iop routes on a unix socket (real HTTP)."""

    def __init__(self, folder):
        self.requests = []
        self.definitions = {}
        self.status = {'production': '', 'status': 'stopped'}
        self.structured = None  # what GET /definition answers (None: the route is absent)
        self.refuse_apply = None  # the error POST /production/apply answers (None: it writes)
        self.path = os.path.join(folder, 'conveyor.sock')
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def address_string(self):
                return 'local'

            def _reply(self, status, value):
                data = json.dumps(value).encode('utf-8')
                self.send_response(status)
                self.send_header('Content-Type', 'application/json')
                self.send_header('Content-Length', str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _handle(self):
                url = urlsplit(self.path)
                length = int(self.headers.get('Content-Length') or 0)
                body = json.loads(self.rfile.read(length)) if length else None
                query = {k: v[0] for k, v in parse_qs(url.query).items()}
                server.requests.append((self.command, url.path, query, body))
                status, value = server.route(self.command, url.path[len('/api/iop'):], query, body)
                self._reply(status, value)

            do_GET = do_POST = do_PUT = do_DELETE = _handle

        class UnixServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
            daemon_threads = True

        self.httpd = UnixServer(self.path, Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()

    def route(self, method, path, query, body):
        if (method, path) == ('GET', '/status'):
            return 200, self.status
        if (method, path) == ('GET', '/export'):
            name = query.get('production')
            if name not in self.definitions:
                return 500, {'error': f'Production {name} does not exist'}
            return 200, self.definitions[name]
        if (method, path) == ('GET', '/definition') and self.structured is not None:
            return 200, self.structured
        if (method, path) == ('GET', '/connections'):
            return 200, {'production': query.get('production'), 'items': [], 'warnings': []}
        if (method, path) == ('GET', '/queues'):
            return 200, {'production': query.get('production'), 'items': [{'item': 'OrderOperation', 'queue_name': 'OrderOperation', 'exists': 1, 'count': 2}], 'warnings': []}
        if (method, path) == ('POST', '/production/apply'):
            if self.refuse_apply:
                return 409, {'error': self.refuse_apply}
            definition = body['definition']['Production']
            self.definitions[definition['@Name']] = {'Production': definition}
            return 200, {'production': definition['@Name'], 'updated_runtime': self.status['production'] == definition['@Name']}
        if (method, path) == ('POST', '/component/restart'):
            return 200, {'status': 'restarted', 'component': body['component']}
        if (method, path) == ('GET', '/bindings'):
            return 200, [{'class': 'Python.X', 'used': 0, 'used_by': []}]
        if (method, path) == ('DELETE', '/binding'):
            return 200, {'status': 'unbound', 'class': query['class']}
        if (method, path) == ('POST', '/test'):
            return 200, {'classname': 'tests.iop4_fixtures.components.Receipt', 'body': '{"text":"ok"}', 'truncated': False}
        if (method, path) == ('PUT', '/migrate'):
            return 200, {'output': ['Migrated']}
        return 404, {'error': f'no route {method} {path}'}


def demo():
    prod = Production('Demo.Orders', testing_enabled=True)
    service = prod.service('OrderService', OrderService)
    operation = prod.operation('OrderOperation', OrderOperation, settings={'Factor': 3})
    service.connect('Output', operation)
    return prod


class LocalDirectorTest(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.mkdtemp()
        self.server = FakeServer(self.folder)
        self.director = _LocalDirector(home=self.folder, namespace='DEMO')
        self.server.definitions['Demo.Orders'] = {'Production': demo().to_dict()['Demo.Orders']}

    def tearDown(self):
        self.server.close()
        shutil.rmtree(self.folder)

    def test_from_iris_reads_the_stored_production(self):
        prod = Production.from_iris('Demo.Orders', director=self.director)
        self.assertFalse(demo().diff(prod).has_changes)
        self.assertEqual(self.server.requests[0][:3], ('GET', '/api/iop/export', {'namespace': 'DEMO', 'production': 'Demo.Orders'}))

    def test_plan_apply_verify_and_rollback(self):
        desired = demo().with_director(self.director)
        desired.item('OrderOperation').host_setting('Factor', 9)
        desired.item('OrderService').disable()
        plan = desired.plan()
        self.assertEqual([op.op_type for op in plan.operations], ['set_setting', 'set_item_field'])
        backups = os.path.join(self.folder, 'backups')
        result = desired.apply(plan, backup_dir=backups)
        self.assertEqual((result.applied, result.skipped, result.failed), (2, 0, 0))
        self.assertEqual(sorted(os.listdir(result.backup_path)), ['connections.json', 'metadata.json', 'plan.json', 'production.json', 'production.xml', 'queues.json'])
        stored = Production.from_dict(self.server.definitions['Demo.Orders'])
        self.assertEqual(stored.item('OrderOperation').host_settings['Factor'], '9')
        self.assertTrue(desired.verify(plan).success)
        with self.assertRaisesRegex(RuntimeError, 'changed since the plan was created'):
            desired.apply(plan, backup_dir=backups)
        with self.assertRaisesRegex(RuntimeError, 'allow_destructive=True'):
            Production.rollback_backup(result.backup_path, director=self.director)
        rolled = Production.rollback_backup(result.backup_path, director=self.director, allow_destructive=True)
        self.assertEqual(rolled.converged_operations, ('rollback',))
        self.assertEqual(Production.from_dict(self.server.definitions['Demo.Orders']).item('OrderOperation').host_settings['Factor'], '3')

    def test_the_write_carries_the_servers_fingerprint_of_what_was_stored(self):
        import hashlib

        self.server.structured = {'name': 'Demo.Orders', 'items': [{'name': 'é', 'pool_size': 1}]}
        expected = hashlib.sha256(json.dumps(self.server.structured, sort_keys=True, separators=(',', ':'), ensure_ascii=False).encode()).hexdigest()
        desired = demo().with_director(self.director)
        desired.item('OrderOperation').host_setting('Factor', 4)
        result = desired.apply(desired.plan(), backup_dir=os.path.join(self.folder, 'b'))
        self.assertEqual(result.applied, 1)
        write = next(r for r in self.server.requests if r[1] == '/api/iop/production/apply')
        self.assertEqual(write[3]['source_fingerprint'], expected)

    def test_destructive_operations_are_skipped_unless_allowed(self):
        desired = demo().with_director(self.director)
        desired.delete_component('OrderService')
        plan = desired.plan()
        result = desired.apply(plan, backup_dir=os.path.join(self.folder, 'b'))
        self.assertEqual((result.applied, result.skipped), (0, len(plan.operations)))
        self.assertEqual(result.operations[0]['message'], 'requires allow_destructive=True')
        result = desired.apply(plan, backup_dir=os.path.join(self.folder, 'b'), allow_destructive=True)
        self.assertEqual(result.skipped, 0)
        self.assertNotIn('OrderService', [item.name for item in Production.from_dict(self.server.definitions['Demo.Orders']).items])

    def test_a_failing_operation_is_reported_and_the_others_applied_in_one_write(self):
        desired = demo().with_director(self.director)
        desired.item('OrderOperation').host_setting('Factor', 9)
        desired.item('OrderService').disable()
        plan = desired.plan()
        # A production without the service applies the same plan: its set_item_field cannot be done (as when
        # IRIS cannot find the item), the setting is applied all the same, as IoP does.
        other = demo().with_director(self.director)
        other.item('OrderOperation').host_setting('Factor', 9)
        other.delete_component('OrderService')
        result = other.apply(plan, backup_dir=os.path.join(self.folder, 'b'))
        self.assertEqual((result.applied, result.skipped, result.failed, result.success), (1, 0, 1, False))
        failed = next(op for op in result.operations if op['status'] == 'failed')
        self.assertEqual((failed['op_type'], failed['message']), ('set_item_field', 'ValueError: Production item does not exist: OrderService'))
        self.assertEqual(sum(1 for r in self.server.requests if r[1] == '/api/iop/production/apply'), 1)
        stored = Production.from_dict(self.server.definitions['Demo.Orders'])
        self.assertEqual((stored.item('OrderOperation').host_settings['Factor'], stored.item('OrderService').enabled), ('9', 'true'))
        self.assertIn('  operations:\n    0001-set_setting set_setting: applied\n    0002-set_item_field set_item_field: failed', result.to_text())

    def test_a_refused_write_raises_and_reports_nothing_applied(self):
        self.server.refuse_apply = 'ERROR #DEFINITION_CHANGED: Production Demo.Orders changed since the plan was made'
        desired = demo().with_director(self.director)
        desired.item('OrderOperation').host_setting('Factor', 9)
        with self.assertRaisesRegex(RuntimeError, 'Cannot apply production plan .*changed since the plan was made'):
            desired.apply(desired.plan(), backup_dir=os.path.join(self.folder, 'b'))
        self.assertEqual(Production.from_dict(self.server.definitions['Demo.Orders']).item('OrderOperation').host_settings['Factor'], '3')

    def test_the_director_applies_a_plan_with_the_plans_own_values(self):
        desired = demo().with_director(self.director)
        desired.item('OrderOperation').host_setting('Factor', 9)
        desired.item('OrderService').disable()
        desired.operation('Audit', OrderOperation, settings={'Factor': 1}, pool_size=2)
        plan = desired.plan()
        answer = self.director.apply_production_plan(plan.to_dict())
        self.assertEqual(answer['production'], 'Demo.Orders')
        self.assertEqual(sorted(op.op_type for op in plan.operations), ['add_item', 'set_item_field', 'set_setting'])
        self.assertEqual([(op['id'], op['status']) for op in answer['operations']], [(op.id, 'applied') for op in plan.operations])
        self.assertTrue(desired.verify(plan).success)
        audit = Production.from_dict(self.server.definitions['Demo.Orders']).item('Audit')
        self.assertEqual((audit.pool_size, audit.host_settings['Factor']), ('2', '1'))
        # A deletion needs allow_destructive: skipped without it, nothing written.
        shrunk = Production.from_dict(self.server.definitions['Demo.Orders']).with_director(self.director)
        shrunk.delete_component('Audit')
        plan = shrunk.plan()
        writes = sum(1 for r in self.server.requests if r[1] == '/api/iop/production/apply')
        answer = self.director.apply_production_plan(plan.to_dict())
        self.assertEqual([(op['op_type'], op['status']) for op in answer['operations']], [('delete_item', 'skipped')])
        self.assertEqual(sum(1 for r in self.server.requests if r[1] == '/api/iop/production/apply'), writes)
        answer = self.director.apply_production_plan(plan.to_dict(), allow_destructive=True)
        self.assertEqual(answer['operations'][0]['status'], 'applied')
        self.assertNotIn('Audit', [item.name for item in Production.from_dict(self.server.definitions['Demo.Orders']).items])
        # A refused write is IoP's `error` in the answer.
        self.server.refuse_apply = 'ERROR #DEFINITION_CHANGED: changed'
        answer = self.director.apply_production_plan(desired.plan().to_dict())
        self.assertIn('DEFINITION_CHANGED', answer['error'])

    def test_runtime_helpers_are_scoped_to_the_current_production(self):
        prod = demo().with_director(self.director)
        with self.assertRaisesRegex(RuntimeError, "Cannot restart component 'OrderOperation' in production 'Demo.Orders'"):
            prod.restart_component('OrderOperation')
        self.server.status = {'production': 'Demo.Orders', 'status': 'running'}
        prod.item('OrderOperation').restart()
        self.assertEqual(self.server.requests[-1][3], {'component': 'OrderOperation'})
        self.assertEqual(prod.queue()['OrderOperation']['count'], 2)
        reply = prod.test('OrderService.Output', classname='tests.iop4_fixtures.components.Order', body={'order_id': 'a'})
        self.assertEqual(reply.text, 'ok')
        self.assertEqual(self.server.requests[-1][3]['target'], 'OrderOperation')

    def test_bindings_and_server_errors(self):
        self.assertEqual(self.director.list_bindings(unused_only=True)[0]['class'], 'Python.X')
        self.assertEqual(self.server.requests[-1][2], {'namespace': 'DEMO', 'unused': '1'})
        self.assertEqual(self.director.unbind_component('Python.X'), {'status': 'unbound', 'class': 'Python.X'})
        with self.assertRaises(ValueError):
            self.director.unbind_component('')
        with self.assertRaises(HTTPError) as raised:
            self.director.export_production('Missing')
        self.assertEqual(raised.exception.status, 500)
        self.assertIn('Production Missing does not exist', str(raised.exception))

    def test_an_absent_server_is_a_clear_error(self):
        absent = _LocalDirector(home=os.path.join(self.folder, 'nowhere'))
        with self.assertRaisesRegex(ConnectionError, 'Cannot reach the Conveyor server'):
            absent.status_production()


class RemoteDirectorTest(unittest.TestCase):
    def test_a_plan_is_not_applied_remotely(self):
        with self.assertRaisesRegex(RuntimeError, '^Remote production plan apply is not supported in v1.'):
            _RemoteDirector({'url': 'http://127.0.0.1:9'}).apply_production_plan({'production': 'P', 'operations': []})


class RemoteSettingsTest(unittest.TestCase):
    def test_iop_url_and_settings_files_switch_to_remote(self):
        with mock.patch.dict(os.environ, {'IOP_URL': 'http://h:1', 'IOP_USERNAME': 'u', 'IOP_NAMESPACE': 'NS'}, clear=False):
            settings = get_remote_settings()
            self.assertEqual((settings['url'], settings['username'], settings['namespace']), ('http://h:1', 'u', 'NS'))
            self.assertIsInstance(director_functions.default_director(), _RemoteDirector)
        with tempfile.NamedTemporaryFile('w', suffix='.py', delete=False) as file:
            file.write('import os\nREMOTE_SETTINGS = {"url": "https://x", "namespace": "N"}\nraise SystemExit("never executed")\n')
        try:
            with mock.patch.dict(os.environ, {'IOP_URL': ''}, clear=False):
                self.assertEqual(get_remote_settings(file.name), {'url': 'https://x', 'namespace': 'N'})
        finally:
            os.unlink(file.name)

    def test_remote_apply_is_refused_like_iop(self):
        prod = demo().with_director(_RemoteDirector({'url': 'http://127.0.0.1:9'}))
        with self.assertRaisesRegex(RuntimeError, 'not supported in v1'):
            prod.apply(mock.Mock(operations=()))


class MigrationTest(unittest.TestCase):
    def test_settings_files_may_hold_production_objects(self):
        from conveyor_migrate.script import read_settings

        folder = tempfile.mkdtemp()
        try:
            with open(os.path.join(folder, 'settings.py'), 'w') as out:
                out.write(
                    'from iop import Production\n'
                    'from tests.iop4_fixtures.components import OrderService, OrderOperation\n'
                    'prod = Production("Demo.Orders")\n'
                    's = prod.service("OrderService", OrderService)\n'
                    'o = prod.operation("OrderOperation", OrderOperation)\n'
                    'o2 = prod.operation("Other", OrderOperation, settings={"Nope": 1})\n'
                    's.connect("Output", o)\n'
                    'PRODUCTIONS = [prod, {"Legacy.Prod": {"Item": []}}]\n'
                )
            with self.assertWarns(Warning):
                document = read_settings(os.path.join(folder, 'settings.py'))
            self.assertEqual([c['name'] for c in document['classes']], ['Python.tests.iop4fixtures.components.OrderService', 'Python.tests.iop4fixtures.components.OrderOperation'])
            self.assertEqual([p['name'] for p in document['productions']], ['Demo.Orders', 'Legacy.Prod'])
            self.assertEqual(document['productions'][0]['items'][0]['settings'], [{'target': 'Host', 'name': 'Output', 'value': 'OrderOperation'}])
            self.assertEqual(document['validation'], ['Demo.Orders: setting items.Other.settings.Host.Nope: Unknown setting name.'])
            from iop import ProductionValidationError

            with self.assertRaises(Exception) as raised:
                read_settings(os.path.join(folder, 'settings.py'), strict_production_validation=True)
            self.assertIsInstance(raised.exception, ProductionValidationError)
        finally:
            shutil.rmtree(folder)


if __name__ == '__main__':
    unittest.main()
