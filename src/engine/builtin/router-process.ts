/**
 * `Conveyor.Process.Router`: forwards each request synchronously to every item of
 * `TargetConfigNames`, in order (keeping the description), and answers with the last reply.
 */
import type { CallContext, Reply } from '../../core/component.ts';
import { ConveyorError } from '../../core/errors.ts';
import type { MessageBody } from '../../core/message.ts';
import { BuiltinComponent } from './builtin-component.ts';

export class RouterProcess extends BuiltinComponent {
  private targetNames: string[] = [];

  protected override async onInit(): Promise<void> {
    this.targetNames = this.targets();
    if (this.targetNames.length === 0) {
      throw new ConveyorError('ERR_CONFIG', `Item ${this.context.configName} needs the setting TargetConfigNames`);
    }
  }

  override async onMessage(request: MessageBody, call: CallContext): Promise<Reply> {
    let reply: Reply = null;
    for (const target of this.targetNames) reply = await call.sendSync(target, request, { description: call.description });
    return reply;
  }
}
