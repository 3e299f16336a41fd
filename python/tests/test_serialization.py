import base64
import datetime
import decimal
import json
import pickle
import sys
import unittest
import uuid

from iop._flat_template import flat_attributes_json
from iop._json import compact_json_encoder, loads
from iop._serialization import SerializationError, _attributes, _dumps, deserialize, serialize, serialize_pickle

from .sample_messages import Boxed, Inner, Nested, NotDataclass, PlainDataclass, Required, SimpleMessage, Typed


def round_trip(message):
    return deserialize(serialize(message))


class JsonCarrierTest(unittest.TestCase):
    def test_compact_json_with_module_class_identity(self):
        body = serialize(SimpleMessage(integer=1, string='test'))
        self.assertEqual(body, {'classname': 'tests.sample_messages.SimpleMessage', 'encoding': 'json', 'data': '{"integer":1,"string":"test"}'})

    def test_unicode_is_not_escaped(self):
        body = serialize(SimpleMessage(integer=1, string='日本語のテキスト'))
        self.assertIn('日本語のテキスト', body['data'])
        self.assertEqual(round_trip(SimpleMessage(1, '日本語のテキスト')).string, '日本語のテキスト')

    def test_extra_attributes_survive(self):
        message = SimpleMessage(integer=1, string='a')
        message.added_later = {'deep': [1, 2]}
        copy = round_trip(message)
        self.assertEqual(copy.added_later, {'deep': [1, 2]})

    def test_unknown_keys_become_attributes_and_wrong_types_are_kept(self):
        body = {'classname': 'tests.sample_messages.SimpleMessage', 'encoding': 'json', 'data': '{"integer":{"key":"value"},"other":5}'}
        message = deserialize(body)
        self.assertEqual(message.integer, {'key': 'value'})
        self.assertEqual(message.other, 5)

    def test_values_are_coerced_to_annotations_when_possible(self):
        body = {'classname': 'tests.sample_messages.SimpleMessage', 'encoding': 'json', 'data': '{"integer":"42","string":"x"}'}
        self.assertEqual(deserialize(body).integer, 42)

    def test_nested_dataclasses_lists_and_dicts(self):
        message = Nested(inner=Inner('a', 1), inners=[Inner('b', 2)], by_key={'k': Inner('c', 3)}, maybe=None)
        copy = round_trip(message)
        self.assertEqual(copy, message)
        self.assertIsInstance(copy.inners[0], Inner)
        self.assertIsInstance(copy.by_key['k'], Inner)

    def test_dict_in_place_of_a_nested_dataclass_is_converted(self):
        body = {'classname': 'tests.sample_messages.Nested', 'encoding': 'json', 'data': '{"inner":{"name":"n","size":"7"},"maybe":"3"}'}
        message = deserialize(body)
        self.assertEqual(message.inner, Inner('n', 7))
        self.assertEqual(message.maybe, 3)

    def test_rich_types_round_trip(self):
        message = Typed(
            when=datetime.datetime(2024, 1, 2, 3, 4, 5), day=datetime.date(2024, 1, 2), amount=decimal.Decimal('10.25'),
            ident=uuid.UUID('12345678-1234-5678-1234-567812345678'), raw=b'bytes', flag=True, tags=['x'],
        )
        data = json.loads(serialize(message)['data'])
        self.assertEqual(data['when'], '2024-01-02T03:04:05')
        self.assertEqual(data['amount'], '10.25')
        self.assertEqual(round_trip(message), message)

    def test_missing_required_field_is_an_error(self):
        body = {'classname': 'tests.sample_messages.Required', 'encoding': 'json', 'data': '{}'}
        with self.assertRaisesRegex(SerializationError, 'missing the required field\\(s\\) needed'):
            deserialize(body)

    def test_a_class_decoded_again_is_decoded_by_the_same_rules(self):
        for _ in range(2):
            with self.assertRaisesRegex(SerializationError, 'missing the required field'):
                deserialize({'classname': 'tests.sample_messages.Required', 'encoding': 'json', 'data': '{}'})
            message = deserialize({'classname': 'tests.sample_messages.Required', 'encoding': 'json', 'data': '{"needed":"x","other":[1]}'})
            self.assertEqual((message.needed, message.other), ('x', [1]))
            self.assertEqual(deserialize({'classname': 'tests.sample_messages.SimpleMessage', 'encoding': 'json', 'data': '{"integer":"7"}'}).integer, 7)


class CarrierErrorsTest(unittest.TestCase):
    def test_unknown_module(self):
        with self.assertRaises(SerializationError) as caught:
            deserialize({'classname': 'invalid.module.Class', 'encoding': 'json', 'data': '{}'})
        self.assertEqual(str(caught.exception), "Failed to load class invalid.module.Class: No module named 'invalid'")

    def test_missing_classname(self):
        with self.assertRaisesRegex(SerializationError, 'JSON message malformed, must include classname'):
            deserialize({'classname': '', 'encoding': 'json', 'data': '{}'})

    def test_message_that_is_not_a_dataclass(self):
        with self.assertRaisesRegex(TypeError, 'tests.sample_messages.NotDataclass must be a dataclass'):
            serialize(NotDataclass())

    def test_dataclass_that_is_not_a_message(self):
        with self.assertRaisesRegex(SerializationError, 'derive it from iop.Message'):
            serialize(PlainDataclass())

    def test_generator_and_other_objects(self):
        with self.assertRaisesRegex(TypeError, 'send_generator_request'):
            serialize(x for x in range(2))
        with self.assertRaisesRegex(TypeError, 'subclass of Message or IRISObject'):
            serialize(object())

    def test_none_and_empty_string_mean_no_message(self):
        self.assertIsNone(serialize(None))
        self.assertIsNone(serialize(''))
        self.assertIsNone(deserialize(None))

    def test_a_message_class_sent_again_still_carries_what_its_instance_holds_now(self):
        first = serialize(SimpleMessage(integer=1, string='a'))
        message = SimpleMessage(integer=2, string='b')
        message.added = 3
        message._private = 4
        self.assertEqual(first['data'], '{"integer":1,"string":"a"}')
        self.assertEqual(serialize(message), {'classname': 'tests.sample_messages.SimpleMessage', 'encoding': 'json', 'data': '{"integer":2,"string":"b","added":3}'})

    def test_enum_members_that_are_ints_travel_as_their_number(self):
        import enum

        class Level(enum.IntEnum):
            HIGH = 3

        message = SimpleMessage(integer=Level.HIGH, string='a')
        self.assertEqual(serialize(message)['data'], '{"integer":3,"string":"a"}')


class JsonCodecTest(unittest.TestCase):
    """The prebuilt encoders and decoder give json.dumps' and json.loads' text, values and errors."""

    def test_encoding_matches_json_dumps(self):
        values = [{'a': [1, 2.5, None, True, 'é \u2028 "q"'], 'b': {1: 2}}, 'text', 3, [], {}, float('inf')]
        for ensure_ascii in (False, True):
            encode = compact_json_encoder(ensure_ascii=ensure_ascii, allow_nan=True)
            for value in values:
                self.assertEqual(encode(value), json.dumps(value, ensure_ascii=ensure_ascii, separators=(',', ':')))

    def test_encoding_errors_match_json_dumps(self):
        circular = []
        circular.append(circular)
        encode = compact_json_encoder(ensure_ascii=False, allow_nan=False)
        with self.assertRaisesRegex(ValueError, 'Circular reference detected'):
            encode({'a': circular})
        with self.assertRaisesRegex(ValueError, 'Out of range float'):
            encode([float('nan')])
        with self.assertRaisesRegex(TypeError, 'not JSON serializable'):
            encode({'a': object()})

    def test_decoding_matches_json_loads(self):
        for text in ['{"a":[1,2.5,null,"\\u00e9"]}', ' {"a":1}', '{"a":1}\n', '"x"', b'{"a":1}']:
            self.assertEqual(loads(text), json.loads(text))
        for text in ['', '   ', '{"a":1}x', '{"a" 1}', '[1,2']:
            with self.assertRaises(json.JSONDecodeError) as expected:
                json.loads(text)
            with self.assertRaises(json.JSONDecodeError) as got:
                loads(text)
            self.assertEqual(str(got.exception), str(expected.exception))


class FlatAttributesTest(unittest.TestCase):
    """A message of plain values is written from a template: the encoder's text to the byte."""

    def test_plain_values_are_written_as_the_encoder_writes_them(self):
        message = SimpleMessage(integer=-12345678901234567890, string='é "q" \\ \n \x00 \u2028 \udcff 日本')
        message._iris_id = 7  # learnt on receipt: never part of the body
        message.flag, message.off, message.nothing = True, False, None
        setattr(message, 'odd %s "key" %', 'v%d')
        for value in (message, SimpleMessage(), SimpleMessage(0, '')):
            text = flat_attributes_json(value)
            self.assertIsNotNone(text)
            self.assertEqual(text, _dumps(_attributes(value)))
            self.assertEqual(serialize(value)['data'], text)

    def test_other_values_go_the_general_way(self):
        class Text(str):
            pass

        for other in (1.5, float('nan'), [1], {'a': 1}, Text('t'), Inner(name='x'), datetime.date(2026, 1, 2)):
            message = SimpleMessage(integer=1, string='a')
            message.extra = other
            self.assertIsNone(flat_attributes_json(message), other)
        message = SimpleMessage(1, 'a')
        message.extra = float('nan')
        with self.assertRaises(ValueError):
            serialize(message)
        if hasattr(sys, 'get_int_max_str_digits'):  # Python 3.11 and later refuse to write longer ints
            self.assertEqual(serialize(Boxed(payload=10 ** 5000))['encoding'], 'pickle')  # pickled, as before
            with self.assertRaises(ValueError):
                serialize(SimpleMessage(integer=10 ** 5000))


class PickleCarrierTest(unittest.TestCase):
    def test_pickle_body_is_understood(self):
        body = serialize_pickle(SimpleMessage(5, 'p'))
        self.assertEqual(body['encoding'], 'pickle')
        self.assertEqual(base64.b64decode(body['data']), pickle.dumps(SimpleMessage(5, 'p')))
        self.assertEqual(deserialize(body), SimpleMessage(5, 'p'))

    def test_pickle_message_travels_as_json_when_it_can(self):
        self.assertEqual(serialize(Boxed(payload=[1, 2]))['encoding'], 'json')

    def test_pickle_message_falls_back_to_pickle_for_values_json_cannot_carry(self):
        body = serialize(Boxed(payload=complex(1, 2)))
        self.assertEqual(body['encoding'], 'pickle')
        self.assertEqual(deserialize(body).payload, complex(1, 2))


if __name__ == '__main__':
    unittest.main()
