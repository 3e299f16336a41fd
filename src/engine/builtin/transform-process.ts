/**
 * `Conveyor.Process.Transform`: applies the stored DTL transform named by the Host setting
 * `Transform` to each request, sends the result synchronously to each item of `TargetConfigNames`
 * and answers with the last reply (or, without targets, with the transformed message itself).
 */
import type { CallContext, Reply } from '../../core/component.ts';
import { ConveyorError } from '../../core/errors.ts';
import type { MessageBody } from '../../core/message.ts';
import { BuiltinComponent } from './builtin-component.ts';

export class TransformProcess extends BuiltinComponent {
  private transformName = '';

  protected override async onInit(): Promise<void> {
    this.transformName = this.requiredSetting('Transform');
    if (!this.context.transform) throw new ConveyorError('ERR_CONFIG', `Item ${this.context.configName}: this host offers no DTL`);
  }

  override async onMessage(request: MessageBody, call: CallContext): Promise<Reply> {
    const transformed = await this.context.transform!(this.transformName, request);
    let reply: Reply = transformed;
    for (const target of this.targets()) reply = await call.sendSync(target, transformed, { description: call.description });
    return reply;
  }
}
