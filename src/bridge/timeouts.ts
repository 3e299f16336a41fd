/**
 * How long the engine waits on Python before it ends the worker (docs/python-bridge.md, Timeouts).
 * Every wait on a worker has one of these budgets; none of them is "forever".
 */
export interface BridgeTimeouts {
  /** Spawning python3 until its hello frame. */
  startMs: number;
  /** `init`: importing the class, applying settings, on_connected and on_init. */
  initMs: number;
  /**
   * One hook (on_message, on_process_input, on_response, on_complete). Counts time spent in Python:
   * the clock pauses while the engine serves an op of that call (a synchronous send has its own timeout).
   */
  callMs: number;
}

export const defaultBridgeTimeouts: BridgeTimeouts = {
  startMs: 30_000,
  initMs: 60_000,
  callMs: 300_000,
};

/** The Python of one DTL action (`<code>`, a Python expression). */
export const defaultDtlPythonTimeoutMs = 30_000;

/** How long an idle DTL worker is kept for the next transform run before it is ended. */
export const dtlWorkerIdleMs = 30_000;
