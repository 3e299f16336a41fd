"""CPU per request of one Conveyor Python worker, without pipes or the engine: a real WorkerHost and
Channel read pre-encoded frames (init, then N invokes, and for a service or process the answer to
each of its send_request_sync calls) from a file on fd 3 and write to /dev/null on fd 4. The
components are the benchmark's (bench/fixtures/python). A lever for the worker's own code: the
same worker in a running chain costs about three times this (each frame arrives on a cold core).
Frames are encoded as the engine writes them (a long body's data carried raw after the head), and
the worker runs with the engine's malloc settings.

    python3 bench/python-worker-cpu.py operation|process|service [requests=20000] [payload_bytes=64] [frames_file]

With `frames_file`, the frames are read from that file, written there first when it does not exist:
a run then spends nothing on building them, so that instruction counts (the machine's load does not
move them) of a run with N requests less those of a run with 0 are the worker's own, for example

    valgrind --tool=callgrind --callgrind-out-file=/dev/null python3 bench/python-worker-cpu.py process 3000 64 /tmp/p3000.bin
    valgrind --tool=callgrind --callgrind-out-file=/dev/null python3 bench/python-worker-cpu.py process 0 64 /tmp/p0.bin

(each once beforehand without valgrind to write the file; `python3` must be the interpreter itself,
not a shim that execs it, and the frames name this checkout's fixtures, so keep a file per checkout).
"""
import json
import os
import struct
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, 'bench', 'fixtures', 'python')
sys.path[:0] = [os.path.join(ROOT, 'python'), FIXTURES]

from conveyor_host.channel import Channel, _lift  # noqa: E402
from conveyor_host.host import WorkerHost  # noqa: E402

CLASSES = {'operation': 'BenchOperation', 'process': 'BenchProcess', 'service': 'BenchService'}


def frame(value):
    """The frame as the engine writes it: long strings (a large body's data) carried after the head."""
    strings = []
    slots = []
    lifted = _lift(value, [], slots, strings, [], {})
    head = json.dumps([lifted, slots] if slots else value, separators=(',', ':')).encode()
    rest = b''.join(strings)
    return struct.pack('>II', 4 + len(head) + len(rest), len(head)) + head + rest


def frames_for(role, requests, payload_bytes):
    init = {'t': 'init', 'id': 1, 'namespace': 'USER', 'configName': role.title(), 'kind': role, 'job': 'bench', 'module': 'bench_components',
            'className': CLASSES[role], 'classpaths': [FIXTURES], 'settings': {'host': {}, 'adapter': {}}, 'adapter': None}
    request = {'classname': 'bench_message.BenchRequest', 'encoding': 'json', 'data': json.dumps({'sequence': 7, 'payload': 'x' * payload_bytes})}
    response = {'classname': 'bench_message.BenchResponse', 'encoding': 'json', 'data': json.dumps({'sequence': 7, 'size': payload_bytes})}
    parts = [frame(init)]
    for i in range(requests):
        args = {'input': request} if role == 'service' else {'request': request, 'messageId': 1000 + i}
        parts.append(frame({'t': 'invoke', 'id': i + 2, 'call': i + 1, 'hook': 'process_input' if role == 'service' else 'message', 'args': args}))
        if role != 'operation':  # the answer to the request it sends on (its ops are numbered from 1)
            parts.append(frame({'t': 'result', 'id': i + 1, 'value': response}))
    return b''.join(parts)


def main():
    if 'MALLOC_MMAP_THRESHOLD_' not in os.environ:
        # The engine starts its workers with these (src/bridge/python-worker.ts): large strings then
        # come from the heap instead of fresh mmaps whose pages fault in at every allocation.
        os.environ.update(MALLOC_MMAP_THRESHOLD_=str(16 << 20), MALLOC_TRIM_THRESHOLD_=str(16 << 20))
        os.execv(sys.executable, [sys.executable, *sys.argv])
    role = sys.argv[1] if len(sys.argv) > 1 else 'operation'
    if role not in CLASSES:
        sys.exit(f'role must be one of {", ".join(CLASSES)}')
    requests = int(sys.argv[2]) if len(sys.argv) > 2 else 20000
    payload_bytes = int(sys.argv[3]) if len(sys.argv) > 3 else 64
    cached = sys.argv[4] if len(sys.argv) > 4 else None
    if cached and not os.path.exists(cached):
        with open(cached, 'wb') as out:
            out.write(frames_for(role, requests, payload_bytes))
    with (open(cached, 'rb') if cached else tempfile.TemporaryFile()) as frames:
        if not cached:
            frames.write(frames_for(role, requests, payload_bytes))
            frames.seek(0)
        os.dup2(frames.fileno(), 3)
        os.dup2(os.open(os.devnull, os.O_WRONLY), 4)
        host = WorkerHost(Channel())
        cpu, wall = time.process_time(), time.perf_counter()
        host.run()
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    print(f'{role}: {cpu / max(requests, 1) * 1e6:.1f} µs CPU per request ({wall / max(requests, 1) * 1e6:.1f} µs wall), {requests} requests of {payload_bytes} bytes')


main()
