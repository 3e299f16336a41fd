/**
 * The lifecycle of the productions of one namespace: at most one runs at a time.
 *
 *   stopped ──start──▶ starting ──▶ running ──stop──▶ stopping ──▶ stopped | suspended
 *   running ──kill──▶ stopped | suspended        (server died while running) ──▶ troubled
 *
 * `suspended`: stopped while requests were still queued (they resume on the next start).
 * `troubled`: the server died while the production ran; shown until it is started again.
 * Lifecycle commands of a namespace run one after another, but that order never waits on user code
 * without a bound: every wait inside a command has a timeout, a stop that runs out escalates to a
 * kill, kill pre-empts whatever command is under way, and a test call waits for its reply outside
 * the order. In a cluster, a command taken here is written to the store and announced; the other
 * nodes apply it to their own runtime.
 */
import type { Reply } from '../core/component.ts';
import { ConveyorError, errorText } from '../core/errors.ts';
import type { MessageBody } from '../core/message.ts';
import { productionSecondsOf, type ProductionState, type ReportedStatus } from '../core/production.ts';
import type { Store } from '../store/store.ts';
import type { ClusterEvent, ControlOp, Coordinator } from './coordinator.ts';
import type { Resolver } from './component-resolver.ts';
import type { EventLog } from './event-log.ts';
import { NamespaceMonitor } from './monitor/namespace-monitor.ts';
import { RunningProduction, type RunningProductionOptions } from './running-production.ts';
import { awaitTestReply, defaultTestTimeoutMs, refuseUnready, refuseUntestable, testingService } from './test-call.ts';
import { timerDelay } from './timer-delay.ts';
import { forgetMessageCheckWorkers } from './message-class-check.ts';

export interface DirectorOptions {
  drainTimeoutMs: number;
  graceMs: number;
  /** One job's start (worker, import, on_init); past it the worker is ended. Default 60 s. */
  initTimeoutMs?: number;
  /** A stop that takes longer escalates to a kill. Default drain + 2 × grace + 5 s. */
  stopTimeoutMs?: number;
  /** How long a test call waits for its reply unless it says otherwise. Default 300 s. */
  testTimeoutMs?: number;
  transforms: RunningProductionOptions['transforms'];
  rules?: RunningProductionOptions['rules'];
  /** This server among the nodes sharing the store (alone on SQLite). */
  coordinator: Coordinator;
  onError: (error: unknown) => void;
}

type ItemAction = 'start' | 'stop' | 'restart';

export interface TestCall {
  target: string;
  body: MessageBody;
  /** Restart the target item before the call. */
  restart: boolean;
  /** How long to wait for the reply (default: the director's testTimeoutMs). */
  timeoutMs?: number;
}

export interface TestCallResult {
  reply: Reply;
  sessionId: number;
  durationMs: number;
}

export class Director {
  state: ProductionState = 'stopped';
  /** The production the state is about (running, stopping, troubled or last stopped). */
  production = '';
  running: RunningProduction | null = null;
  /** Live figures of the items since the server started, and the alerts. */
  readonly monitor: NamespaceMonitor;
  private queue: Promise<unknown> = Promise.resolve();
  /** The production being started, running or being stopped here: what a kill ends. */
  private live: RunningProduction | null = null;
  /** The record of the last kill: commands taken after it wait for it, not for what it pre-empted. */
  private killRecorded: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly store: Store,
    readonly namespace: string,
    private readonly resolver: Resolver,
    readonly log: EventLog,
    private readonly options: DirectorOptions,
  ) {
    this.monitor = new NamespaceMonitor(namespace, store, log, () => this.running, { onError: options.onError });
  }

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

  /** This server among the nodes sharing the store. */
  get nodeId(): string {
    return this.options.coordinator.nodeId;
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
    const running = await this.startLocal(target);
    await this.store.productions.setState(this.namespace, target, { state: 'running', lastStartTime: Date.now() });
    await this.store.productions.setDefault(this.namespace, target);
    // A kill that landed while the start was recorded already recorded the end: say so, not "started".
    this.assertNotKilled(running, 'start');
    await this.log.writeNow('Info', `Production ${target} started`);
    this.assertNotKilled(running, 'start');
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

  /**
   * Stops the production; past `limitMs` the stop escalates to a kill (as IRIS does). The limit
   * counts from the request, not from when the stop's turn comes: a command still holding the order
   * then is ended by the kill.
   */
  stop(limitMs = this.stopTimeoutMs): Promise<void> {
    const target = this.live;
    const deadline = Date.now() + limitMs;
    // A command under way may be waiting on an on_init (a start, an item restart, an update): it
    // gives up now, and no further item begins to start, so this stop need not wait for it.
    target?.abortStarting();
    let begun = false;
    const stopping = this.serial(async () => {
      begun = true;
      // The kill below ended it while this stop waited for its turn.
      if (target?.killed && this.live !== target) return;
      const running = this.requireRunning('stop');
      const { left, how } = await this.stopLocal(running, limitMs, deadline);
      // A kill that came meanwhile already recorded the end.
      if (this.live !== running) return;
      await this.recordEnd(running.name, left, how);
      this.announce({ command: 'stop' });
    });
    if (!target) return stopping;
    return this.killPast(stopping, target, deadline, limitMs, () => begun);
  }

  /**
   * The stop's limit while it waits for its turn: past `deadline`, when the stop has not begun (its
   * own stopLocal escalates once it has), the production is killed and the stop is done.
   */
  private async killPast(stopping: Promise<void>, target: RunningProduction, deadline: number, limitMs: number, begun: () => boolean): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), timerDelay(deadline - Date.now()));
    });
    try {
      if ((await Promise.race([stopping.then(() => 'done' as const), late])) === 'done') return;
    } finally {
      clearTimeout(timer);
    }
    if (begun() || this.live !== target) return stopping;
    stopping.catch(() => undefined);
    this.log.write('Warning', `Production ${target.name} did not stop within ${limitMs} ms (an earlier command still held it up); killing it`);
    await this.kill();
  }

  /**
   * Ends every job at once, without waiting for a command under way (that command then fails
   * without recording anything). Messages in flight stay queued and resume on the next start.
   */
  kill(): Promise<void> {
    const running = this.live;
    if (!running) return Promise.reject(this.notRunning('kill'));
    running.kill();
    this.ended(running.name, 0);
    const record = (async () => {
      const left = (await this.store.messages.unfinished(this.namespace)).length;
      await this.recordEnd(running.name, left, 'killed');
      this.announce({ command: 'kill' });
    })();
    this.killRecorded = record.catch(() => undefined);
    return record;
  }

  restart(): Promise<void> {
    // As for stop: a command under way gives up its starts, and the stop part's limit counts from now.
    this.live?.abortStarting();
    const deadline = Date.now() + this.stopTimeoutMs;
    return this.serial(async () => {
      const name = this.requireRunning('restart').name;
      await this.restartLocal(deadline);
      await this.store.productions.setState(this.namespace, name, { state: 'running', lastStartTime: Date.now() });
      await this.log.writeNow('Info', `Production ${name} restarted`);
      this.announce({ command: 'restart' });
    });
  }

  /**
   * Applies the stored definition to the running production. Like a component command it runs after
   * the commands issued before it but outside the command order: its items' on_init and
   * on_tear_down hold up only commands on those items, and a stop or restart does not wait for it
   * (the update then fails, naming the stop).
   */
  async update(): Promise<{ added: string[]; removed: string[]; restarted: string[] }> {
    await this.afterEarlierCommands();
    const running = this.requireRunning('update');
    const result = await this.updateLocal(running);
    this.assertNotKilled(running, 'update');
    const parts = Object.entries(result)
      .filter(([, names]) => names.length > 0)
      .map(([what, names]) => `${what} ${names.join(', ')}`);
    await this.log.writeNow('Info', `Production ${running.name} updated${parts.length ? `: ${parts.join('; ')}` : ': nothing changed'}`);
    this.announce({ command: 'update' });
    return result;
  }

  /**
   * Starts, stops or restarts one item of the running production (on every node). It runs after the
   * commands issued before it, but outside the command order: the item's on_tear_down and on_init
   * hold up only commands on the same item (a stop makes a stuck on_init give up).
   */
  async component(action: ItemAction, item: string): Promise<void> {
    await this.afterEarlierCommands();
    const running = this.requireRunning(`${action} a component`);
    await this.componentLocal(running, action, item);
    this.assertNotKilled(running, `${action} ${item}`);
    this.announce({ command: 'component', action, item });
  }

  /**
   * Checks a body for `target` as a test call checks its message (the class imports from the item's
   * classpaths and the body fits it; bounded by the check's own timeout), outside the command order.
   */
  async checkMessageFor(target: string, body: MessageBody, what: string): Promise<void> {
    const production = this.requireRunning(what);
    const host = production.requireHost(target);
    await this.resolver.checkTestMessage?.({ production: production.name, item: host.item }, body);
  }

  /** Tells the other nodes sharing the store (nobody on a single process). */
  tellOtherNodes(event: ClusterEvent): void {
    this.options.coordinator.announce(event);
  }

  withRunning<T>(what: string, action: (running: RunningProduction) => Promise<T>): Promise<T> {
    return this.serial(() => action(this.requireRunning(what)));
  }

  /**
   * A test call (spec POST /test). What could never be answered is refused at once, without
   * waiting for a command under way. The optional restart of the target, the send and the wait for
   * the reply (bounded by the call's timeout) run after the commands issued before, outside the
   * command order, like a component command; the restart and the send are one command on the item,
   * the wait for the reply is not.
   */
  async test(call: TestCall): Promise<TestCallResult> {
    // A start under way (here, or another node's being applied) reports running: wait for it
    // instead of refusing as if nothing ran.
    if (this.state === 'starting') await this.afterEarlierCommands();
    const production = this.requireRunning('test a component');
    const target = production.requireHost(call.target);
    refuseUntestable(target, call.restart);
    await this.resolver.checkTestMessage?.({ production: production.name, item: target.item }, call.body);
    await this.afterEarlierCommands();
    const running = this.requireRunning('test a component');
    const send = () => {
      if (call.restart) this.assertNotKilled(running, `restart ${call.target} for a test`);
      refuseUnready(running.requireHost(call.target), call.restart);
      return running.send({ source: testingService, parentId: null, sessionId: null }, call.target, call.body, {
        responseRequired: true,
        description: 'Test call',
      });
    };
    // With a restart, the send follows it in the item's command order: a concurrent test's restart
    // would otherwise stop the item between this restart and this send (refused as stopped).
    const sent = call.restart ? await running.restartItem(call.target, send) : await send();
    const reply = await awaitTestReply(running, call.target, sent, call.timeoutMs ?? this.options.testTimeoutMs ?? defaultTestTimeoutMs);
    return { reply, sessionId: sent.message.sessionId, durationMs: Date.now() - sent.message.createdAt };
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
        if (op.command === 'stop') this.ended(running.name, (await this.stopLocal(running, this.stopTimeoutMs)).left);
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

  /**
   * On server shutdown: stop what runs here within `budgetMs`, then kill what still runs (a command
   * under way may hold the order). When other nodes keep running it, this node only leaves it.
   */
  async shutdown(budgetMs = this.stopTimeoutMs): Promise<void> {
    if (!this.live) return;
    const leaving = this.options.coordinator.productionsOutliveShutdown;
    const stopping = leaving
      ? this.serial(async () => {
          if (this.running) this.ended(this.running.name, (await this.stopLocal(this.running, budgetMs)).left);
        })
      : this.stop(budgetMs);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), budgetMs);
    });
    const outcome = await Promise.race([
      stopping.then(
        () => 'done' as const,
        () => 'failed' as const,
      ),
      late,
    ]);
    clearTimeout(timer);
    const left = this.live;
    if (outcome === 'done' || !left) return;
    this.log.write('Warning', `Production ${left.name} did not stop within ${budgetMs} ms at server shutdown; killing it`);
    if (leaving) {
      left.kill();
      this.ended(left.name, 0);
      return;
    }
    await this.kill().catch((error: unknown) => this.options.onError(error));
  }

  private async startLocal(name: string): Promise<RunningProduction> {
    const record = await this.store.productions.get(this.namespace, name);
    if (!record) throw new ConveyorError('ERR_PRODUCTION_NOT_FOUND', `Production ${name} does not exist in namespace ${this.namespace}`);
    this.state = 'starting';
    this.production = name;
    // The message classes' code may have changed since the last run (a migration).
    forgetMessageCheckWorkers();
    const running = new RunningProduction(this.store, this.namespace, record.definition, this.resolver, this.log, {
      drainTimeoutMs: this.options.drainTimeoutMs,
      graceMs: this.options.graceMs,
      ...(this.options.initTimeoutMs === undefined ? {} : { initTimeoutMs: this.options.initTimeoutMs }),
      transforms: this.options.transforms,
      ...(this.options.rules ? { rules: this.options.rules } : {}),
      monitor: this.monitor,
      coordinator: this.options.coordinator,
      onError: this.options.onError,
    });
    this.live = running;
    try {
      await running.start();
    } catch (error) {
      running.kill();
      if (this.live === running) {
        this.live = null;
        this.state = 'stopped';
      }
      throw error;
    }
    this.assertNotKilled(running, 'start');
    this.running = running;
    this.state = 'running';
    return running;
  }

  /**
   * Stops within `limitMs` (counted from when the stop was asked for, `deadline`); past it the
   * production is killed. Returns how many stay queued.
   */
  private async stopLocal(running: RunningProduction, limitMs: number, deadline = Date.now() + limitMs): Promise<{ left: number; how: 'stopped' | 'killed' }> {
    this.state = 'stopping';
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), timerDelay(deadline - Date.now()));
    });
    // A kill meanwhile (another stop's limit, a kill command) ends this wait too.
    const killed = running.whenKilled.then(() => 'killed' as const);
    const outcome = await Promise.race([running.stop().catch(() => 0), late, killed]);
    clearTimeout(timer);
    if (outcome === 'killed') return { left: (await this.store.messages.unfinished(this.namespace)).length, how: 'killed' };
    if (outcome !== 'late') return { left: outcome, how: 'stopped' };
    this.log.write('Warning', `Production ${running.name} did not stop within ${limitMs} ms; killing it`);
    running.kill();
    return { left: (await this.store.messages.unfinished(this.namespace)).length, how: 'killed' };
  }

  private async restartLocal(stopDeadline?: number): Promise<void> {
    const running = this.requireRunning('restart');
    const { left } = await this.stopLocal(running, this.stopTimeoutMs, stopDeadline);
    this.assertNotKilled(running, 'restart');
    this.ended(running.name, left);
    await this.startLocal(running.name);
  }

  /**
   * The live production's own ShutdownTimeout (a production-level setting, in seconds, as IRIS reads it)
   * when it has one; else the server's limit.
   */
  private get stopTimeoutMs(): number {
    const own = this.live === null ? undefined : productionSecondsOf(this.live.definition, 'ShutdownTimeout');
    if (own !== undefined) return own * 1000;
    return this.options.stopTimeoutMs ?? this.options.drainTimeoutMs + 2 * this.options.graceMs + 5_000;
  }

  /** A kill (or a stop) ended the production a command was working on: it must not go on. */
  private assertNotKilled(running: RunningProduction, what: string): void {
    if (this.live === running && !running.killed) return;
    throw new ConveyorError('ERR_PRODUCTION_NOT_RUNNING', `Production ${running.name} was ${running.killed ? 'killed' : 'stopped'} while it was to ${what}`);
  }

  /** Waits for the commands issued before (a start, a stop…) without holding the order afterwards. */
  private async afterEarlierCommands(): Promise<void> {
    await this.serial(() => Promise.resolve());
  }

  private async updateLocal(running: RunningProduction) {
    const record = await this.store.productions.get(this.namespace, running.name);
    if (!record) throw new ConveyorError('ERR_PRODUCTION_NOT_FOUND', `Production ${running.name} no longer exists`);
    forgetMessageCheckWorkers();
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
    if (!this.running) throw this.notRunning(what);
    return this.running;
  }

  private notRunning(what: string): ConveyorError {
    return new ConveyorError('ERR_PRODUCTION_NOT_RUNNING', `Cannot ${what}: no production is running in namespace ${this.namespace}`, {
      hint: 'Start one first (cli -s NAME)',
    });
  }

  private ended(name: string, left: number): void {
    this.running = null;
    this.live = null;
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
    const afterKill = () => this.killRecorded.then(operation);
    const result = this.queue.then(afterKill, afterKill);
    this.queue = result.catch(() => undefined);
    return result;
  }
}
