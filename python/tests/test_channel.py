import json
import os
import struct
import threading
import unittest

from conveyor_host.channel import Channel, EngineError


class FakeEngine:
    """The other end of the two pipes: reads the worker's frames and writes frames to it."""

    def __init__(self):
        self.to_worker_read, self.to_worker_write = os.pipe()
        self.from_worker_read, self.from_worker_write = os.pipe()
        self.ended = threading.Event()
        self.channel = Channel(self.to_worker_read, self.from_worker_write, on_close=self.ended.set)
        self._reader = open(self.from_worker_read, 'rb', closefd=False)
        self._closed = False

    def read(self):
        (size,) = struct.unpack('>I', self._reader.read(4))
        return json.loads(self._reader.read(size).decode('utf-8'))

    def write(self, frame):
        payload = json.dumps(frame).encode('utf-8')
        os.write(self.to_worker_write, struct.pack('>I', len(payload)) + payload)

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


if __name__ == '__main__':
    unittest.main()
