/** The components written in TypeScript, by the class name an item uses. */
import type { ComponentFactory } from '../../core/component.ts';
import type { ComponentKind } from '../../core/components.ts';
import { EchoOperation } from './echo-operation.ts';
import { FileInboundService } from './file-inbound-service.ts';
import { FileOutboundOperation } from './file-outbound-operation.ts';
import { PassthroughOperation } from './passthrough-operation.ts';
import { PassthroughService } from './passthrough-service.ts';
import { RouterProcess } from './router-process.ts';
import { RoutingEngine } from './routing-engine.ts';
import { TickerService } from './ticker-service.ts';
import { TransformProcess } from './transform-process.ts';

export interface BuiltinClass {
  kind: ComponentKind;
  description: string;
  factory: ComponentFactory;
}

const make = (kind: ComponentKind, description: string, create: () => import('../../core/component.ts').ComponentInstance): BuiltinClass => ({
  kind,
  description,
  factory: { create },
});

export const builtinClasses: ReadonlyMap<string, BuiltinClass> = new Map([
  ['Conveyor.Operation.Echo', make('operation', 'Answers each request with a copy of it; FilePath appends a JSON line per request', () => new EchoOperation())],
  ['Conveyor.Operation.FileOutbound', make('operation', 'Writes each request text to a file in FilePath', () => new FileOutboundOperation())],
  ['Conveyor.Process.Router', make('process', 'Forwards each request to TargetConfigNames and answers with the last reply', () => new RouterProcess())],
  [
    'Conveyor.Process.Transform',
    make('process', 'Applies the DTL transform of the setting Transform and forwards the result to TargetConfigNames', () => new TransformProcess()),
  ],
  [
    'Conveyor.Service.FileInbound',
    make('service', 'Sends each file of FilePath to TargetConfigNames, then deletes or archives it', () => new FileInboundService()),
  ],
  ['Conveyor.Service.Ticker', make('service', 'Sends "tick n" to TargetConfigNames every CallInterval', () => new TickerService())],
  // IRIS's own classes, by their IRIS names and settings (docs/enslib.md).
  [
    'EnsLib.File.PassthroughService',
    make(
      'service',
      'Sends each file of FilePath matching FileSpec as a stream to TargetConfigNames, then deletes or archives it',
      () => new PassthroughService(),
    ),
  ],
  [
    'EnsLib.File.PassthroughOperation',
    make('operation', 'Writes the stream of each request to a file of FilePath named by Filename (default %f_%Q)', () => new PassthroughOperation()),
  ],
  [
    'EnsLib.MsgRouter.RoutingEngine',
    make('process', 'Routes each request by the rule class of BusinessRuleName: sends (with transforms), deletes, the rule log', () => new RoutingEngine()),
  ],
]);
