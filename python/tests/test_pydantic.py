import importlib.util
import unittest

from iop._schema import message_schema
from iop._serialization import deserialize, serialize, serialize_pickle

HAS_PYDANTIC = importlib.util.find_spec('pydantic') is not None


@unittest.skipUnless(HAS_PYDANTIC, 'pydantic is not installed')
class PydanticMessageTest(unittest.TestCase):
    def setUp(self):
        from . import sample_pydantic
        self.messages = sample_pydantic

    def test_json_round_trip_with_module_class_identity(self):
        body = serialize(self.messages.Point(x=1, labels=['a']))
        self.assertEqual(body, {'classname': 'tests.sample_pydantic.Point', 'encoding': 'json', 'data': '{"x":1,"y":0,"labels":["a"]}'})
        self.assertEqual(deserialize(body), self.messages.Point(x=1, labels=['a']))

    def test_pickle_variant_travels_as_json_and_pickle_is_understood(self):
        point = self.messages.PickledPoint(x=3)
        self.assertEqual(serialize(point)['encoding'], 'json')
        self.assertEqual(deserialize(serialize_pickle(point)), point)

    def test_schema_is_pydantic_own(self):
        schema = message_schema(self.messages.Point)
        self.assertEqual(schema['title'], 'Point')
        self.assertEqual(schema['required'], ['x'])


class LazyPydanticTest(unittest.TestCase):
    def test_importing_iop_does_not_import_pydantic(self):
        import subprocess
        import sys
        code = 'import sys, iop, conveyor_host.host; print("pydantic" in sys.modules)'
        out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, check=True)
        self.assertEqual(out.stdout.strip(), 'False')


if __name__ == '__main__':
    unittest.main()
