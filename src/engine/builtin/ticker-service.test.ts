import { describe, expect, it } from 'vitest';
import { componentContext, RecordingCall } from '../../../test/support/component-harness.ts';
import { bodyText } from '../native-messages.ts';
import { TickerService } from './ticker-service.ts';

describe('Conveyor.Service.Ticker', () => {
  it('sends "tick n" to every target on each poll, counting polls', async () => {
    const ticker = new TickerService();
    await ticker.init(componentContext({ kind: 'service', host: { TargetConfigNames: 'A,B' } }));
    const call = new RecordingCall();
    expect(await ticker.onProcessInput(null, call)).toBeNull();
    await ticker.onProcessInput(null, call);
    expect(call.sent.map((s) => [s.mode, s.target, s.body.classname, bodyText(s.body)])).toEqual([
      ['async', 'A', 'Ens.StringRequest', 'tick 1'],
      ['async', 'B', 'Ens.StringRequest', 'tick 1'],
      ['async', 'A', 'Ens.StringRequest', 'tick 2'],
      ['async', 'B', 'Ens.StringRequest', 'tick 2'],
    ]);
  });

  it('polls without sending when it has no targets', async () => {
    const ticker = new TickerService();
    await ticker.init(componentContext({ kind: 'service' }));
    const call = new RecordingCall();
    await ticker.onProcessInput(null, call);
    expect(call.sent).toEqual([]);
  });
});
