/**
 * IRIS adapters a component may name in `get_adapter_type()`, by their IRIS names (docs/enslib.md).
 * `Ens.InboundAdapter` is the engine's plain poll every CallInterval; the others run as Python
 * classes of python/conveyor_host/enslib in the component's own worker, as `self.adapter`.
 */

export interface PythonAdapterClass {
  module: string;
  className: string;
}

export const irisPythonAdapters: ReadonlyMap<string, PythonAdapterClass> = new Map([
  ['EnsLib.File.InboundAdapter', { module: 'conveyor_host.enslib.file_inbound', className: 'FileInboundAdapter' }],
  ['EnsLib.File.OutboundAdapter', { module: 'conveyor_host.enslib.file_outbound', className: 'FileOutboundAdapter' }],
  ['EnsLib.HTTP.OutboundAdapter', { module: 'conveyor_host.enslib.http_outbound', className: 'HTTPOutboundAdapter' }],
]);

/** Every IRIS adapter name a component may use. */
export const supportedIrisAdapters: readonly string[] = ['Ens.InboundAdapter', ...irisPythonAdapters.keys()];

/** A class of IRIS's own packages: Conveyor must provide it, no user code can. */
export function isIrisClassName(name: string): boolean {
  return /^(Ens|EnsLib|EnsPortal|HS)\./.test(name) || name.startsWith('%');
}
