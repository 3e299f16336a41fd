/** Checks real replies against the server's own OpenAPI document (the schema of the answered status). */
import { Ajv2020 } from 'ajv/dist/2020.js';

interface Operation {
  responses: Record<string, { content?: Record<string, { schema: Record<string, unknown> }> }>;
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown> };
}

export class OpenApiCheck {
  readonly #ajv = new Ajv2020({ strict: false });
  readonly #document: OpenApiDocument;
  readonly checked = new Set<string>();

  constructor(document: OpenApiDocument) {
    this.#document = document;
  }

  /** Throws when the body does not match the documented schema of `status` for the operation. */
  check(method: string, template: string, status: number, body: unknown): void {
    const operation = this.#document.paths[template]?.[method.toLowerCase()];
    if (!operation) throw new Error(`${method} ${template} is not in the OpenAPI document`);
    const response = operation.responses[String(status)] ?? operation.responses.default;
    if (!response) throw new Error(`${method} ${template} does not document status ${status}`);
    this.checked.add(`${method.toLowerCase()} ${template}`);
    const media = Object.values(response.content ?? {})[0];
    if (!media) {
      if (body !== undefined && body !== '') throw new Error(`${method} ${template} ${status} should have an empty body`);
      return;
    }
    const schema = JSON.parse(JSON.stringify(media.schema).replace(/#\/components\/schemas\//g, '#/$defs/')) as Record<string, unknown>;
    if (!this.#ajv.validate({ ...schema, $defs: this.#document.components.schemas }, body)) {
      throw new Error(`${method} ${template} ${status}: ${JSON.stringify(this.#ajv.errors)} in ${JSON.stringify(body).slice(0, 500)}`);
    }
  }

  /** Operations of the document no reply was checked against. */
  unchecked(): string[] {
    return Object.entries(this.#document.paths)
      .flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method} ${path}`))
      .filter((operation) => !this.checked.has(operation));
  }
}
