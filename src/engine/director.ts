/**
 * The lifecycle of the productions of one namespace: at most one runs at a time.
 *
 *   stopped ──start──▶ starting ──▶ running ──stop──▶ stopping ──▶ stopped | suspended
 *   running ──kill──▶ stopped | suspended        (server died while running) ──▶ troubled
 *
 * `suspended`: stopped while requests were still queued (they resume on the next start).
 * `troubled`: the server died while the production ran; shown until it is started again.
 * Lifecycle commands of a namespace run one after another. In a cluster, a command taken here is
 * written to the store and announced; the other nodes apply it to their own runtime.
 */
import { ConveyorError, errorText } from '../core/errors.ts';
import type { ProductionState, ReportedStatus } from '../core/production.ts';
import type { Store } from '../store/store.ts';
import type { ControlOp, Coordinator } from './coordinator.ts';
import type { Resolver } from './component-resolver.ts';
import type { EventLog } from './event-log.ts';
import { RunningProduction, type OutcomeCounts, type RunningProductionOptions } from './running-production.ts';

export interface DirectorOptions {
  drainTimeoutMs: number;
  graceMs: number;
  transforms: RunningProductionOptions['transforms'];
  /** This server among the nodes sharing the store (alone on SQLite). */
  coordinator: Coordinator;
  onError: (error: unknown) => void;
}

type ItemAction = 'start' | 'stop' | 'restart';

export class Director {
  state: ProductionState = 'stopped';
  /** The production the state is about (running, stopping, troubled or last stopped). */
  production = '';
  running: RunningProduction | null = null;
  /** Messages handled per item since the server started. */
  readonly counts: OutcomeCounts = new Map();
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly store: Store,
    readonly namespace: string,
    private readonly resolver: Resolver,
    readonly log: EventLog,
    private readonly options: DirectorOptions,
  ) {}

  /**
   * At server start: a production recorded as running is joined when other live nodes run it, and
   * is troubled otherwise (this server died while running it).
   */
  async recoverState(): Promise<void> {
    const records = await this.store.productions.list(this.namespace);
    const crashed = records.find((r) => r.state === 'running');
    if (!crashed) return;
    const others = await this.otherLiveNodes();
    if (others.length > 0) {
      await this.serial(() => this.startLocal(crashed.name));
      this.log.write('Info', `Joined production ${crashed.name}, running on ${others.length} other node${others.length === 1 ? '' : 's'}`);
      return;
    }
    this.state = 'troubled';
    this.production = crashed.name;
    this.log.write('Warning', `Production ${crashed.name} was running when the server stopped unexpectedly; it is troubled until started again`);
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
    // The check that nothing runs and the start itself happen under a namespace-wide lease, so two
    // nodes starting at the same instant cannot both pass the check.
    return this.serial(() => this.options.coordinator.exclusively(`lifecycle:${this.namespace}`, () => this.startChecked(name)));
  }

  private async startChecked(name?: string): Promise<string> {
    const target = await this.resolveName(name);
    const holder = this.running?.name ?? (await this.runningElsewhere());
    if (holder) {
      throw new ConveyorError('ERR_PRODUCTION_RUNNING', `Production ${holder} is already running in namespace ${this.namespace}`, {
        hint: 'Stop it first (cli -S), or restart it (cli -r)',
      });
    }
    await this.startLocal(target);
    await this.store.productions.setState(this.namespace, target, { state: 'running', lastStartTime: Date.now() });
    await this.store.productions.setDefault(this.namespace, target);
    await this.log.writeNow('Info', `Production ${target} started`);
    this.announce({ command: 'start', production: target });
    return target;
  }

  /**
   * The production other live nodes run, as the store records it. A production recorded as
   * running while no other node is alive is a leftover of a crash (troubled), not a holder.
   */
  private async runningElsewhere(): Promise<string | undefined> {
    if ((await this.otherLiveNodes()).length === 0) return undefined;
    return (await this.store.productions.list(this.namespace)).find((r) => r.state === 'running')?.name;
  }

  private async otherLiveNodes() {
    const { coordinator } = this.options;
    return (await coordinator.liveNodes()).filter((node) => node.nodeId !== coordinator.nodeId);
  }

  stop(): Promise<void> {
    return this.serial(async () => {
      const running = this.requireRunning('stop');
      const left = await this.stopLocal(running);
      await this.recordEnd(running.name, left, 'stopped');
      this.announce({ command: 'stop' });
    });
  }

  kill(): Promise<void> {
    return this.serial(async () => {
      const running = this.requireRunning('kill');
      running.kill();
      const left = (await this.store.messages.unfinished(this.namespace)).length;
      this.ended(running.name, left);
      await this.recordEnd(running.name, left, 'killed');
      this.announce({ command: 'kill' });
    });
  }

  restart(): Promise<void> {
    return this.serial(async () => {
      const name = this.requireRunning('restart').name;
      await this.restartLocal();
      await this.store.productions.setState(this.namespace, name, { state: 'running', lastStartTime: Date.now() });
      await this.log.writeNow('Info', `Production ${name} restarted`);
      this.announce({ command: 'restart' });
    });
  }

  update(): Promise<{ added: string[]; removed: string[]; restarted: string[] }> {
    return this.serial(async () => {
      const running = this.requireRunning('update');
      const result = await this.updateLocal(running);
      const parts = Object.entries(result)
        .filter(([, names]) => names.length > 0)
        .map(([what, names]) => `${what} ${names.join(', ')}`);
      await this.log.writeNow('Info', `Production ${running.name} updated${parts.length ? `: ${parts.join('; ')}` : ': nothing changed'}`);
      this.announce({ command: 'update' });
      return result;
    });
  }

  /** Starts, stops or restarts one item of the running production (on every node). */
  component(action: ItemAction, item: string): Promise<void> {
    return this.serial(async () => {
      await this.componentLocal(this.requireRunning(`${action} a component`), action, item);
      this.announce({ command: 'component', action, item });
    });
  }

  withRunning<T>(what: string, action: (running: RunningProduction) => Promise<T>): Promise<T> {
    return this.serial(() => action(this.requireRunning(what)));
  }

  /** A command another node took: apply it to this node's runtime (the store already says so). */
  applyRemote(op: ControlOp): Promise<void> {
    return this.serial(async () => {
      try {
        if (op.command === 'start') {
          if (!this.running) await this.startLocal(op.production);
          return;
        }
        const running = this.running;
        if (!running) return;
        if (op.command === 'stop') this.ended(running.name, await this.stopLocal(running));
        else if (op.command === 'kill') {
          running.kill();
          this.ended(running.name, 0);
        } else if (op.command === 'restart') await this.restartLocal();
        else if (op.command === 'update') await this.updateLocal(running);
        else if (op.command === 'component') await this.componentLocal(running, op.action, op.item);
      } catch (error) {
        this.log.write('Error', `Could not apply ${op.command} from another node: ${errorText(error)}`);
      }
    });
  }

  /** On server shutdown: stop what runs here. When other nodes keep running it, this node only leaves it. */
  async shutdown(): Promise<void> {
    if (!this.running) return;
    if (this.options.coordinator.productionsOutliveShutdown) {
      await this.serial(async () => {
        if (this.running) this.ended(this.running.name, await this.stopLocal(this.running));
      });
      return;
    }
    await this.stop().catch(() => this.running?.kill());
  }

  private async startLocal(name: string): Promise<void> {
    const record = await this.store.productions.get(this.namespace, name);
    if (!record) throw new ConveyorError('ERR_PRODUCTION_NOT_FOUND', `Production ${name} does not exist in namespace ${this.namespace}`);
    this.state = 'starting';
    this.production = name;
    const running = new RunningProduction(this.store, this.namespace, record.definition, this.resolver, this.log, {
      drainTimeoutMs: this.options.drainTimeoutMs,
      graceMs: this.options.graceMs,
      transforms: this.options.transforms,
      counts: this.counts,
      coordinator: this.options.coordinator,
      onError: this.options.onError,
    });
    try {
      await running.start();
    } catch (error) {
      running.kill();
      this.state = 'stopped';
      throw error;
    }
    this.running = running;
    this.state = 'running';
  }

  private async stopLocal(running: RunningProduction): Promise<number> {
    this.state = 'stopping';
    return running.stop();
  }

  private async restartLocal(): Promise<void> {
    const running = this.requireRunning('restart');
    this.ended(running.name, await this.stopLocal(running));
    await this.startLocal(running.name);
  }

  private async updateLocal(running: RunningProduction) {
    const record = await this.store.productions.get(this.namespace, running.name);
    if (!record) throw new ConveyorError('ERR_PRODUCTION_NOT_FOUND', `Production ${running.name} no longer exists`);
    return running.update(record.definition);
  }

  private async componentLocal(running: RunningProduction, action: ItemAction, item: string): Promise<void> {
    if (action === 'start') await running.startItem(item);
    else if (action === 'stop') await running.stopItem(item);
    else await running.restartItem(item);
  }

  private announce(op: ControlOp): void {
    const { coordinator } = this.options;
    coordinator.announce({ type: 'control', namespace: this.namespace, op, origin: coordinator.nodeId });
  }

  private requireRunning(what: string): RunningProduction {
    if (!this.running) {
      throw new ConveyorError('ERR_PRODUCTION_NOT_RUNNING', `Cannot ${what}: no production is running in namespace ${this.namespace}`, {
        hint: 'Start one first (cli -s NAME)',
      });
    }
    return this.running;
  }

  private ended(name: string, left: number): void {
    this.running = null;
    this.state = left > 0 ? 'suspended' : 'stopped';
    this.production = name;
  }

  private async recordEnd(name: string, left: number, how: 'stopped' | 'killed'): Promise<void> {
    this.ended(name, left);
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
