import unittest
from typing import Optional

import iris
from iop import BusinessOperation, BusinessService
from iop._components import adapter_type_of
from iop._settings import apply_settings, declared_settings


class IrisShimTest(unittest.TestCase):
    def test_native_string_request(self):
        request = iris.cls('Ens.StringRequest')._New('hello')
        self.assertEqual(request.StringValue, 'hello')
        self.assertTrue(request._IsA('Ens.StringRequest'))
        self.assertTrue(request._IsA('Ens.Request'))
        self.assertFalse(request._IsA('Ens.Response'))
        self.assertEqual(f'{type(request).__module__}.{type(request).__name__}', 'iris.Ens.StringRequest')

    def test_attribute_access_reaches_the_same_class(self):
        self.assertIs(iris.Ens.StringResponse, iris.cls('Ens.StringResponse'))
        self.assertEqual(iris.Ens.Request._New()._properties(), {})

    def test_unknown_classes_are_open(self):
        post = iris.cls('dc.Demo.PostMessage')._New()
        post.Title = 'x'
        self.assertEqual(post._properties(), {'Title': 'x'})
        self.assertIs(iris.dc.Demo.PostMessage, iris.cls('dc.Demo.PostMessage'))
        self.assertEqual(iris.dc.Other.Thing.__dispatch_key__, 'iris.dc.Other.Thing')


class Configurable(BusinessOperation):
    """A component with every kind of setting."""

    my_int: int = 0
    my_float = 1.5
    my_bool = False
    my_str = 'foo'
    my_none = None
    my_optional: Optional[int] = None
    hidden = 'x'
    described = 'd'

    def hidden_info(self) -> {'ExcludeFromSettings': True}:
        return None

    def described_info(self) -> {'Description': 'Says what it is', 'DataType': 'int'}:
        return 7

    def some_method(self):
        return None

    @property
    def computed(self):
        return 'c'


class SettingsTest(unittest.TestCase):
    def apply(self, values):
        instance = Configurable.__new__(Configurable)
        warnings = []
        apply_settings(instance, values, warnings.append)
        return instance, warnings

    def test_values_are_typed_by_the_class(self):
        instance, warnings = self.apply({'my_int': '3', 'my_float': '2', 'my_bool': '1', 'my_str': 'bar', 'my_optional': '9'})
        self.assertEqual((instance.my_int, instance.my_float, instance.my_bool, instance.my_str, instance.my_optional), (3, 2.0, True, 'bar', 9))
        self.assertEqual(warnings, [])

    def test_empty_values_keep_the_class_default(self):
        instance, _ = self.apply({'my_none': '', 'my_str': ''})
        self.assertIsNone(instance.my_none)
        self.assertEqual(instance.my_str, 'foo')

    def test_percent_settings_lines_are_strings(self):
        instance, _ = self.apply({'%settings': 'a=1\nb=x=y\n\n=ignored\nnoequals', '%classpaths': '/x'})
        self.assertEqual((instance.a, instance.b), ('1', 'x=y'))
        self.assertFalse(hasattr(instance, 'noequals'))

    def test_a_value_that_does_not_fit_warns(self):
        instance, warnings = self.apply({'my_bool': 'perhaps'})
        self.assertFalse(instance.my_bool)
        self.assertEqual(warnings, ["Cannot apply setting 'my_bool'='perhaps': 'perhaps' is not a boolean"])

    def test_declared_settings_follow_iop_rules(self):
        settings = {s['name']: s for s in declared_settings(Configurable)}
        self.assertEqual(sorted(settings), ['computed', 'described', 'my_bool', 'my_float', 'my_int', 'my_none', 'my_optional', 'my_str'])
        plain = {'dataType': 'Boolean', 'category': '', 'required': False, 'control': '', 'isTarget': False}
        self.assertEqual(settings['my_bool'], {'name': 'my_bool', 'type': 'bool', 'defaultValue': '0', 'description': '', **plain})
        self.assertEqual(settings['my_float']['type'], 'float')
        self.assertEqual(settings['my_none']['defaultValue'], None)
        self.assertEqual(settings['described'], {'name': 'described', 'type': 'int', 'defaultValue': '7', 'description': 'Says what it is', **plain, 'dataType': 'Integer'})
        self.assertEqual(settings['computed'], {'name': 'computed', 'type': 'str', 'defaultValue': None, 'description': '', **plain, 'dataType': 'String'})
        self.assertEqual(settings['my_optional']['dataType'], 'Integer')  # IoP 4: the annotation decides, not the None default


class AdapterTypeTest(unittest.TestCase):
    def test_get_adapter_type_written_without_self_or_as_a_method(self):
        class NoSelf(BusinessService):
            def get_adapter_type():
                return 'Ens.InboundAdapter'

        class WithSelf(BusinessService):
            def get_adapter_type(self):
                return 'Python.MyAdapter'

        class Legacy(BusinessService):
            @staticmethod
            def getAdapterType():
                return 'EnsLib.File.InboundAdapter'

        self.assertEqual(adapter_type_of(NoSelf), 'Ens.InboundAdapter')
        self.assertEqual(adapter_type_of(WithSelf), 'Python.MyAdapter')
        self.assertEqual(adapter_type_of(Legacy), 'EnsLib.File.InboundAdapter')
        self.assertIsNone(adapter_type_of(BusinessService))


if __name__ == '__main__':
    unittest.main()
