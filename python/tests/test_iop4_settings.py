import unittest
import warnings

from iop import BusinessOperation, Category, controls, setting, target
from iop._settings import apply_settings, declared_settings, setting_rows

from tests.iop4_fixtures.components import OrderOperation, OrderService, Router


def row(cls, name):
    return next(r for r in cls._get_properties() if r[0] == name)


class SettingMetadataTest(unittest.TestCase):
    def test_rows_carry_type_default_required_category_description_control(self):
        self.assertEqual(row(OrderService, 'Prefix'), ['Prefix', 'String', 'ord', False, 'Basic', 'Order id prefix', ''])
        self.assertEqual(row(OrderService, 'Folder'), ['Folder', 'String', '/tmp', True, '', '', 'directorySelector'])
        self.assertEqual(row(OrderOperation, 'Factor'), ['Factor', 'Integer', 2, False, 'Additional', '', ''])

    def test_target_settings_are_config_names_with_the_item_selector(self):
        self.assertEqual(row(OrderService, 'Output'), ['Output', 'Ens.DataType.ConfigName', '', False, 'Basic', '', controls.production_item()])
        self.assertEqual(row(Router, 'Accepted')[2], 'OrderOperation')
        self.assertEqual(controls.production_item(), 'selector?context={Ens.ContextSearch/ProductionItems?targets=1&productionName=@productionId}')

    def test_annotation_only_names_and_annotation_types_count(self):
        class Annotated(BusinessOperation):
            count: int = None
            ratio: float
            name: str

        rows = {r[0]: r for r in setting_rows(Annotated)}
        self.assertEqual(rows['count'][:3], ['count', 'Integer', ''])
        self.assertEqual(rows['ratio'][:3], ['ratio', 'Numeric', ''])
        self.assertEqual(rows['name'][1], 'String')

    def test_excluded_settings_and_legacy_info_methods(self):
        class Legacy(BusinessOperation):
            hidden = setting(1, exclude=True)
            port = 80

            def port_info(self) -> {'Category': 'Connection', 'Control': 'x', 'IsRequired': True}:
                return 8080

        rows = {r[0]: r for r in setting_rows(Legacy)}
        self.assertNotIn('hidden', rows)
        self.assertEqual(rows['port'], ['port', 'Integer', 8080, True, 'Connection', '', 'x'])

    def test_declared_settings_expose_the_metadata_to_the_server(self):
        declared = {s['name']: s for s in declared_settings(OrderService)}
        self.assertEqual(declared['Output'], {
            'name': 'Output', 'type': 'str', 'defaultValue': '', 'description': '', 'dataType': 'Ens.DataType.ConfigName',
            'category': 'Basic', 'required': False, 'control': controls.production_item(), 'isTarget': True,
        })
        self.assertEqual(declared['Prefix']['category'], 'Basic')

    def test_controls_build_iris_editor_contexts(self):
        self.assertEqual(controls.selector('A/B', multi_select=True, x=1), 'selector?multiSelect=1&context={A/B}&x=1')
        self.assertEqual(controls.ssl_config(), 'sslConfigSelector')
        self.assertEqual(controls.framing(), 'selector?context={Ens.ContextSearch/getDisplayList?host=@currHostId&prop=Framing}')
        self.assertEqual(controls.raw('anything'), 'anything')
        self.assertEqual(Category.CONNECTION, 'Connection')


class SettingValuesTest(unittest.TestCase):
    def test_item_values_are_typed_by_the_declaration(self):
        operation = OrderOperation.__new__(OrderOperation)
        self.assertEqual(operation.Factor, 2)  # the default before any value
        warned = []
        apply_settings(operation, {'Factor': '7'}, warned.append)
        self.assertEqual((operation.Factor, warned), (7, []))
        service = OrderService.__new__(OrderService)
        apply_settings(service, {'Output': 'OrderOperation', 'Prefix': 'P'}, warned.append)
        self.assertEqual((service.Output, service.Prefix, service.Folder), ('OrderOperation', 'P', '/tmp'))

    def test_a_target_without_value_reads_as_its_default_or_empty(self):
        self.assertEqual(Router.__new__(Router).Accepted, 'OrderOperation')
        self.assertEqual(Router.__new__(Router).Rejected, '')
        self.assertIsInstance(Router.Accepted, type(target()))

    def test_a_value_that_does_not_fit_warns(self):
        operation = OrderOperation.__new__(OrderOperation)
        warned = []
        apply_settings(operation, {'Factor': 'many'}, warned.append)
        self.assertEqual(operation.Factor, 2)
        self.assertEqual(len(warned), 1)
        self.assertIn("'Factor'='many'", warned[0])


class InitWarningTest(unittest.TestCase):
    def test_a_component_defining_init_is_warned_at_class_definition(self):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter('always')

            class WithInit(BusinessOperation):
                def __init__(self):
                    self.x = 1

        self.assertTrue(any('does not call __init__()' in str(w.message) and w.category is RuntimeWarning for w in caught))


if __name__ == '__main__':
    unittest.main()
