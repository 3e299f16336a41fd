import json
import os
import struct
import subprocess
import sys
import textwrap
import unittest


class OrphanTest(unittest.TestCase):
    def test_a_worker_busy_in_user_code_exits_when_the_engine_goes_away(self):
        to_worker_read, to_worker_write = os.pipe()
        from_worker_read, from_worker_write = os.pipe()
        # A worker fed the init of a component whose on_init sleeps far longer than the test waits.
        script = textwrap.dedent(f'''
            import os, sys
            os.dup2({to_worker_read}, 3)
            os.dup2({from_worker_write}, 4)
            sys.argv = ['conveyor_host']
            import runpy
            runpy.run_module('conveyor_host', run_name='__main__')
        ''')
        worker = subprocess.Popen([sys.executable, '-c', script], pass_fds=(to_worker_read, from_worker_write), stdout=subprocess.PIPE, text=True, cwd=os.path.dirname(os.path.dirname(__file__)))
        os.close(to_worker_read)
        os.close(from_worker_write)
        frame = json.dumps({
            't': 'init', 'id': 1, 'module': 'tests.sleepy_component', 'className': 'Sleepy', 'classpaths': [],
            'configName': 'Sleepy', 'settings': {'host': {}, 'adapter': {}}, 'adapter': None,
        }).encode()
        os.write(to_worker_write, struct.pack('>II', len(frame) + 4, len(frame)) + frame)
        with open(from_worker_read, 'rb') as from_worker:
            size, head_size = struct.unpack('>II', from_worker.read(8))
            self.assertEqual(size, head_size + 4)
            self.assertEqual(json.loads(from_worker.read(head_size))['t'], 'hello')
            self.assertEqual(worker.stdout.readline(), 'sleeping\n')
            os.close(to_worker_write)  # the engine goes away while on_init sleeps
            self.assertEqual(worker.wait(timeout=20), 0)
        worker.stdout.close()


if __name__ == '__main__':
    unittest.main()
