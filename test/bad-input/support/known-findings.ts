/**
 * Bad inputs the server still mishandles, each with the finding that names it (docs/reliability.md,
 * "Bad input"). A case listed here runs as `it.fails`: it must still fail, so the day it is fixed the
 * run says so and the line goes. Keys are case ids (`PUT /api/iop/users/{name} · path {name} is the
 * segment ..`) or a route's state check (`<METHOD> <path> · leaves the state as it was and the server answering`).
 */
const findings: Record<string, string> = {};

export function knownFinding(caseId: string): string | undefined {
  return findings[caseId];
}
