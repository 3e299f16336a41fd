/**
 * How a long command shows its progress on stderr (stdout keeps exactly the command's own output):
 *  - live: one line redrawn in place, a spinner, a bar of items done when their number is known, and
 *    the last event; failures stay on screen above it. Cleared when the command ends.
 *  - plain: each event on a line of its own, nothing redrawn (logs, pipes, CI).
 *  - off: nothing.
 * live when stdout and stderr are both terminals (not TERM=dumb), plain otherwise;
 * CONVEYOR_PROGRESS=live|plain|off chooses (docs/cli.md).
 */
import type { CliIo } from './context.ts';

export type ProgressStyle = 'live' | 'plain' | 'off';

export function progressStyle(io: Pick<CliIo, 'env' | 'stdoutIsTty' | 'stderrIsTty'>): ProgressStyle {
  const chosen = io.env.CONVEYOR_PROGRESS;
  if (chosen === 'live' || chosen === 'plain' || chosen === 'off') return chosen;
  // A dumb terminal cannot erase a line: it gets the plain lines.
  return io.stdoutIsTty && io.stderrIsTty && io.env.TERM !== 'dumb' ? 'live' : 'plain';
}

export interface ProgressView {
  /** How many steps the command has, once known (the bar then shows done/total). */
  setTotal(total: number): void;
  /** Something happened; `counts` when it is one of the steps. `failure` keeps it on screen. */
  event(text: string, options?: { counts?: boolean; failure?: boolean }): void;
  /** Writes other output (a log line on stdout) without mixing it into the live line. */
  print(write: () => void): void;
  /** The command is over: the live line is removed. */
  finish(): void;
}

/** Where a live line is drawn: raw text, no newline added. */
export interface TerminalStream {
  write(text: string): void;
  columns?: number;
}

const spinnerFrames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const tickMs = 100;
const barWidth = 20;
const clearLine = '\r\x1b[2K';

export function createProgressView(style: ProgressStyle, title: string, io: Pick<CliIo, 'err'>, terminal: TerminalStream): ProgressView {
  if (style === 'off') return { setTotal() {}, event() {}, print: (write) => write(), finish() {} };
  if (style === 'plain') {
    return {
      setTotal() {},
      event: (text) => io.err(text),
      print: (write) => write(),
      finish() {},
    };
  }
  return liveView(title, terminal);
}

function liveView(title: string, terminal: TerminalStream): ProgressView {
  let total: number | undefined;
  let done = 0;
  let last = '';
  let frame = 0;
  let finished = false;
  const draw = () => {
    if (finished) return;
    const parts = [spinnerFrames[frame % spinnerFrames.length], title];
    if (total !== undefined && total > 0) {
      const filled = Math.round((Math.min(done, total) / total) * barWidth);
      parts.push(`[${'█'.repeat(filled)}${'░'.repeat(barWidth - filled)}] ${Math.min(done, total)}/${total}`);
    }
    if (last) parts.push(`· ${last}`);
    terminal.write(`${clearLine}${fit(parts.join(' '), (terminal.columns || 80) - 1)}`);
  };
  const timer = setInterval(() => {
    frame++;
    draw();
  }, tickMs);
  // The spinner must never keep a finished command alive.
  timer.unref();
  draw();
  return {
    setTotal(count) {
      total = count;
      draw();
    },
    event(text, options = {}) {
      if (options.counts) done++;
      if (options.failure) terminal.write(`${clearLine}${text}\n`);
      last = text;
      draw();
    },
    print(write) {
      if (!finished) terminal.write(clearLine);
      write();
      draw();
    },
    finish() {
      if (finished) return;
      finished = true;
      clearInterval(timer);
      terminal.write(clearLine);
    },
  };
}

/** Cut to the terminal's width: a wrapped line could not be redrawn in place. */
function fit(text: string, width: number): string {
  const characters = [...text];
  return characters.length <= width ? text : `${characters.slice(0, Math.max(0, width - 1)).join('')}…`;
}
