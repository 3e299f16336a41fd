import importlib
import unittest

import iop

# IoP 4.1.1's iop.__all__ (reference §1): every name importable from `iop`.
IOP_411_NAMES = {
    'BusinessOperation', 'BusinessProcess', 'BusinessService', 'Category', 'ComponentItem', 'ComponentRef', 'Director',
    'DirectorProtocol', 'DuplexOperation', 'DuplexProcess', 'DuplexService', 'Field', 'InboundAdapter', 'Message', 'Model',
    'OperationItem', 'OutboundAdapter', 'PersistentMessage', 'PickleMessage', 'PollingBusinessService', 'ProcessItem',
    'Production', 'ProductionApplyResult', 'ProductionChangePlan', 'ProductionDiff', 'ProductionDiffEntry', 'ProductionGraph',
    'ProductionPlanOperation', 'ProductionVerifyResult', 'ProductionValidationError', 'ProductionValidationIssue',
    'ProductionValidationReport', 'ProductionValidationWarning', 'PydanticMessage', 'PydanticPickleMessage', 'Route',
    'ServiceItem', 'Setting', 'TargetSetting', 'TargetSettingRef', 'Utils', 'bind_component', 'controls', 'handler',
    'list_bindings', 'register_component', 'setting', 'target', 'unbind_component', 'unregister_component',
}


class LayoutTest(unittest.TestCase):
    def test_iop_exports_the_50_names_of_4_1_1(self):
        self.assertEqual(len(IOP_411_NAMES), 50)
        self.assertEqual(set(iop.__all__), IOP_411_NAMES)
        for name in IOP_411_NAMES:
            self.assertIsNotNone(getattr(iop, name), name)

    def test_the_4x_packages_hold_their_names(self):
        expected = {
            'iop.components': ['BusinessService', 'PollingBusinessService', 'setting', 'Setting', 'Category', 'controls'],
            'iop.components.settings': ['Setting', 'setting', 'Category', 'controls'],
            'iop.messages': ['Message', 'PickleMessage', 'handler', 'PersistentMessage', 'Field', 'Model'],
            'iop.messages.serialization': ['serialize', 'deserialize', 'MessageClassImportError'],
            'iop.production': ['Production', 'GraphEdge', 'GraphNode', 'PersistentMessageRegistration', 'resolve_target'],
            'iop.runtime.director': ['start_production', 'start_component', 'test_component', '_Director'],
            'iop.runtime.protocol': ['DirectorProtocol'],
            'iop.runtime.local': ['_LocalDirector'],
            'iop.runtime.remote': ['_RemoteDirector', 'get_remote_settings'],
            'iop.runtime.iris': ['get_iris'],
            'iop.migration.utils': ['register_component', 'migrate', 'explain_migration', 'list_bindings', '_Utils'],
            'iop.messages.validation': ['is_message_instance', 'is_message_class', 'is_pickle_message_class', 'is_iris_object_instance'],
            'iop.components.business_operation': ['_BusinessOperation'], 'iop.components.business_service': ['_BusinessService'],
            'iop.components.business_process': ['_BusinessProcess'], 'iop.components.common': ['_Common'],
            'iop.components.inbound_adapter': ['_InboundAdapter'], 'iop.components.outbound_adapter': ['_OutboundAdapter'],
            'iop.components.private_session_duplex': ['_PrivateSessionDuplex'],
            'iop.components.private_session_process': ['_PrivateSessionProcess'],
        }
        for module_name, names in expected.items():
            module = importlib.import_module(module_name)
            for name in names:
                self.assertTrue(hasattr(module, name), f'{module_name}.{name}')

    def test_3_6_names_keep_working_beside_4x(self):
        from grongier.pex import BusinessOperation as Legacy

        self.assertIs(Legacy, iop.BusinessOperation)
        self.assertTrue(callable(iop.transform) and callable(iop.import_schema))

    def test_3_6_module_names_still_import(self):
        names = {
            'iop._utils': '_Utils', 'iop._director': '_Director', 'iop._business_operation': '_BusinessOperation',
            'iop._business_process': '_BusinessProcess', 'iop._business_service': '_BusinessService',
            'iop._inbound_adapter': '_InboundAdapter', 'iop._outbound_adapter': '_OutboundAdapter',
            'iop._private_session_duplex': '_PrivateSessionDuplex', 'iop._private_session_process': '_PrivateSessionProcess',
            'iop._director_protocol': 'DirectorProtocol', 'iop._local': '_LocalDirector', 'iop._remote': '_RemoteDirector',
            'grongier.pex': 'Utils',
        }
        for module_name, name in names.items():
            self.assertTrue(hasattr(importlib.import_module(module_name), name), f'{module_name}.{name}')

    def test_3_6_and_4x_components_live_in_one_production(self):
        from tests.iop4_fixtures.components import OldStyleOperation, Order, OrderOperation

        prod = iop.Production('Demo.Mixed')
        prod.operation('Old', OldStyleOperation)
        prod.operation('New', OrderOperation)
        self.assertEqual([item['@ClassName'] for item in prod.to_dict()['Demo.Mixed']['Item']],
                         ['Python.tests.iop4fixtures.components.OldStyleOperation', 'Python.tests.iop4fixtures.components.OrderOperation'])
        from iop._dispatch import find_handler

        old = OldStyleOperation.__new__(OldStyleOperation)
        self.assertEqual(find_handler(old, Order(order_id='a'))(Order(order_id='a')).text, 'legacy a')

    def test_facades_warn_that_they_are_deprecated(self):
        with self.assertWarns(DeprecationWarning) as caught:
            iop.Utils.dict_to_xml({'Production': {'@Name': 'A.B'}})
        self.assertIn('use iop.migration.utils.dict_to_xml() instead', str(caught.warning))
        with self.assertWarns(DeprecationWarning):
            iop.Director.format_log(['a', 'b'])


if __name__ == '__main__':
    unittest.main()
