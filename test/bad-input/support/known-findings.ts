/**
 * Bad inputs the server still mishandles, each with the finding (docs/../team notes) that names it.
 * A case listed here runs as `it.fails`: it must still fail, so a fix shows up as a failure to remove.
 */
const findings: Record<string, string> = {};

export function knownFinding(caseId: string): string | undefined {
  return findings[caseId];
}
