import json
import os
import tempfile
import unittest
import warnings

from iop import (
    OperationItem,
    ProcessItem,
    Production,
    ProductionChangePlan,
    ProductionValidationError,
    ProductionValidationWarning,
    Route,
    ServiceItem,
)

from tests.iop4_fixtures.components import OrderOperation, OrderService, Router


def demo():
    prod = Production('Demo.Orders', testing_enabled=True)
    service = prod.service('OrderService', OrderService, adapter_settings={'CallInterval': 1})
    router = prod.process('Router', Router)
    operation = prod.operation('OrderOperation', OrderOperation, settings={'Factor': 3})
    service.connect('Output', router)
    return prod, service, router, operation


class DemoProduction(Production):
    name = 'Demo.Declared'
    testing_enabled = True
    services = (ServiceItem('OrderService', OrderService, routes=(Route(OrderService.Output, 'Router'),)),)
    processes = (ProcessItem('Router', Router, routes=Route('Rejected', ('OrderOperation', 'Audit'))),)
    operations = (OperationItem('OrderOperation', OrderOperation, pool_size=2), OperationItem('Audit', OrderOperation, enabled=False))


class AuthoringTest(unittest.TestCase):
    def test_items_get_proxy_names_kinds_and_the_adapter_of_their_class(self):
        prod, service, router, operation = demo()
        self.assertEqual(service.class_name, 'Python.tests.iop4fixtures.components.OrderService')
        self.assertEqual((service.kind, router.kind, operation.kind), ('service', 'process', 'operation'))
        self.assertEqual(service.adapter_class_name, 'Ens.InboundAdapter')

    def test_a_target_default_becomes_a_route_once_its_item_exists(self):
        prod, service, router, operation = demo()
        self.assertEqual(router.host_settings['Accepted'], 'OrderOperation')
        self.assertEqual(prod.resolve_target(router.Accepted), 'OrderOperation')
        self.assertEqual(prod.resolve_target('OrderService.Output'), 'Router')

    def test_connect_modes_replace_add_and_remove(self):
        prod, service, router, operation = demo()
        prod.operation('Audit', OrderOperation)
        prod.connect(router.Rejected, operation)
        prod.connect(router.Rejected, 'Audit', mode='add')
        self.assertEqual(router.host_settings['Rejected'], 'OrderOperation,Audit')
        with self.assertRaisesRegex(ValueError, 'ambiguous'):
            router.Rejected.resolve()
        prod.connect(router.Rejected, 'OrderOperation', mode='remove')
        self.assertEqual(router.host_settings['Rejected'], 'Audit')
        prod.disconnect('Router.Rejected')
        self.assertNotIn('Rejected', router.host_settings)
        with self.assertRaisesRegex(ValueError, 'not connected'):
            router.Rejected.resolve()

    def test_errors_are_clear(self):
        prod, service, router, operation = demo()
        with self.assertRaisesRegex(ValueError, 'already exists'):
            prod.operation('OrderOperation', OrderOperation)
        with self.assertRaisesRegex(ValueError, 'does not exist: Nope'):
            prod.item('Nope')
        with self.assertRaisesRegex(TypeError, 'bound to a production item'):
            prod.connect(OrderService.Output, operation)
        with self.assertRaisesRegex(ValueError, 'component_class or class_name is required'):
            prod.component('Bare')
        with self.assertRaisesRegex(ValueError, 'Unsupported connection mode'):
            prod.connect(service.Output, router, mode='sideways')

    def test_update_and_delete_component(self):
        prod, service, router, operation = demo()
        prod.update_component('OrderOperation', pool_size=4, settings={'Factor': None})
        self.assertEqual((operation.pool_size, operation.host_settings), (4, {}))
        prod.delete_component(router)
        self.assertNotIn('Output', service.host_settings)
        self.assertEqual([edge.target for edge in prod.edges], [])
        with self.assertRaisesRegex(ValueError, 'Unsupported component update fields: colour'):
            prod.update_component(operation, colour='red')

    def test_declarative_productions_add_items_then_routes(self):
        prod = DemoProduction()
        self.assertEqual([item.name for item in prod.items], ['OrderService', 'Router', 'OrderOperation', 'Audit'])
        self.assertEqual(prod.item('Router').host_settings['Rejected'], 'OrderOperation,Audit')
        self.assertTrue(prod.testing_enabled)
        self.assertEqual(prod.item('OrderOperation').pool_size, 2)

    def test_a_declared_route_set_in_host_settings_too_is_refused(self):
        class Twice(Production):
            services = (ServiceItem('S', OrderService, settings={'Output': 'X'}, routes=(Route('Output', 'X'),)),)

        with self.assertRaisesRegex(ValueError, 'set it with the Route only'):
            Twice()


class RenderingTest(unittest.TestCase):
    def test_to_dict_is_the_iop_export_shape(self):
        prod, *_ = demo()
        prod.shutdown_timeout = 30
        data = prod.to_dict()['Demo.Orders']
        self.assertEqual({k: data[k] for k in ('@Name', '@TestingEnabled', '@LogGeneralTraceEvents', 'Description', 'ActorPoolSize')},
                         {'@Name': 'Demo.Orders', '@TestingEnabled': 'true', '@LogGeneralTraceEvents': 'false', 'Description': '', 'ActorPoolSize': '2'})
        self.assertEqual(data['Setting'], [{'@Name': 'ShutdownTimeout', '#text': '30'}])
        service = data['Item'][0]
        self.assertEqual(service['@PoolSize'], '1')
        self.assertEqual(service['Setting'], [{'@Target': 'Host', '@Name': 'Output', '#text': 'Router'},
                                              {'@Target': 'Adapter', '@Name': 'CallInterval', '#text': '1'}])

    def test_xml_round_trips_through_the_dict_form(self):
        from iop.migration.utils import xml_to_dict

        prod, *_ = demo()
        xml = prod.to_xml()
        self.assertTrue(xml.startswith('<Production Name="Demo.Orders"'))
        back = Production.from_dict(xml_to_dict(xml))
        self.assertFalse(prod.diff(back).has_changes, prod.diff(back).to_text())

    def test_graph_text_and_mermaid(self):
        prod, *_ = demo()
        text = str(prod.graph())
        self.assertIn('  OrderService [Python.tests.iop4fixtures.components.OrderService]\n    Output -> Router', text)
        mermaid = prod.to_mermaid()
        self.assertTrue(mermaid.startswith('flowchart LR\n  %% Production: Demo.Orders\n'))
        self.assertIn('subgraph group_service["Services"]', mermaid)
        self.assertIn('node_OrderService -- "Output" --> node_Router', mermaid)
        self.assertTrue(mermaid.endswith('\n'))
        self.assertEqual({edge['source'] for edge in prod.graph().to_dict()['edges']}, {'OrderService.Output', 'Router.Accepted'})

    def test_python_and_class_sources_rebuild_the_production(self):
        prod, *_ = demo()
        for source, variable in ((prod.to_python(), 'PRODUCTIONS'), (prod.to_class(), 'PRODUCTIONS')):
            scope = {}
            exec(compile(source, '<generated>', 'exec'), scope)
            rebuilt = scope[variable][0]
            self.assertFalse(prod.diff(rebuilt).has_changes, source + prod.diff(rebuilt).to_text())


class ValidationTest(unittest.TestCase):
    def test_unknown_settings_missing_targets_and_attributes_are_reported(self):
        prod, service, router, operation = demo()
        operation.host_setting('Factr', 1)
        router.adapter_setting('X', 1)
        service.host_setting('Output', 'Nowhere')
        prod.colour = 'red'
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter('always')
            report = prod.validate()
        texts = [issue.to_text() for issue in report.issues]
        self.assertIn('production production.colour: Unknown public Production attribute. Only documented Production fields are serialized.', texts)
        self.assertIn('setting items.OrderOperation.settings.Host.Factr: Unknown setting name.', texts)
        self.assertIn('setting items.Router.settings.Adapter: Business process items do not support adapter settings.', texts)
        self.assertIn("route items.OrderService.settings.Host.Output: Target setting references missing production item 'Nowhere'. "
                      "Add a production item named 'Nowhere', or update/remove this target setting.", texts)
        self.assertTrue(all(w.category is ProductionValidationWarning for w in caught))
        with self.assertRaises(ProductionValidationError) as raised:
            prod.validate(strict=True)
        self.assertTrue(str(raised.exception).startswith('Production validation: Demo.Orders'))

    def test_a_clean_production_has_no_issues(self):
        prod, *_ = demo()
        self.assertEqual(prod.validate().to_text(), 'Production validation: Demo.Orders\n  no issues')


class DiffAndPlanTest(unittest.TestCase):
    def test_diff_turns_current_into_desired(self):
        current, *_ = demo()
        desired, service, router, operation = demo()
        desired.testing_enabled = False
        operation.host_setting('Factor', 5).pool(2)
        desired.delete_component('Router')
        desired.operation('Audit', OrderOperation)
        diff = desired.diff(current)
        self.assertEqual([c.to_text().split(':')[0] for c in diff.changes], [
            'change production production.testing_enabled', 'remove item items.Router', 'add item items.Audit',
            'change item items.OrderOperation.pool_size', 'change setting items.OrderOperation.settings.Host.Factor',
            'remove setting items.OrderService.settings.Host.Output', 'remove connection connections.OrderService.Output',
            'remove connection connections.Router.Accepted',
        ])
        self.assertEqual(diff.changes[0].to_text(), "change production production.testing_enabled: 'true' -> 'false'")

    def test_plan_classifies_and_round_trips(self):
        current, *_ = demo()
        desired, service, router, operation = demo()
        operation.host_setting('Factor', 5)
        desired.item('Router').class_name = 'Python.Other'
        plan = desired.plan(current)
        kinds = {op.op_type: op.risk for op in plan.operations}
        self.assertEqual(kinds, {'replace_item_class': 'destructive', 'set_setting': 'safe'})
        self.assertEqual([op.op_type for op in plan.operations_for_apply()], ['set_setting'])
        self.assertEqual(len(plan.operations_for_apply(allow_destructive=True)), 2)
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, 'plan.json')
            plan.save(path)
            self.assertEqual(ProductionChangePlan.load(path).to_dict(), plan.to_dict())
            with open(path, encoding='utf-8') as saved:
                self.assertEqual(json.load(saved)['metadata']['generator'], 'iop.production.plan.v1')
        self.assertIn('0002-replace_item_class replace_item_class items.Router.class_name [destructive]: class replacement can change runtime behavior', plan.to_text())

    def test_no_changes_gives_an_empty_plan(self):
        current, *_ = demo()
        desired, *_ = demo()
        plan = desired.plan(current)
        self.assertFalse(plan.has_changes)
        self.assertIn('  no changes', plan.to_text())


class ReconstructionTest(unittest.TestCase):
    EXPORT = {'Production': {'@Name': 'Stored.Prod', '@TestingEnabled': 'true', '@LogGeneralTraceEvents': 'false', 'Description': 'd',
                             'ActorPoolSize': '2', 'Item': {'@Name': 'In', '@ClassName': 'Python.InService', '@PoolSize': '1', '@Enabled': 'true',
                                                            'Setting': {'@Target': 'Host', '@Name': 'TargetConfigNames', '#text': 'Out'}}}}

    def test_from_dict_accepts_single_item_and_setting_objects(self):
        prod = Production.from_dict(self.EXPORT)
        self.assertEqual(prod.name, 'Stored.Prod')
        self.assertEqual(prod.item('In').kind, 'service')
        self.assertEqual(prod.item('In').host_settings, {'TargetConfigNames': 'Out'})

    def test_host_settings_naming_items_become_inferred_edges_and_runtime_connections_runtime_edges(self):
        export = json.loads(json.dumps(self.EXPORT))
        export['Production']['Item'] = [export['Production']['Item'], {'@Name': 'Out', '@ClassName': 'Python.OutOperation'}]
        prod = Production.from_dict(export)
        self.assertEqual([(e.source, e.target, e.origin) for e in prod.edges], [('In.TargetConfigNames', 'Out', 'inferred')])
        connections = {'items': [{'item': 'In', 'kind': 'service', 'connections': ['Out', 'Ens.Alert']}]}
        prod = Production.from_dict(export, connections=connections)
        self.assertEqual([(e.source, e.target, e.origin) for e in prod.edges], [('In.TargetConfigNames', 'Out', 'runtime')])

    def test_conveyors_structured_export_is_read_too(self):
        structured = {'name': 'S.P', 'description': '', 'test_enabled': True, 'log_trace_events': False, 'actor_pool_size': 2,
                      'items': [{'name': 'A', 'classname': 'Python.AOperation', 'pool_size': 2, 'enabled': True, 'foreground': False,
                                 'comment': '', 'log_trace_events': False, 'schedule': '', 'settings': [{'target': 'Adapter', 'name': 'X', 'value': '1'}]}]}
        prod = Production.from_dict(structured)
        self.assertEqual((prod.name, prod.item('A').pool_size, prod.item('A').adapter_settings), ('S.P', '2', {'X': '1'}))
        self.assertEqual(prod.to_dict()['S.P']['@TestingEnabled'], 'true')

    def test_production_level_settings_of_the_structured_export_are_read_and_sent_back(self):
        from iop.runtime._rest import _structured_definition

        structured = {'name': 'S.P', 'description': '', 'test_enabled': False, 'log_trace_events': False, 'actor_pool_size': 2,
                      'items': [], 'settings': [{'name': 'ShutdownTimeout', 'value': '300'}, {'name': 'AlertActionWindow', 'value': '90'}]}
        prod = Production.from_dict(structured)
        self.assertEqual((str(prod.shutdown_timeout), str(prod.alert_action_window), str(prod.update_timeout)), ('300', '90', '10'))
        self.assertEqual(_structured_definition(prod.to_dict())['settings'],
                         [{'name': 'ShutdownTimeout', 'value': '300'}, {'name': 'AlertActionWindow', 'value': '90'}])


class SourceInferenceTest(unittest.TestCase):
    def test_send_calls_in_the_items_python_source_become_inferred_edges(self):
        with tempfile.TemporaryDirectory() as folder:
            with open(os.path.join(folder, 'flow_source.py'), 'w', encoding='utf-8') as source:
                source.write(
                    'class Poller:\n'
                    '    def on_poll(self):\n'
                    '        self.send_request_async("Sink", None)\n'
                    'class Relay:\n'
                    '    def on_init(self):\n'
                    '        self.next_hop = "Sink"\n'
                    '    def on_message(self, request):\n'
                    '        return self.send_request_sync(target=self.next_hop, request=request)\n'
                )

            def item(name, module=None, classname=None):
                settings = [] if module is None else [
                    {'@Target': 'Host', '@Name': '%module', '#text': module},
                    {'@Target': 'Host', '@Name': '%classname', '#text': classname},
                    {'@Target': 'Host', '@Name': '%classpaths', '#text': folder},
                ]
                return {'@Name': name, '@ClassName': f'Demo.{name}', 'Setting': settings}

            prod = Production.from_dict({'Demo.Flow': {'Item': [item('Poll', 'flow_source', 'Poller'), item('Relay', 'flow_source', 'Relay'), item('Sink')]}})
        edges = {(e.source_item, e.target): e for e in prod.edges}
        self.assertEqual((edges[('Poll', 'Sink')].origin, edges[('Poll', 'Sink')].interaction), ('inferred', 'async'))
        self.assertEqual(edges[('Relay', 'Sink')].interaction, 'sync')
        self.assertEqual(edges[('Relay', 'Sink')].metadata, {'source': 'Python source', 'detail': 'send_request_sync self.next_hop'})
        self.assertIn('node_Relay <-- "(runtime) | inferred | sync" --> node_Sink', prod.to_mermaid())


if __name__ == '__main__':
    unittest.main()
