import datetime
import json
import os
import subprocess
import sys
import unittest

import iris
from iop._classnames import MessageClassImportError, load_class
from iop._serialization import deserialize, serialize
from iop.messages.persistent import decode_name_part, encode_name_part, iris_classname

from tests.iop4_fixtures.persistent import Address, Named, NativeOrder

PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class PersistentMessageTest(unittest.TestCase):
    def test_travels_as_a_native_body_and_comes_back_as_the_python_class(self):
        order = NativeOrder(order_id='A1', quantity=3, placed=datetime.date(2026, 1, 2), address=Address(city='Paris'), tags=['x'])
        body = serialize(order)
        self.assertEqual(body['encoding'], 'native')
        self.assertEqual(body['classname'], 'tests.iop4zUfixtures.persistent.NativeOrder')
        self.assertEqual(json.loads(body['data']), {'order_id': 'A1', 'quantity': 3, 'placed': '2026-01-02', 'address': {'city': 'Paris'}, 'tags': ['x']})
        back = deserialize(body)
        self.assertIsInstance(back, NativeOrder)
        self.assertEqual(back, order)
        self.assertEqual(back.address.city, 'Paris')

    def test_meta_classname_names_the_stored_class(self):
        body = serialize(Named(code='c'))
        self.assertEqual(body['classname'], 'Demo.Named')
        self.assertEqual(deserialize(body), Named(code='c'))
        self.assertEqual(iris_classname(Named), 'Demo.Named')

    def test_fields_check_required_and_max_length(self):
        with self.assertRaisesRegex(ValueError, 'NativeOrder.order_id is required'):
            NativeOrder()
        with self.assertRaisesRegex(ValueError, 'max_length=8'):
            NativeOrder(order_id='123456789')
        with self.assertRaisesRegex(TypeError, 'no field nope'):
            NativeOrder(order_id='a', nope=1)

    def test_an_embedded_model_alone_is_not_a_message(self):
        with self.assertRaisesRegex(Exception, 'embedded Model'):
            serialize(Address(city='x'))

    def test_name_encoding_is_reversible(self):
        for part in ('my_mod', 'zebra', 'caf\u00e9', 'a-b'):
            self.assertEqual(decode_name_part(encode_name_part(part)), part)
        self.assertEqual(encode_name_part('my_mod'), 'myzUmod')

    def test_unmarked_native_classes_stay_native(self):
        value = deserialize({'classname': 'dc.Demo.PostMessage', 'encoding': 'native', 'data': '{"Title": "t"}'})
        self.assertTrue(iris.is_native(value))


class MessageErrorsTest(unittest.TestCase):
    def test_class_import_errors_are_typed(self):
        with self.assertRaisesRegex(MessageClassImportError, 'Classname must include a module: Lonely'):
            load_class('Lonely')
        with self.assertRaises(ImportError):
            load_class('no_such_module_here.Thing')

    def test_pydantic_messages_name_the_missing_package(self):
        code = (
            'import sys; sys.modules["pydantic"] = None\n'
            'from iop import PydanticMessage\n'
            'try:\n    PydanticMessage()\nexcept ImportError as e:\n    print(e)\n'
        )
        run = subprocess.run([sys.executable, '-c', code], cwd=PYTHON_DIR, capture_output=True, text=True, timeout=60)
        self.assertIn('pydantic', run.stdout, run.stderr)
        self.assertIn('not installed', run.stdout)


if __name__ == '__main__':
    unittest.main()
