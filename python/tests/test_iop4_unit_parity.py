"""Behaviour the IoP 4.1.1 unit suite expects of the Production DSL (graph, Mermaid, rendering, source inference)."""
import os
import tempfile
import unittest

from iop import Production


def _export(*items):
    return {'Demo.Production': {'Item': list(items)}}


class MermaidEdgesTest(unittest.TestCase):
    def test_each_edge_is_its_own_arrow_with_pipe_separated_label(self):
        prod = Production.from_dict(
            _export(
                {'@Name': 'In', '@ClassName': 'Demo.In', 'Setting': {'@Target': 'Host', '@Name': 'TargetConfigName', '#text': 'Out'}},
                {'@Name': 'Out', '@ClassName': 'Demo.Out'},
            ),
            connections={'items': [{'item': 'In', 'connections': ['Out']}, {'item': 'Out', 'connections': [], 'warnings': ['w1']}]},
        )
        text = prod.to_mermaid()
        self.assertIn('node_In -- "TargetConfigName | runtime" --> node_Out', text)
        self.assertIn('  %% Warnings:\n  %% - Out: w1\n', text)


class HostSettingFallbackTest(unittest.TestCase):
    def test_failed_discovery_gives_no_reason(self):
        prod = Production.from_dict(
            _export(
                {'@Name': 'In', '@ClassName': 'Demo.In', 'Setting': {'@Target': 'Host', '@Name': 'Output', '#text': 'Out'}},
                {'@Name': 'Out', '@ClassName': 'Demo.Out'},
            ),
            connections={'items': [{'item': 'In', 'warnings': ['boom']}]},
        )
        edge = prod.graph().to_dict()['edges'][0]
        self.assertEqual(edge['metadata'], {'source': 'Host setting fallback'})

    def test_discovered_item_only_keeps_target_config_settings(self):
        prod = Production.from_dict(
            _export(
                {'@Name': 'In', '@ClassName': 'Demo.In', 'Setting': [
                    {'@Target': 'Host', '@Name': 'TargetConfigName', '#text': 'A'},
                    {'@Target': 'Host', '@Name': 'Archive', '#text': 'B'},
                ]},
                {'@Name': 'A', '@ClassName': 'Demo.A'}, {'@Name': 'B', '@ClassName': 'Demo.B'}, {'@Name': 'C', '@ClassName': 'Demo.C'},
            ),
            connections={'items': [{'item': 'In', 'connections': ['C']}]},
        )
        edges = {(e['source_target_setting'], e['target']): e for e in prod.graph().to_dict()['edges']}
        self.assertEqual(sorted(edges), [('', 'C'), ('TargetConfigName', 'A')])
        self.assertEqual(edges[('TargetConfigName', 'A')]['metadata']['reason'], 'runtime discovery did not report this target setting')


class ToClassTest(unittest.TestCase):
    def test_string_python_proxy_item_gets_a_todo(self):
        text = Production.from_dict(_export({'@Name': 'FileInput', '@ClassName': 'Python.demo.FileService'})).to_class()
        self.assertIn('# TODO: replace this proxy class name with the Python class object', text)
        self.assertNotIn('proxy class name', Production.from_dict(_export({'@Name': 'X', '@ClassName': 'Demo.X'})).to_class())


if __name__ == '__main__':
    unittest.main()


class SourceInferenceTest(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.addCleanup(self.folder.cleanup)
        self.cwd = os.getcwd()
        os.chdir(self.folder.name)
        self.addCleanup(os.chdir, self.cwd)

    def write(self, name, text):
        with open(os.path.join(self.folder.name, name), 'w', encoding='utf-8') as file:
            file.write(text)

    def edges(self, prod):
        return {(e['source_item'], e['target']): e for e in prod.graph().to_dict()['edges']}

    def test_objectscript_class_sends_literal_and_property_targets(self):
        self.write('Router.cls', 'Class Demo.Router Extends Ens.BusinessProcess\n{\n'
                   'Property Next As %String [ InitialExpression = "B" ];\n'
                   'Method OnRequest(r) As %Status\n{\n Do ..SendRequestSync("A", r)\n Do ..SendRequestAsync(..Next, r)\n}\n}\n')
        self.write('router.py', 'class Router:\n    def on_message(self, r):\n        return self.send_request_sync("C", r)\n')
        prod = Production.from_dict(_export(*({'@Name': n, '@ClassName': f'Demo.{n}'} for n in ('Router', 'A', 'B', 'C'))))
        edges = self.edges(prod)
        self.assertEqual(sorted(edges), [('Router', 'A'), ('Router', 'B')])
        self.assertEqual(edges[('Router', 'A')]['metadata'], {'source': 'ObjectScript source', 'detail': 'SendRequestSync literal'})
        self.assertEqual(edges[('Router', 'B')]['interaction'], 'async')
        self.assertEqual(edges[('Router', 'B')]['metadata']['detail'], 'SendRequestAsync ..Next')

    def test_runtime_edge_learns_interaction_from_source(self):
        self.write('Router.cls', 'Class Demo.Router Extends Ens.BusinessProcess\n{\nMethod M()\n{\n Do ..SendRequestSync("A", r)\n}\n}\n')
        prod = Production.from_dict(_export({'@Name': 'Router', '@ClassName': 'Demo.Router'}, {'@Name': 'A', '@ClassName': 'Demo.A'}),
                                    connections={'items': [{'item': 'Router', 'connections': ['A']}]})
        [edge] = prod.graph().to_dict()['edges']
        self.assertEqual((edge['origin'], edge['interaction']), ('runtime', 'sync'))
        self.assertEqual(edge['metadata'], {'source': 'ObjectScript source', 'detail': 'SendRequestSync literal'})

    def test_iop_flag_finds_python_class_by_name(self):
        os.mkdir('bs')
        self.write(os.path.join('bs', 'reddit.py'), 'class Reddit:\n    def on_poll(self):\n        self.send_request_sync("Filter", 1)\n')
        export = _export({'@Name': 'R', '@ClassName': 'Python.bs.reddit.Reddit'}, {'@Name': 'Filter', '@ClassName': 'Demo.F'})
        self.assertEqual(Production.from_dict(export).graph().to_dict()['edges'], [])
        prod = Production.from_dict(export, connections={'items': [{'item': 'R', 'iop': True, 'connections': []}]})
        self.assertEqual(self.edges(prod)[('R', 'Filter')]['metadata'], {'source': 'Python source', 'detail': 'send_request_sync literal'})


class SetProductionsSettingsTest(unittest.TestCase):
    """set_productions_settings goes through the module's register_component / register_production_definition
    (IoP 4.1.1's seams), registering each class once and never changing a legacy dict it was given."""

    def run_settings(self, productions, root):
        from unittest import mock

        from iop.migration import utils

        with mock.patch.object(utils, 'register_component') as component, \
                mock.patch.object(utils, 'register_production_definition') as definition:
            utils.set_productions_settings(productions, root)
        return component, definition

    def test_shared_class_registered_once_and_legacy_dict_untouched(self):
        import copy

        from tests.iop4_fixtures.components import OrderOperation

        prod = Production('Object.Production')
        prod.operation('A', OrderOperation, class_name='Python.Shared')
        prod.operation('B', OrderOperation, class_name='Python.Shared')
        legacy = {'Legacy.Production': {'Item': [{'@Name': 'L', '@ClassName': OrderOperation}]}}
        original = copy.deepcopy(legacy)
        component, definition = self.run_settings([legacy, prod], '/tmp/root')
        self.assertEqual(legacy, original)
        calls = [c.args for c in component.call_args_list]
        self.assertEqual(calls[0][:4], (OrderOperation.__module__, 'OrderOperation', '/tmp/root', 1))
        self.assertEqual(calls[1], (OrderOperation.__module__, 'OrderOperation', '/tmp/root', 1, 'Python.Shared'))
        self.assertEqual(len(calls), 2)
        stored = definition.call_args_list[0].args
        self.assertEqual(stored[0], 'Legacy.Production')
        self.assertEqual(stored[1]['Legacy.Production']['Item'][0]['@ClassName'], calls[0][4])
        self.assertEqual(definition.call_args_list[1].args[0], 'Object.Production')


class ProductionTestBodyTest(unittest.TestCase):
    def test_message_goes_to_the_director_as_json_text(self):
        import json
        from unittest import mock

        from tests.iop4_fixtures.components import Order, OrderOperation

        director = mock.MagicMock()
        director.status_production.return_value = {'Production': 'T.P', 'Status': 'running'}
        director.test_component.return_value = 'ok'
        prod = Production('T.P', director=director)
        prod.operation('Out', OrderOperation)
        self.assertEqual(prod.test('Out', Order(order_id='7', quantity=2)), 'ok')
        args, kwargs = director.test_component.call_args
        self.assertEqual((args[0], kwargs['message'], kwargs['classname']), ('Out', None, f'{Order.__module__}.Order'))
        self.assertEqual(json.loads(kwargs['body']), {'order_id': '7', 'quantity': 2})


class SendToTargetSettingRefTest(unittest.TestCase):
    """IoP 4.1.1 checks this through IRIS's dispatch handle; here the worker operation carries the same values."""

    def test_send_request_sync_resolves_a_connected_target_setting(self):
        from unittest import mock

        from iop import BusinessService
        from iop import _business_host
        from tests.iop4_fixtures.components import OrderOperation, OrderService

        prod = Production('Demo.P')
        service = prod.service('FileInput', OrderService)
        operation = prod.operation('OrderOperation', OrderOperation)
        service.connect('Output', operation)
        sent = []

        class Channel:  # the engine's end: records the op frame, answers "no response"
            def request(self, frame):
                sent.append(frame)

        with mock.patch.object(_business_host._runtime.link, 'channel', Channel()):
            BusinessService().send_request_sync(service.Output, None)
        self.assertEqual([(frame['op'], frame['target'], frame['description']) for frame in sent], [('send_sync', 'OrderOperation', 'BusinessService -> OrderOperation')])


class SendRequestSyncFrameTest(unittest.TestCase):
    """The op frame send_request_sync hands the engine, and which error comes first."""

    def send(self, *args, **kwargs):
        from unittest import mock

        from iop import BusinessProcess, _runtime

        sent = []

        class Channel:  # the engine's end: records the op frame, answers with a response body
            def request(self, frame):
                sent.append(dict(frame))
                return {'classname': 'Ens.Response', 'encoding': 'empty', 'data': ''}

        class Router(BusinessProcess):
            pass

        with mock.patch.object(_runtime.link, 'channel', Channel()):
            previous = _runtime.link.enter_call(41)
            try:
                reply = Router().send_request_sync(*args, **kwargs)
            finally:
                _runtime.link.leave_call(previous)
        return sent, reply

    def test_the_frame_names_the_call_target_body_timeout_and_description(self):
        from tests.sample_messages import SimpleMessage

        sent, reply = self.send('Next', SimpleMessage(integer=1, string='a'))
        self.assertEqual(sent, [{
            't': 'op', 'op': 'send_sync', 'call': 41, 'target': 'Next',
            'body': {'classname': 'tests.sample_messages.SimpleMessage', 'encoding': 'json', 'data': '{"integer":1,"string":"a"}'},
            'timeoutMs': -1, 'description': 'Router -> Next',
        }])
        self.assertEqual(type(reply).__name__, 'Ens.Response')
        self.assertEqual([frame['timeoutMs'] for frame in self.send('Next', None, 2.5)[0] + self.send('Next', None, None)[0] + self.send('Next', None, '3')[0]], [2500, -1, 3000])
        sent, _ = self.send('Next', None, description='mine')
        self.assertEqual((sent[0]['description'], sent[0]['body']), ('mine', {'classname': 'Ens.Request', 'encoding': 'empty', 'data': ''}))

    def test_outside_a_worker_a_message_that_cannot_be_sent_fails_first(self):
        from iop import BusinessProcess
        from iop._runtime import NotInWorkerError

        with self.assertRaisesRegex(TypeError, 'subclass of Message'):
            BusinessProcess().send_request_sync('Next', object())
        with self.assertRaisesRegex(ValueError, 'could not convert'):
            BusinessProcess().send_request_sync('Next', None, 'soon')
        with self.assertRaisesRegex(NotInWorkerError, '^send_sync needs a running Conveyor worker'):
            BusinessProcess().send_request_sync('Next', None)


class MigrationUtilsTextTest(unittest.TestCase):
    def test_xml_to_json_names_the_production_and_has_no_nulls(self):
        import json

        from iop.migration import utils

        self.assertEqual(json.loads(utils.xml_to_json('<Production Name="P"><Item/></Production>')), {'P': {'@Name': 'P', 'Item': ''}})
        self.assertIn('Production', json.loads(utils.xml_to_json('<Production><Item Name="A"/></Production>')))

    def test_unregister_without_a_name_says_what_is_missing(self):
        from iop.migration import utils

        with self.assertRaisesRegex(ValueError, 'IRIS class name is required'):
            utils.unregister_component('')

    def test_message_class_in_classes_is_a_value_error(self):
        from dataclasses import dataclass

        from iop import Message
        from iop.migration import utils

        @dataclass
        class Note(Message):
            text: str = ''

        class Settings:
            CLASSES = {'Python.Note': Note}

        with self.assertRaisesRegex(ValueError, 'cannot be registered in CLASSES'):
            utils._build_migration_plan(Settings, os.getcwd())


class MigrationPathHelpersTest(unittest.TestCase):
    def test_filename_and_module_paths(self):
        from iop.migration import utils

        self.assertEqual(utils.filename_to_module('bo.py'), 'bo')
        self.assertEqual(utils.filename_to_module(os.path.join('pkg', 'bo.py')), 'pkg.bo')
        self.assertEqual(utils.guess_path('pkg.module', '/p/to'), os.path.join('/p/to', 'pkg', 'module.py'))
        self.assertEqual(utils.guess_path('..module', '/p/to/sub'), os.path.join('/p/to', 'module.py'))
        with self.assertRaises(ValueError):
            utils.guess_path('', '/p')

    def test_import_module_from_path(self):
        import sys

        from iop.migration import utils

        with tempfile.TemporaryDirectory() as folder:
            good, bad = os.path.join(folder, 'j2_good.py'), os.path.join(folder, 'j2_bad.py')
            with open(good, 'w') as file:
                file.write('VALUE = 7\n')
            with open(bad, 'w') as file:
                file.write('raise RuntimeError("no")\n')
            self.addCleanup(sys.modules.pop, 'j2_good', None)
            self.assertEqual(utils.import_module_from_path('j2_good', good).VALUE, 7)
            with self.assertRaises(RuntimeError):
                utils.import_module_from_path('j2_bad', bad)
            self.assertNotIn('j2_bad', sys.modules)
        with self.assertRaises(ValueError):
            utils.import_module_from_path('x', 'relative/x.py')


class BindAliasTest(unittest.TestCase):
    def test_bind_and_unbind_go_through_register_and_unregister(self):
        from unittest import mock

        from iop.migration import utils

        with mock.patch.object(utils, 'register_component') as register, mock.patch.object(utils, 'unregister_component') as unregister:
            utils.bind_component('bo', 'Email', '/p', 1, 'Unit.Email')
            utils.unbind_component('Unit.Email')
        register.assert_called_once_with('bo', 'Email', '/p', 1, 'Unit.Email')
        unregister.assert_called_once_with('Unit.Email')
