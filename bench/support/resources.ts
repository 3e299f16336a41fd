/**
 * CPU time and memory of the benchmark process together with its children (the python3 workers,
 * a server under test), read from /proc: process.cpuUsage() alone would hide the Python side.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';

const clockTicks = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();
const pageBytes = 4096;

interface ProcStat {
  ppid: number;
  cpuMs: number;
}

function readStat(pid: number): ProcStat | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may hold spaces: fields are counted after the last ')'.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(fields[1]), cpuMs: ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks };
  } catch {
    return null; // exited meanwhile
  }
}

function rssBytes(pid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]) * pageBytes;
  } catch {
    return 0;
  }
}

/** Every live descendant of `root` (children, grandchildren…). */
export function descendants(root = process.pid): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    const stat = readStat(pid);
    if (!stat) continue;
    const list = children.get(stat.ppid);
    if (list) list.push(pid);
    else children.set(stat.ppid, [pid]);
  }
  const found: number[] = [];
  const stack = [root];
  while (stack.length > 0) {
    for (const child of children.get(stack.pop()!) ?? []) {
      found.push(child);
      stack.push(child);
    }
  }
  return found;
}

export interface CpuReading {
  selfMs: number;
  children: Map<number, number>;
}

export function readCpu(): CpuReading {
  const usage = process.cpuUsage();
  const children = new Map<number, number>();
  for (const pid of descendants()) children.set(pid, readStat(pid)?.cpuMs ?? 0);
  return { selfMs: (usage.user + usage.system) / 1000, children };
}

export interface CpuSpent {
  /** CPU milliseconds of this Node process. */
  nodeMs: number;
  /** CPU milliseconds of its live children (Python workers, servers), started before or during the interval. */
  childrenMs: number;
}

export function cpuSince(start: CpuReading): CpuSpent {
  const now = readCpu();
  let childrenMs = 0;
  for (const [pid, ms] of now.children) childrenMs += ms - (start.children.get(pid) ?? 0);
  return { nodeMs: now.selfMs - start.selfMs, childrenMs };
}

/** Samples the resident memory of this process and its children until stopped; keeps the peaks. */
export class RssSampler {
  peakNodeBytes = 0;
  peakTotalBytes = 0;
  readonly samples: Array<{ atMs: number; nodeBytes: number; totalBytes: number }> = [];
  private readonly timer: NodeJS.Timeout;
  private readonly started = performance.now();
  private children: number[] = [];

  constructor(
    intervalMs = 200,
    private readonly root = process.pid,
  ) {
    this.sample();
    this.timer = setInterval(() => this.sample(), intervalMs);
    this.timer.unref();
  }

  sample(): void {
    const nodeBytes = this.root === process.pid ? process.memoryUsage.rss() : rssBytes(this.root);
    let totalBytes = nodeBytes;
    // Finding the descendants reads every process's /proc entry (about 5 ms of CPU on a busy
    // machine, charged to the process measured): the list is refreshed once a second, not per sample.
    if (this.samples.length % 5 === 0) this.children = descendants(this.root);
    for (const pid of this.children) totalBytes += rssBytes(pid);
    this.peakNodeBytes = Math.max(this.peakNodeBytes, nodeBytes);
    this.peakTotalBytes = Math.max(this.peakTotalBytes, totalBytes);
    this.samples.push({ atMs: performance.now() - this.started, nodeBytes, totalBytes });
  }

  stop(): void {
    clearInterval(this.timer);
    this.sample();
  }
}

/** Resident memory of one process (e.g. a server under test), in bytes. */
export function processRss(pid: number): number {
  return rssBytes(pid);
}

export const mb = (bytes: number) => bytes / (1024 * 1024);

/** The 1-, 5- and 15-minute load averages: other work on the machine skews every figure. */
export function loadAverage(): number[] {
  return loadavg().map((value) => Math.round(value * 100) / 100);
}

export interface MachineInfo {
  nproc: number;
  cpuModel: string;
  memoryGb: number;
  node: string;
  python: string;
  kernel: string;
}

export function machineInfo(): MachineInfo {
  const model = /model name\s*:\s*(.+)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? cpus()[0]?.model ?? 'unknown';
  let python = 'unknown';
  try {
    python = execFileSync(process.env.CONVEYOR_PYTHON ?? 'python3', ['--version'], { encoding: 'utf8' }).trim();
  } catch {
    // reported as unknown
  }
  return {
    nproc: cpus().length,
    cpuModel: model.trim(),
    memoryGb: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    python,
    kernel: readFileSync('/proc/sys/kernel/osrelease', 'utf8').trim(),
  };
}

/** CPU milliseconds one process (e.g. a server under test) has used so far. */
export function processCpuMs(pid: number): number {
  return readStat(pid)?.cpuMs ?? 0;
}

/**
 * CPU milliseconds of the PostgreSQL server processes on this machine: every one, or with
 * `database`, its server-wide helpers (WAL writer, checkpointer…) and only the backends connected to
 * that database, so other users of the same server do not count.
 */
export function postgresCpuMs(database?: string): number {
  let total = 0;
  for (const { pid, title } of postgresProcesses()) if (database === undefined || servesDatabase(title, database)) total += processCpuMs(pid);
  return total;
}

/**
 * The same CPU milliseconds by role: `backends` (those connected to `database`), each server-wide
 * helper by name (checkpointer, walwriter…), and the postmaster.
 */
export function postgresCpuMsByRole(database: string): Map<string, number> {
  const byRole = new Map<string, number>();
  for (const { pid, title } of postgresProcesses()) {
    const role = title.includes(` ${database} `)
      ? 'backends'
      : (/^postgres: (?:\S+: )?(checkpointer|background writer|walwriter|autovacuum launcher|logical replication launcher)/.exec(title)?.[1] ??
        (title.startsWith('postgres:') ? undefined : 'postmaster'));
    if (role !== undefined) byRole.set(role, (byRole.get(role) ?? 0) + processCpuMs(pid));
  }
  return byRole;
}

/** Each PostgreSQL server process on this machine, with its process title. */
function* postgresProcesses(): Generator<{ pid: number; title: string }> {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let title: string;
    try {
      const text = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (!text.slice(text.indexOf('(') + 1, text.lastIndexOf(')')).startsWith('postgres')) continue;
      title = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
    } catch {
      continue; // exited meanwhile
    }
    yield { pid: Number(entry), title };
  }
}

/** A backend shows `postgres: [cluster: ]user database host(port) activity`; helpers show no client address. */
function servesDatabase(title: string, database: string): boolean {
  const client = /(\S+) (?:\S+\(\d+\)|\[local\])/.exec(title);
  return client === null || client[1] === database;
}
