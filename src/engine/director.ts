/**
 * The lifecycle of the productions of one namespace: at most one runs at a time.
 *
 *   stopped ──start──▶ starting ──▶ running ──stop──▶ stopping ──▶ stopped | suspended
 *   running ──kill──▶ stopped | suspended        (server died while running) ──▶ troubled
 *
 * `suspended`: stopped while requests were still queued (they resume on the next start).
 * `troubled`: the server died while the production ran; shown until it is started again.
 * Lifecycle commands of a namespace run one after another.
 */
import { ConveyorError } from '../core/errors.ts';
import type { ProductionState, ReportedStatus } from '../core/production.ts';
import type { Store } from '../store/store.ts';
import type { Resolver } from './component-resolver.ts';
import type { EventLog } from './event-log.ts';
import { RunningProduction, type OutcomeCounts, type RunningProductionOptions } from './running-production.ts';

export interface DirectorOptions {
  drainTimeoutMs: number;
  graceMs: number;
  transforms: RunningProductionOptions['transforms'];
}

export class Director {
  state: ProductionState = 'stopped';
  /** The production the state is about (running, stopping, troubled or last stopped). */
  production = '';
  running: RunningProduction | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  /** Messages handled per item since the server started. */
  readonly counts: OutcomeCounts = new Map();

  constructor(
    private readonly store: Store,
    readonly namespace: string,
    private readonly resolver: Resolver,
    readonly log: EventLog,
    private readonly options: DirectorOptions,
  ) {}

  /** After a crash: productions recorded as running without a live runtime are troubled. */
  async recoverState(): Promise<void> {
    const records = await this.store.productions.list(this.namespace);
    const crashed = records.find((r) => r.state === 'running');
    if (crashed) {
      this.state = 'troubled';
      this.production = crashed.name;
      this.log.write('Warning', `Production ${crashed.name} was running when the server stopped unexpectedly; it is troubled until started again`);
    }
  }

  reportedStatus(): ReportedStatus {
    switch (this.state) {
      case 'starting':
      case 'running':
      case 'stopping':
        return 'running';
      default:
        return this.state;
    }
  }

  start(name?: string): Promise<string> {
    return this.serial(async () => {
      const target = await this.resolveName(name);
      if (this.running) {
        throw new ConveyorError('ERR_PRODUCTION_RUNNING', `Production ${this.running.name} is already running in namespace ${this.namespace}`, {
          hint: 'Stop it first (cli -S), or restart it (cli -r)',
        });
      }
      const record = await this.store.productions.get(this.namespace, target);
      if (!record) throw new ConveyorError('ERR_PRODUCTION_NOT_FOUND', `Production ${target} does not exist in namespace ${this.namespace}`);
      this.state = 'starting';
      this.production = target;
      const running = new RunningProduction(this.store, this.namespace, record.definition, this.resolver, this.log, { ...this.options, counts: this.counts });
      try {
        await running.start();
      } catch (error) {
        running.kill();
        this.state = 'stopped';
        throw error;
      }
      this.running = running;
      this.state = 'running';
      await this.store.productions.setState(this.namespace, target, { state: 'running', lastStartTime: Date.now() });
      await this.store.productions.setDefault(this.namespace, target);
      await this.log.writeNow('Info', `Production ${target} started`);
      return target;
    });
  }

  stop(): Promise<void> {
    return this.serial(async () => {
      const running = this.requireRunning('stop');
      this.state = 'stopping';
      const left = await running.stop();
      await this.afterEnd(running.name, left, 'stopped');
    });
  }

  kill(): Promise<void> {
    return this.serial(async () => {
      const running = this.requireRunning('kill');
      running.kill();
      const left = (await this.store.messages.unfinished(this.namespace)).length;
      await this.afterEnd(running.name, left, 'killed');
    });
  }

  restart(): Promise<void> {
    return this.serial(async () => {
      const running = this.requireRunning('restart');
      const name = running.name;
      this.state = 'stopping';
      const left = await running.stop();
      await this.afterEnd(name, left, 'stopped');
      const record = await this.store.productions.get(this.namespace, name);
      if (!record) throw new ConveyorError('ERR_PRODUCTION_NOT_FOUND', `Production ${name} no longer exists`);
      this.state = 'starting';
      const next = new RunningProduction(this.store, this.namespace, record.definition, this.resolver, this.log, { ...this.options, counts: this.counts });
      await next.start();
      this.running = next;
      this.state = 'running';
      await this.store.productions.setState(this.namespace, name, { state: 'running', lastStartTime: Date.now() });
      await this.log.writeNow('Info', `Production ${name} restarted`);
    });
  }

  update(): Promise<{ added: string[]; removed: string[]; restarted: string[] }> {
    return this.serial(async () => {
      const running = this.requireRunning('update');
      const record = await this.store.productions.get(this.namespace, running.name);
      if (!record) throw new ConveyorError('ERR_PRODUCTION_NOT_FOUND', `Production ${running.name} no longer exists`);
      const result = await running.update(record.definition);
      const parts = Object.entries(result)
        .filter(([, names]) => names.length > 0)
        .map(([what, names]) => `${what} ${names.join(', ')}`);
      await this.log.writeNow('Info', `Production ${running.name} updated${parts.length ? `: ${parts.join('; ')}` : ': nothing changed'}`);
      return result;
    });
  }

  /** Component-level commands run in the same line as lifecycle commands. */
  withRunning<T>(what: string, action: (running: RunningProduction) => Promise<T>): Promise<T> {
    return this.serial(() => action(this.requireRunning(what)));
  }

  /** On server shutdown: stop what runs, like an operator would. */
  async shutdown(): Promise<void> {
    if (this.running) await this.stop().catch(() => this.running?.kill());
  }

  private requireRunning(what: string): RunningProduction {
    if (!this.running) {
      throw new ConveyorError('ERR_PRODUCTION_NOT_RUNNING', `Cannot ${what}: no production is running in namespace ${this.namespace}`, {
        hint: 'Start one first (cli -s NAME)',
      });
    }
    return this.running;
  }

  private async afterEnd(name: string, left: number, how: 'stopped' | 'killed'): Promise<void> {
    this.running = null;
    this.state = left > 0 ? 'suspended' : 'stopped';
    this.production = name;
    await this.store.productions.setState(this.namespace, name, { state: 'stopped', lastStopTime: Date.now() });
    const rest = left > 0 ? ` with ${left} message${left === 1 ? '' : 's'} still queued (they resume on the next start)` : '';
    await this.log.writeNow(how === 'killed' ? 'Warning' : 'Info', `Production ${name} ${how}${rest}`);
  }

  private async resolveName(name: string | undefined): Promise<string> {
    if (name) return name;
    const fallback = await this.store.productions.getDefault(this.namespace);
    if (!fallback) {
      throw new ConveyorError('ERR_NO_DEFAULT_PRODUCTION', `No production was named and namespace ${this.namespace} has no default production`, {
        hint: 'Name one (cli -s NAME) or set the default (cli -d NAME)',
      });
    }
    return fallback;
  }

  private serial<T>(operation: () => Promise<T>): Promise<T> {
    const result = this.queue.then(operation, operation);
    this.queue = result.catch(() => undefined);
    return result;
  }
}
