/**
 * The DTL engine's Python hook for the server: each call runs `python/conveyor_dtl/evaluate.py` in a
 * `python3` child with the documents as JSON. A child per call keeps user code of transforms apart
 * from the components' workers; transforms that use Python pay a process start per run.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { PythonRequest, PythonResult } from '../dtl/index.ts';

const sdkRoot = fileURLToPath(new URL('../../python', import.meta.url));

export function pythonRunner(interpreter = process.env['CONVEYOR_PYTHON'] ?? 'python3'): (request: PythonRequest) => Promise<PythonResult> {
  return (request) =>
    new Promise((resolve, reject) => {
      const child = spawn(interpreter, ['-m', 'conveyor_dtl.evaluate'], {
        stdio: ['pipe', 'pipe', 'pipe'],
        env: { ...process.env, PYTHONPATH: [sdkRoot, process.env['PYTHONPATH']].filter(Boolean).join(':') },
      });
      let out = '';
      let err = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
      child.on('error', reject);
      child.on('close', (code) => {
        if (code !== 0) reject(new Error(err.trim().split('\n').pop() ?? `python exited with ${code}`));
        else resolve(JSON.parse(out) as PythonResult);
      });
      child.stdin.end(JSON.stringify(request));
    });
}
