import json
import os
import struct
import threading
import time
import unittest

from conveyor_host.channel import Channel, EngineError, _encode, _holds_long_string, _hot_frame_json, _lift


class FakeEngine:
    """The other end of the two pipes: reads the worker's frames and writes frames to it."""

    def __init__(self):
        self.to_worker_read, self.to_worker_write = os.pipe()
        self.from_worker_read, self.from_worker_write = os.pipe()
        self.ended = threading.Event()
        self.channel = Channel(self.to_worker_read, self.from_worker_write, on_close=self.ended.set)
        self._reader = open(self.from_worker_read, 'rb', closefd=False)
        self._closed = False

    def read_raw(self):
        """The head (parsed JSON) and the carried strings' bytes of the worker's next frame."""
        size, head_size = struct.unpack('>II', self._reader.read(8))
        head = json.loads(self._reader.read(head_size).decode('utf-8'))
        return head, self._reader.read(size - 4 - head_size)

    def read(self):
        head, rest = self.read_raw()
        if not rest:
            return head
        frame, slots = head
        for size, *path in slots:
            parent = frame
            for key in path[:-1]:
                parent = parent[key]
            parent[path[-1]] = rest[:size].decode('utf-8')
            rest = rest[size:]
        return frame

    def write(self, frame, carried=()):
        """Writes `frame`; `carried` lists (path, text): strings sent after the head, as the engine does."""
        strings = [text.encode('utf-8') for _, text in carried]
        head = [frame, [[len(data), *path] for (path, _), data in zip(carried, strings)]] if carried else frame
        payload = json.dumps(head).encode('utf-8')
        rest = b''.join(strings)
        os.write(self.to_worker_write, struct.pack('>II', 4 + len(payload) + len(rest), len(payload)) + payload + rest)

    def close(self):
        if not self._closed:
            self._closed = True
            os.close(self.to_worker_write)


class ChannelTest(unittest.TestCase):
    def setUp(self):
        self.engine = FakeEngine()
        self.engine.channel.start()

    def tearDown(self):
        # The channel's reader must have seen the end before its descriptor is closed: a closed
        # number is reused by the next test's pipe, which a late reader would then read from.
        self.engine.close()
        self.assertTrue(self.engine.ended.wait(5), 'the channel reader did not end')
        for fd in (self.engine.to_worker_read, self.engine.from_worker_read, self.engine.from_worker_write):
            os.close(fd)

    def test_requests_are_answered_by_id_while_other_frames_reach_the_inbox(self):
        results = []
        caller = threading.Thread(target=lambda: results.append(self.engine.channel.request({'t': 'op', 'op': 'send_sync'})), daemon=True)
        caller.start()
        sent = self.engine.read()
        self.engine.write({'t': 'invoke', 'id': 7})
        self.engine.write({'t': 'result', 'id': sent['id'], 'value': {'answer': 42}})
        caller.join(5)
        self.assertFalse(caller.is_alive(), 'the caller is still waiting for its answer')
        self.assertEqual(results, [{'answer': 42}])
        self.assertEqual(self.engine.channel.inbox.get(timeout=5), {'t': 'invoke', 'id': 7})
        self.engine.close()

    def test_a_refused_request_raises_with_the_engine_message_and_code(self):
        errors = []

        def call():
            try:
                self.engine.channel.request({'t': 'op', 'op': 'send_sync'})
            except EngineError as error:
                errors.append((str(error), error.code))

        caller = threading.Thread(target=call, daemon=True)
        caller.start()
        sent = self.engine.read()
        self.engine.write({'t': 'failure', 'id': sent['id'], 'failure': {'code': 'ERR_ITEM_NOT_FOUND', 'message': 'No item named X'}})
        caller.join(5)
        self.assertFalse(caller.is_alive(), 'the caller is still waiting for its answer')
        self.assertEqual(errors, [('No item named X', 'ERR_ITEM_NOT_FOUND')])
        self.engine.close()

    def test_a_closed_connection_fails_waiting_requests_and_ends_the_inbox(self):
        errors = []

        def call():
            try:
                self.engine.channel.request({'t': 'op', 'op': 'send_sync'})
            except EngineError as error:
                errors.append(str(error))

        caller = threading.Thread(target=call, daemon=True)
        caller.start()
        self.engine.read()
        self.engine.close()
        caller.join(5)
        self.assertFalse(caller.is_alive(), 'the caller is still waiting for its answer')
        self.assertEqual(errors, ['the Conveyor engine closed the connection'])
        self.assertIsNone(self.engine.channel.inbox.get(timeout=5))
        with self.assertRaisesRegex(EngineError, 'closed'):
            self.engine.channel.request({'t': 'op'})

    def test_lone_surrogates_are_escaped_rather_than_breaking_the_frame(self):
        self.engine.channel.send({'t': 'log', 'text': 'bad \udcff name'})
        self.assertEqual(self.engine.read(), {'t': 'log', 'text': 'bad \udcff name'})
        self.engine.close()

    def test_long_strings_travel_after_the_head_and_the_sent_frame_is_left_as_it_was(self):
        body = {'classname': 'msg.Big', 'encoding': 'json', 'data': json.dumps({'text': 'é' * 600 + 'x' * 2000})}
        frame = {'t': 'op', 'op': 'send_multi', 'calls': [{'target': 'A', 'body': body}, {'target': 'B', 'body': {'data': 'short'}}]}
        self.engine.channel.send(frame)
        (head, slots), rest = self.engine.read_raw()
        self.assertEqual(head['calls'][0]['body']['data'], 0)
        self.assertEqual(slots, [[len(body['data'].encode('utf-8')), 'calls', 0, 'body', 'data']])
        self.assertEqual(rest.decode('utf-8'), body['data'])
        self.assertEqual(frame['calls'][0]['body'], body)
        self.engine.channel.send(frame)
        self.assertEqual(self.engine.read(), frame)
        self.engine.close()

    def test_a_long_frame_without_long_strings_is_its_own_head(self):
        frame = {'t': 'log', 'text': [str(i) * 20 for i in range(100)]}
        self.engine.channel.send(frame)
        self.assertEqual(self.engine.read_raw(), (frame, b''))
        self.engine.close()

    def test_the_check_for_long_strings_agrees_with_the_walk_that_lifts_them(self):
        long = 'x' * 1024

        class Text(str):
            pass

        def nest(value, levels):
            for level in range(levels):
                value = {'k': value} if level % 2 else [value]
            return value

        for depth in range(1, 7):
            for leaf in (long, Text(long), 'short'):
                frame = {'t': 'op', 'n': 1, 'none': None, 'flag': True, 'v': nest(leaf, depth - 1)}
                slots = []
                _lift(frame, [], slots, [], [], {})
                self.assertEqual(_holds_long_string(frame, 0), bool(slots), (depth, type(leaf), len(leaf)))
        self.engine.close()

    def test_a_reader_files_the_answer_of_a_thread_that_waits_its_turn(self):
        channel = self.engine.channel
        requests, results = [], []
        reader = threading.Thread(target=lambda: requests.append(channel.inbox.get(timeout=5)), daemon=True)
        reader.start()
        deadline = time.monotonic() + 5
        while not channel._reading:  # the inbox reads the pipe: the caller below has to sleep
            self.assertLess(time.monotonic(), deadline, 'the inbox never started reading')
            time.sleep(0.005)
        caller = threading.Thread(target=lambda: results.append(channel.request({'t': 'op', 'op': 'send_sync'})), daemon=True)
        caller.start()
        sent = self.engine.read()
        self.engine.write({'t': 'result', 'id': sent['id'], 'value': 'answered'})
        caller.join(5)
        self.assertEqual(results, ['answered'])
        self.engine.write({'t': 'invoke', 'id': 8})
        reader.join(5)
        self.assertEqual(requests, [{'t': 'invoke', 'id': 8}])
        self.engine.close()

    def test_carried_strings_of_the_engine_are_put_back_in_place(self):
        first = 'ü' * 3000
        second = 'y' * 5000
        self.engine.write({'t': 'invoke', 'id': 3, 'args': {'request': {'data': 0}, 'list': ['a', 0]}}, [(['args', 'request', 'data'], first), (['args', 'list', 1], second)])
        self.assertEqual(self.engine.channel.inbox.get(timeout=5), {'t': 'invoke', 'id': 3, 'args': {'request': {'data': first}, 'list': ['a', second]}})
        self.engine.close()

    def test_a_long_string_with_a_lone_surrogate_stays_escaped_in_the_head(self):
        text = 'bad \udcff name ' * 200
        self.engine.channel.send({'t': 'log', 'text': text})
        head, rest = self.engine.read_raw()
        self.assertEqual((head, rest), ({'t': 'log', 'text': text}, b''))
        self.engine.close()

    def test_the_frames_written_from_a_template_are_the_encoders_to_the_byte(self):
        class Text(str):
            pass

        body = {'classname': 'msg.Order', 'encoding': 'json', 'data': json.dumps({'text': 'é "q" \\ \n \u2028 \x00'}, ensure_ascii=False)}
        op = {'t': 'op', 'op': 'send_sync', 'call': 12, 'target': 'Operation', 'body': body, 'timeoutMs': -1, 'description': 'Svc -> Operation ü', 'id': 3}
        result = {'t': 'result', 'id': 4, 'value': body}
        self.assertEqual(_hot_frame_json(op), _encode(op))
        self.assertEqual(_hot_frame_json(result), _encode(result))
        self.assertEqual(_hot_frame_json(dict(op, call=None)), _encode(dict(op, call=None)))
        # Anything else goes through the encoder: other types, long strings, another key order.
        for other in (
            dict(op, call='12'), dict(op, call=True), dict(op, timeoutMs=2.5), dict(op, id=True), dict(op, description=None),
            dict(op, description=Text('d')), dict(op, target='x' * 1024), dict(op, body=dict(body, data='x' * 1024)),
            dict(op, body={'encoding': 'json', 'classname': 'msg.Order', 'data': '{}'}), dict(op, body=dict(body, extra=1)),
            dict(op, t='log'), dict(result, value=None), dict(result, value={'className': 'X', 'adapterType': None}),
            dict(result, t='failure'), dict(result, id='4'), {'id': 4, 't': 'result', 'value': body}, [op],
        ):
            self.assertIsNone(_hot_frame_json(other), other)
        self.engine.close()

    def test_a_templated_frame_with_a_lone_surrogate_goes_out_escaped(self):
        body = {'classname': 'msg.Order', 'encoding': 'json', 'data': '{"name":"bad \udcff"}'}
        self.engine.channel.send({'t': 'result', 'id': 4, 'value': body})
        self.assertEqual(self.engine.read(), {'t': 'result', 'id': 4, 'value': body})
        self.engine.close()


if __name__ == '__main__':
    unittest.main()
