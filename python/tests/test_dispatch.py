import unittest

import iris
from iop import BusinessOperation, BusinessProcess
from iop._dispatch import dispatch_table, find_handler

from .sample_messages import Inner, Nested, SimpleMessage


class First(BusinessOperation):
    def on_simple(self, request: SimpleMessage):
        return 'first'


class Second(BusinessOperation):
    def handle(self, request: 'tests.sample_messages.SimpleMessage'):
        return 'second'

    def nested(self, request: 'Nested'):
        return 'nested by bare string'

    def native(self, request: iris.Ens.StringRequest):
        return 'native'

    def other_native(self, request: 'iris.dc.Demo.PostMessage'):
        return 'post'

    def two_params(self, request: SimpleMessage, extra: int):
        return 'never'


class LastWins(BusinessOperation):
    def a_handler(self, request: SimpleMessage):
        return 'a'

    def b_handler(self, request: SimpleMessage):
        return 'b'


class Declared(BusinessOperation):
    DISPATCH = [('tests.sample_messages.SimpleMessage', 'chosen')]

    def chosen(self, request):
        return 'declared'


class LegacyOperation(BusinessOperation):
    def OnMessage(self, request):
        return 'OnMessage'


class RequestProcess(BusinessProcess):
    def OnRequest(self, request):
        return 'OnRequest'


def handle(component, message):
    return find_handler(component, message)(message)


class DispatchTest(unittest.TestCase):
    def test_each_class_has_its_own_table(self):
        first, second = First.__new__(First), Second.__new__(Second)
        self.assertEqual(handle(first, SimpleMessage()), 'first')
        self.assertEqual(handle(second, SimpleMessage()), 'second')
        self.assertIsNot(dispatch_table(First), dispatch_table(Second))
        self.assertEqual(BusinessOperation.__dict__.get('DISPATCH'), None)

    def test_string_annotations_with_and_without_module(self):
        second = Second.__new__(Second)
        self.assertEqual(handle(second, Nested(inner=Inner())), 'nested by bare string')

    def test_native_classes_dispatch_on_iris_names(self):
        second = Second.__new__(Second)
        self.assertEqual(handle(second, iris.cls('Ens.StringRequest')._New('x')), 'native')
        self.assertEqual(handle(second, iris.cls('dc.Demo.PostMessage')()), 'post')
        self.assertIn(('iris.Ens.StringRequest', 'native'), dispatch_table(Second))

    def test_methods_with_more_than_one_parameter_are_not_handlers(self):
        self.assertNotIn('two_params', [name for _, name in dispatch_table(Second)])

    def test_last_match_wins(self):
        self.assertEqual(handle(LastWins.__new__(LastWins), SimpleMessage()), 'b')

    def test_a_declared_dispatch_table_is_used(self):
        self.assertEqual(handle(Declared.__new__(Declared), SimpleMessage()), 'declared')

    def test_each_message_class_and_fallback_finds_its_own_handler(self):
        second = Second.__new__(Second)
        for _ in range(2):
            self.assertEqual(handle(second, SimpleMessage()), 'second')
            self.assertEqual(handle(second, Nested()), 'nested by bare string')
            self.assertEqual(find_handler(second, Inner(), 'on_request').__name__, 'on_request')
            self.assertEqual(find_handler(second, Inner()).__name__, 'on_message')

    def test_fallback_chain_reaches_legacy_spellings(self):
        self.assertEqual(handle(LegacyOperation.__new__(LegacyOperation), Inner()), 'OnMessage')
        self.assertEqual(handle(RequestProcess.__new__(RequestProcess), Inner()), 'OnRequest')
        self.assertIsNone(handle(First.__new__(First), Inner()))


if __name__ == '__main__':
    unittest.main()
