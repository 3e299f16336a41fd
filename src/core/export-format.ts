/**
 * The forms `GET /export` can answer in: the spec's structured definition (the default), or IoP's
 * xmltodict form (src/core/iop-export.ts), which IoP's own clients read (docs/configuration.md).
 */
export const exportFormats = ['spec', 'iop'] as const;
export type ExportFormat = (typeof exportFormats)[number];
