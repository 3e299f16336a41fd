/**
 * Base of the components written in TypeScript. They run inside the server process, so a job is
 * just an object; the hooks a kind does not use answer with a clear error instead of silently.
 */
import type { AsyncResponse, CallContext, ComponentContext, ComponentInstance, Reply } from '../../core/component.ts';
import { ConveyorError } from '../../core/errors.ts';
import type { MessageBody } from '../../core/message.ts';

export abstract class BuiltinComponent implements ComponentInstance {
  protected context!: ComponentContext;

  async init(context: ComponentContext): Promise<void> {
    this.context = context;
    await this.onInit();
  }

  /** Reads settings; throws ConveyorError for invalid ones so the item goes into error. */
  protected async onInit(): Promise<void> {}

  onMessage(_request: MessageBody, _call: CallContext): Promise<Reply> {
    return Promise.reject(this.unsupported('messages'));
  }

  onProcessInput(_input: Reply, _call: CallContext): Promise<Reply> {
    return Promise.reject(this.unsupported('process input'));
  }

  async onResponse(_request: MessageBody, response: Reply, _asyncResponse: AsyncResponse, _call: CallContext): Promise<Reply> {
    return response;
  }

  async onComplete(_request: MessageBody, response: Reply, _call: CallContext): Promise<Reply> {
    return response;
  }

  async stop(_graceMs: number): Promise<void> {}

  kill(): void {}

  onExit(_listener: (reason: string) => void): void {
    // Built-ins live in the server process: they cannot die on their own.
  }

  protected setting(name: string, fallback: string): string {
    return this.context.settings.host[name] ?? this.context.settings.adapter[name] ?? fallback;
  }

  protected requiredSetting(name: string): string {
    const value = this.setting(name, '');
    if (value === '') throw new ConveyorError('ERR_CONFIG', `Item ${this.context.configName} needs the setting ${name}`);
    return value;
  }

  /** `TargetConfigNames`: comma-separated item names, as in IRIS. */
  protected targets(): string[] {
    return this.setting('TargetConfigNames', '')
      .split(',')
      .map((t) => t.trim())
      .filter((t) => t !== '');
  }

  private unsupported(what: string): ConveyorError {
    return new ConveyorError('ERR_COMPONENT_FAILED', `${this.constructor.name} (item ${this.context.configName}) does not handle ${what}`);
  }
}
