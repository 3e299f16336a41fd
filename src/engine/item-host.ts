/**
 * Runs one item of a production: its jobs (one component instance each, `pool_size` of them), its
 * queue, the poller of a service, the retry policy of an operation, and the restart of a job whose
 * worker died. A failing item never takes the production down: it goes into `error` and says why in
 * the event log.
 */
import type { ComponentContext, ComponentInstance, ComponentSettings, Reply } from '../core/component.ts';
import type { ComponentKind } from '../core/components.ts';
import { ConveyorError, errorText } from '../core/errors.ts';
import type { StoredMessage } from '../core/message.ts';
import type { ItemDefinition } from '../core/production.ts';
import type { ResolvedComponent } from './component-resolver.ts';
import { MessageCall } from './message-call.ts';
import type { MessageRouter } from './message-router.ts';
import { nextRetryDelay, retryPolicyFromSettings, type RetryPolicy } from './retry-policy.ts';
import { activeTracer, traceInstance, type Hop, type HopItem } from './tracing/message-tracer.ts';
import type { ItemQueue } from './work-queue.ts';

export type ItemState = 'stopped' | 'running' | 'error' | 'disabled';

interface Job {
  index: number;
  instance: ComponentInstance | null;
  alive: boolean;
  busy: StoredMessage | null;
  loop: Promise<void> | null;
  /** While the job starts: ends the wait for init (the job was stopped or killed meanwhile). */
  abortStart: (() => void) | null;
}

export interface ItemHostOptions {
  /** Pool size used for processes whose pool size is 0 (the production's actor pool). */
  actorPoolSize: number;
  /** How long a job gets to finish its message and run on_tear_down on stop. */
  graceMs: number;
  /** How long one job may take to start (worker, import, on_init) before it is ended. */
  initTimeoutMs: number;
}

/** A sleep that stop() can cut short. */
class Pause {
  private timers = new Set<{ timer: NodeJS.Timeout; resolve: () => void }>();

  wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const entry = { timer: setTimeout(() => (this.timers.delete(entry), resolve()), ms), resolve };
      this.timers.add(entry);
    });
  }

  /** A wait whose timer the caller clears once something else came first (no timer left behind per message). */
  waitOrCancel(ms: number): { done: Promise<void>; cancel: () => void } {
    let entry: { timer: NodeJS.Timeout; resolve: () => void } | undefined;
    const done = new Promise<void>((resolve) => {
      entry = { timer: setTimeout(() => (this.timers.delete(entry!), resolve()), ms), resolve };
      this.timers.add(entry);
    });
    const cancel = (): void => {
      clearTimeout(entry!.timer);
      this.timers.delete(entry!);
    };
    return { done, cancel };
  }

  interrupt(): void {
    for (const entry of this.timers) {
      clearTimeout(entry.timer);
      entry.resolve();
    }
    this.timers.clear();
  }
}

export class ItemHost {
  readonly queue: ItemQueue;
  state: ItemState = 'stopped';
  error: string | null = null;
  private jobs: Job[] = [];
  /** Callers of processInput waiting for a free job. */
  private jobWaiters: Array<() => void> = [];
  private readonly pause = new Pause();
  private readonly settings: ComponentSettings;
  private readonly retry: RetryPolicy;
  /** Bumped by stop, kill and fail: a start still under way sees it and ends what it launched. */
  private generation = 0;
  /** Instances running on_tear_down: a kill (a stop that ran out of time) ends them too. */
  private readonly tearingDown = new Set<ComponentInstance>();
  /** Queued messages recorded as failed (their test call timed out): skipped, never handled. */
  private readonly abandoned = new Set<number>();
  /** How tracing names this item's hops (used only when tracing is on). */
  private readonly hopItem: HopItem;

  constructor(
    private readonly router: MessageRouter,
    readonly item: ItemDefinition,
    readonly component: ResolvedComponent,
    private readonly options: ItemHostOptions,
  ) {
    this.settings = { host: {}, adapter: {} };
    for (const setting of item.settings) {
      (setting.target === 'Adapter' ? this.settings.adapter : this.settings.host)[setting.name] = setting.value;
    }
    this.retry = retryPolicyFromSettings(this.settings.host);
    this.queue = router.createQueue(item.name, Math.max(1, item.poolSize));
    this.hopItem = { namespace: router.namespace, name: item.name, kind: component.kind, classname: item.classname };
  }

  get kind(): ComponentKind {
    return this.component.kind;
  }

  get name(): string {
    return this.item.name;
  }

  get jobCount(): number {
    return this.jobs.filter((job) => job.alive).length;
  }

  get inFlight(): number {
    return this.jobs.filter((job) => job.busy !== null).length;
  }

  /** Starts the jobs. Never throws: a component that cannot start puts the item in `error`. */
  async start(): Promise<void> {
    if (!this.item.enabled) {
      this.state = 'disabled';
      return;
    }
    this.error = null;
    this.queue.reopen();
    const size = this.poolSize();
    const generation = ++this.generation;
    this.jobs = Array.from({ length: size }, (_, index) => ({ index, instance: null, alive: false, busy: null, loop: null, abortStart: null }));
    try {
      await Promise.all(this.jobs.map((job) => this.launch(job)));
    } catch (error) {
      if (generation !== this.generation) return;
      this.state = 'error';
      this.error = errorText(error);
      this.router.log.write('Error', `Item ${this.name} failed to start: ${this.error}`, { configName: this.name });
      this.router.reportTrouble(this.name, { kind: 'item-error', text: `Item ${this.name} failed to start: ${this.error}` });
      // A kill ends each job at once (endJob awaits only on 'stop'): nothing to wait for.
      for (const job of this.jobs) void this.endJob(job, 'kill');
      this.jobs = [];
      return;
    }
    // Stopped or killed while its jobs started: what they launched is already ended.
    if (generation !== this.generation) return;
    this.state = 'running';
    this.router.log.write('Info', `Item ${this.name} started with ${size} job${size === 1 ? '' : 's'}`, { configName: this.name });
    for (const job of this.jobs) job.loop = this.loopFor(job);
  }

  /**
   * Services poll; processes and operations take messages. An operation with an inbound adapter (IoP's
   * DuplexOperation) also has an inbound side: its job 0 takes turns between polls and messages.
   */
  private loopFor(job: Job): Promise<void> {
    if (this.kind === 'service') return this.pollLoop(job);
    if (this.kind === 'operation' && this.component.polling && job.index === 0) return this.duplexLoop(job);
    return this.messageLoop(job);
  }

  /** Stops taking input (services stop polling); queued messages stay queued. */
  stopInput(): void {
    if (this.kind === 'service') this.queue.close();
  }

  /** Lets running messages finish (bounded), runs on_tear_down, and returns what was still queued. */
  async stop(): Promise<StoredMessage[]> {
    const wasRunning = this.state === 'running';
    this.generation++;
    this.state = 'stopped';
    this.queue.close();
    this.pause.interrupt();
    for (const wake of this.jobWaiters.splice(0)) wake();
    const loops = this.jobs.map((job) => job.loop).filter((loop): loop is Promise<void> => loop !== null);
    await Promise.race([Promise.all(loops), new Promise((resolve) => setTimeout(resolve, this.options.graceMs).unref())]);
    await Promise.all(this.jobs.map((job) => this.endJob(job, 'stop')));
    this.jobs = [];
    if (wasRunning) this.router.log.write('Info', `Item ${this.name} stopped`, { configName: this.name });
    return this.queue.drain().filter((message) => !this.abandoned.has(message.id));
  }

  /** Ends every job at once; messages in flight stay queued in the store for the next start. */
  kill(): void {
    this.generation++;
    this.state = 'stopped';
    this.queue.close();
    this.pause.interrupt();
    // A kill ends each job at once (endJob awaits only on 'stop'): nothing to wait for.
    for (const job of this.jobs) void this.endJob(job, 'kill');
    this.jobs = [];
    for (const instance of this.tearingDown) instance.kill();
  }

  /**
   * A wait on this item's user code ran out (a test call it never answered): its jobs are ended and
   * the item stays in `error` until it is restarted. Queued messages stay queued.
   */
  fail(reason: string): void {
    this.kill();
    this.state = 'error';
    this.error = reason;
    this.router.log.write('Error', reason, { configName: this.name });
    this.router.reportTrouble(this.name, { kind: 'item-error', text: reason });
  }

  /** A stop of the production is waiting: jobs still starting (in on_init) give up now and are ended. */
  abortStarting(): void {
    for (const job of this.jobs) if (!job.alive) job.abortStart?.();
  }

  /**
   * A queued message its caller gave up on (a test call that timed out): it is recorded as failed,
   * so no job may take it any more. Returns false when a job is handling it already.
   */
  abandon(messageId: number): boolean {
    if (this.isHandling(messageId)) return false;
    this.abandoned.add(messageId);
    return true;
  }

  /** An abandon that did not happen after all (an abort that found the request no longer queued). */
  keep(messageId: number): void {
    this.abandoned.delete(messageId);
  }

  /** Requests its jobs are handling now (a service's polls and inputs are not requests). */
  get requestsInHand(): number {
    return this.jobs.filter((job) => (job.busy?.id ?? 0) > 0).length;
  }

  /** Whether a job is handling this message now. */
  isHandling(messageId: number): boolean {
    return this.jobs.some((job) => job.busy?.id === messageId);
  }

  private poolSize(): number {
    if (this.item.poolSize > 0) return this.item.poolSize;
    return this.kind === 'process' ? Math.max(1, this.options.actorPoolSize) : 1;
  }

  private async launch(job: Job): Promise<void> {
    const instance = traceInstance(this.component.factory.create(), this.hopItem);
    // Held before init so a stop or kill during the start ends this worker too.
    job.instance = instance;
    instance.onExit((reason) => {
      if (job.instance !== instance || !job.alive) return;
      job.alive = false;
      this.router.log.write('Error', `Job ${job.index} of item ${this.name} died: ${reason}`, {
        configName: this.name,
        messageId: job.busy?.id ?? null,
        sessionId: job.busy?.sessionId ?? null,
      });
    });
    await this.initWithin(instance, job);
    if (job.instance !== instance) {
      // Stopped or killed while it started.
      instance.kill();
      throw new ConveyorError('ERR_ITEM_NOT_RUNNING', `Item ${this.name} was stopped while it started`);
    }
    job.alive = true;
  }

  /** on_init (and the worker's start) may not take longer than initTimeoutMs: then the worker is ended. */
  private async initWithin(instance: ComponentInstance, job: Job): Promise<void> {
    const limit = this.options.initTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        instance.kill();
        reject(
          new ConveyorError(
            'ERR_TIMEOUT',
            `Job ${job.index} of item ${this.name} did not start within ${limit} ms (on_init still running); its worker was ended`,
          ),
        );
      }, limit);
      job.abortStart = () => reject(new ConveyorError('ERR_ITEM_NOT_RUNNING', `Item ${this.name} was stopped while it started`));
    });
    try {
      await Promise.race([instance.init(this.contextFor(job)), expired]);
    } finally {
      clearTimeout(timer);
      job.abortStart = null;
    }
  }

  private async endJob(job: Job, how: 'stop' | 'kill'): Promise<void> {
    const instance = job.instance;
    job.alive = false;
    job.instance = null;
    job.abortStart?.();
    if (!instance) return;
    if (how === 'kill') {
      instance.kill();
      return;
    }
    this.tearingDown.add(instance);
    try {
      await instance.stop(this.options.graceMs);
    } catch {
      instance.kill();
    } finally {
      this.tearingDown.delete(instance);
    }
  }

  /** Brings a dead job back; waits a little between failed attempts so a broken component does not spin. */
  private async revive(job: Job): Promise<boolean> {
    let delay = 200;
    while (this.state === 'running') {
      try {
        await this.launch(job);
        this.router.log.write('Info', `Job ${job.index} of item ${this.name} restarted`, { configName: this.name });
        this.router.reportTrouble(this.name, { kind: 'restart', text: `job ${job.index} restarted after its worker died` });
        return true;
      } catch (error) {
        this.router.log.write('Error', `Job ${job.index} of item ${this.name} failed to restart: ${errorText(error)}`, { configName: this.name });
        await this.pause.wait(delay);
        delay = Math.min(delay * 2, 5000);
      }
    }
    return false;
  }

  private async messageLoop(job: Job): Promise<void> {
    while (this.state === 'running') {
      if (!job.alive && !(await this.revive(job))) return;
      const message = await this.queue.take();
      if (message === null || !(await this.runTaken(job, message))) return;
    }
  }

  /** Handles a message a job took (unless abandoned). False: the job ends (its worker cannot come back). */
  private async runTaken(job: Job, message: StoredMessage): Promise<boolean> {
    if (this.abandoned.delete(message.id)) {
      this.queue.done(message.id);
      return true;
    }
    // The worker may have died while this job waited for work: bring it back first.
    if (!job.alive && !(await this.revive(job))) return false;
    job.busy = message;
    try {
      await this.handle(job, message);
    } finally {
      job.busy = null;
      this.queue.done(message.id);
    }
    return true;
  }

  /** Tracing on: the handling is one hop span (all attempts). Off: a null check, nothing else. */
  private handle(job: Job, message: StoredMessage): Promise<void> {
    const hop = activeTracer()?.startHop(this.hopItem, message) ?? null;
    if (hop === null) return this.handleAttempts(job, message, null);
    return this.handleAttempts(job, message, hop).finally(() => hop.end());
  }

  private async handleAttempts(job: Job, message: StoredMessage, hop: Hop | null): Promise<void> {
    const firstAttempt = Date.now();
    for (;;) {
      const call = new MessageCall(this.router, this.name, message);
      hop?.enter(call);
      try {
        const instance = job.instance;
        if (!instance || !job.alive) throw new Error('the job is not running');
        let response = await instance.onMessage(message.body, call);
        if (this.kind === 'process') response = await this.collectAsyncReplies(instance, message, call, response);
        if (!call.replied) await this.router.complete(message, { response });
        this.router.countOutcome(this.name, true, Date.now() - firstAttempt);
        return;
      } catch (error) {
        // Stopped or killed meanwhile: the message stays queued in the store for the next start.
        if (this.state !== 'running') return;
        const text = errorText(error);
        const delay = this.kind === 'operation' ? nextRetryDelay(this.retry, firstAttempt, Date.now()) : null;
        if (delay !== null) {
          hop?.retry(text, delay);
          this.router.log.write('Warning', `Item ${this.name} failed on message ${message.id}, retrying in ${delay} ms: ${text}`, {
            configName: this.name,
            messageId: message.id,
            sessionId: message.sessionId,
          });
          await this.pause.wait(delay);
          if (this.state !== 'running') return;
          if (!job.alive && !(await this.revive(job))) return;
          continue;
        }
        this.router.countOutcome(this.name, false, Date.now() - firstAttempt);
        this.router.reportTrouble(this.name, { kind: 'failure', messageId: message.id, text: `Item ${this.name} failed on message ${message.id}: ${text}` });
        hop?.fail(text);
        this.router.log.write('Error', `Item ${this.name} failed on message ${message.id}: ${text}`, {
          configName: this.name,
          messageId: message.id,
          sessionId: message.sessionId,
        });
        if (!call.replied) {
          await this.router.complete(message, { error: text }).catch((failure: unknown) =>
            this.router.log.write('Error', `Item ${this.name} could not record the failure of message ${message.id}: ${errorText(failure)}`, {
              configName: this.name,
            }),
          );
        }
        return;
      }
    }
  }

  /**
   * Services: hands one input to `on_process_input` on a free job (what an inbound adapter or user
   * code holding the service does), and returns its result. The sends it makes share one session.
   */
  async processInput(input: Reply): Promise<{ result: Reply; sessionId: number | null }> {
    if (this.kind !== 'service') throw new ConveyorError('ERR_INVALID_INPUT', `Item ${this.name} is not a business service (its kind is ${this.kind})`);
    if (this.state !== 'running') throw new ConveyorError('ERR_ITEM_NOT_RUNNING', `Service ${this.name} is ${this.state}`);
    const job = await this.freeJob();
    const call = new MessageCall(this.router, this.name, null);
    const hop = activeTracer()?.startHop(this.hopItem, null) ?? null;
    hop?.enter(call);
    const started = Date.now();
    try {
      if (!job.alive && !(await this.revive(job))) throw new ConveyorError('ERR_ITEM_NOT_RUNNING', `Service ${this.name} stopped`);
      const result = await (job.instance as ComponentInstance).onProcessInput(input, call);
      this.router.countOutcome(this.name, true, Date.now() - started);
      return { result, sessionId: call.sessionId };
    } catch (error) {
      hop?.fail(errorText(error));
      this.router.countOutcome(this.name, false, Date.now() - started);
      this.router.reportTrouble(this.name, { kind: 'failure', messageId: null, text: `Service ${this.name} failed in on_process_input: ${errorText(error)}` });
      throw error;
    } finally {
      hop?.end(call.sessionId);
      job.busy = null;
      this.jobWaiters.shift()?.();
    }
  }

  /**
   * A job for one processInput, marked busy before anything is awaited: callers arriving in the same
   * tick must not all find the same job free (they did, and a service's pushed inputs then queued on
   * its first worker whatever its pool size).
   */
  private async freeJob(): Promise<Job> {
    for (;;) {
      const job = this.jobs.find((candidate) => candidate.busy === null);
      if (job) {
        job.busy = { id: 0 } as StoredMessage;
        return job;
      }
      await new Promise<void>((resolve) => this.jobWaiters.push(resolve));
      if (this.state !== 'running') throw new ConveyorError('ERR_ITEM_NOT_RUNNING', `Service ${this.name} stopped`);
    }
  }

  /** Processes: feed each async reply to on_response, then finish with on_complete. */
  private async collectAsyncReplies(instance: ComponentInstance, message: StoredMessage, call: MessageCall, first: Reply): Promise<Reply> {
    if (call.outstanding === 0 && !call.hadAsync) return first;
    let response = first;
    for (let arrival = await call.nextArrival(); arrival !== null; arrival = await call.nextArrival()) {
      response = await instance.onResponse(message.body, response, arrival, call);
    }
    return instance.onComplete(message.body, response, call);
  }

  private callInterval(): number {
    return Math.max(0.01, Number(this.settings.adapter['CallInterval'] ?? this.settings.host['CallInterval'] ?? 5) || 5) * 1000;
  }

  private async pollLoop(job: Job): Promise<void> {
    // One poller per service (IRIS polls on a single job); the other jobs serve processInput.
    if (!this.component.polling || job.index !== 0) return;
    const interval = this.callInterval();
    while (this.state === 'running') {
      if (!job.alive && !(await this.revive(job))) return;
      await this.pollOnce(job, interval);
      await this.pause.wait(interval);
    }
  }

  /**
   * One call of on_process_input without input (the inbound adapter's task), bounded by the worker's
   * call budget like any hook. Skipped when another node polls this item now (cluster).
   */
  private async pollOnce(job: Job, interval: number): Promise<void> {
    if (!(await this.router.mayPoll(this.name, interval).catch(() => false))) return;
    const call = new MessageCall(this.router, this.name, null);
    const hop = activeTracer()?.startHop(this.hopItem, null) ?? null;
    hop?.enter(call);
    job.busy = { id: 0 } as StoredMessage;
    const started = Date.now();
    try {
      await job.instance?.onProcessInput(null, call);
      // A poll that found nothing is no input: only polls that sent something count.
      if (call.sessionId !== null) this.router.countOutcome(this.name, true, Date.now() - started);
    } catch (error) {
      hop?.fail(errorText(error));
      if (this.state !== 'running') return;
      const who = this.kind === 'service' ? 'Service' : 'Operation';
      const text = `${who} ${this.name} failed in on_process_input: ${errorText(error)}`;
      this.router.countOutcome(this.name, false, Date.now() - started);
      this.router.reportTrouble(this.name, { kind: 'failure', messageId: null, text });
      this.router.log.write('Error', text, {
        configName: this.name,
        sessionId: call.sessionId,
      });
    } finally {
      hop?.end(call.sessionId);
      job.busy = null;
      this.jobWaiters.shift()?.();
    }
  }

  /**
   * A duplex operation's job 0: one loop, so the worker never runs a poll and a message at once and the
   * queue's order is kept (a poll comes between two messages, never inside one). The take stays pending
   * across polls: a message that arrives during a poll is handled right after it, nothing is lost.
   */
  private async duplexLoop(job: Job): Promise<void> {
    const interval = this.callInterval();
    let nextPoll = Date.now();
    let pending: Promise<StoredMessage | null> | null = null;
    while (this.state === 'running') {
      if (!job.alive && !(await this.revive(job))) return;
      if (Date.now() >= nextPoll) {
        await this.pollOnce(job, interval);
        nextPoll = Date.now() + interval;
        continue;
      }
      pending ??= this.queue.take();
      const timer = this.pause.waitOrCancel(nextPoll - Date.now());
      const arrived = await Promise.race([pending.then((message) => ({ message })), timer.done.then(() => null)]);
      timer.cancel();
      if (arrived === null) continue; // the next poll is due (or the item is stopping)
      pending = null;
      if (arrived.message === null || !(await this.runTaken(job, arrived.message))) return;
    }
  }

  private contextFor(job: Job): ComponentContext {
    const router = this.router;
    const name = this.name;
    return {
      namespace: router.namespace,
      configName: name,
      kind: this.kind,
      settings: this.settings,
      job: `${name}:${job.index}`,
      log(type, text, source, call) {
        router.log.write(type, text, {
          configName: name,
          job: `${name}:${job.index}`,
          messageId: call?.messageId ?? null,
          sessionId: call?.sessionId ?? null,
          ...(source?.sourceClass ? { sourceClass: source.sourceClass } : {}),
          ...(source?.sourceMethod ? { sourceMethod: source.sourceMethod } : {}),
        });
      },
      newCall: () => new MessageCall(router, name, null),
      // The item's Host setting SqlHost names the SQL host `<sql>` in its transforms uses (docs/dtl.md, SQL hosts).
      transform: (transform, body, options) => router.transform(transform, body, { ...options, sqlHost: this.settings.host['SqlHost'] ?? '' }),
      ...(router.routingRule ? { routingRule: (rule: string) => router.routingRule!(rule) } : {}),
      importSchema: (path, packageName, schemaName) => router.importSchema(path, packageName, schemaName),
    };
  }
}
