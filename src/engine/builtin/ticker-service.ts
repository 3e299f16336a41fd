/**
 * `Conveyor.Service.Ticker`: a polling service; every CallInterval it sends
 * `Ens.StringRequest` "tick <n>" to `TargetConfigNames`. Useful to see a production move.
 */
import type { CallContext, Reply } from '../../core/component.ts';
import { stringRequest } from '../native-messages.ts';
import { BuiltinComponent } from './builtin-component.ts';

export class TickerService extends BuiltinComponent {
  private count = 0;

  override async onProcessInput(_input: Reply, call: CallContext): Promise<Reply> {
    this.count++;
    for (const target of this.targets()) await call.sendAsync(target, stringRequest(`tick ${this.count}`));
    return null;
  }
}
