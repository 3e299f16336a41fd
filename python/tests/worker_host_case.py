"""A real worker host on the other end of a FakeEngine's pipes, started for each test: the frames a
test writes reach the host as the engine's would, and what the host answers is read back."""
import os
import threading
import unittest

from conveyor_host.host import WorkerHost
from iop import _runtime
from tests.test_channel import FakeEngine


class WorkerHostCase(unittest.TestCase):
    def setUp(self):
        self.engine = FakeEngine()
        self.engine.channel.start()
        self.host = threading.Thread(target=WorkerHost(self.engine.channel).run, daemon=True)
        self.host.start()
        self.assertEqual(self.engine.read()['t'], 'hello')

    def tearDown(self):
        self.engine.close()
        self.host.join(5)
        self.assertTrue(self.engine.ended.wait(5), 'the channel reader did not end')
        for fd in (self.engine.to_worker_read, self.engine.from_worker_read, self.engine.from_worker_write):
            os.close(fd)
        _runtime.link.channel = None  # the next test's code runs outside a worker again
