/**
 * `conveyor doctor`: checks of a home and its machine, without starting a server. Each check answers
 * ok, warning or problem with a line a person can act on; any problem makes the command fail. The
 * checks: Node, the home (permissions, writable, its lock, free space), how the API is reached (TLS,
 * or a loopback address), the TLS certificate's validity, the workers' Python, the store, the TCP port
 * and the portal build (doctor-checks.ts).
 */
import { stat } from 'node:fs/promises';
import { defaultPortalDir } from '../api/portal-mount.ts';
import { loadTlsPair } from '../api/tls-pair.ts';
import { errorText } from '../core/errors.ts';
import type { ServerConfig } from './config.ts';
import { freeSpaceFinding, lockFinding, nodeFinding, portalFinding, portFinding, pythonFinding, storeFinding, writableFinding } from './doctor-checks.ts';
import type { Finding } from './doctor-finding.ts';
import { inspectHome } from './home-permissions.ts';
import { isLoopbackHost, plainTextWarning } from './transport-security.ts';

export type { Finding, Verdict } from './doctor-finding.ts';

const renewSoonMs = 14 * 24 * 3600 * 1000;

async function homeFindings(config: ServerConfig): Promise<Finding[]> {
  const check = await inspectHome(config.home);
  const findings: Finding[] = [
    ...check.problems.map((text): Finding => ({ verdict: 'problem', text })),
    ...check.warnings.map((text): Finding => ({ verdict: 'warning', text })),
    ...check.readableFiles.map((path): Finding => ({
      verdict: 'warning',
      text: `Other users can read ${path}: chmod 600 ${path} (the next start also does it)`,
    })),
  ];
  if (findings.length > 0) return findings;
  const exists = await stat(config.home).then(
    () => true,
    () => false,
  );
  return [
    {
      verdict: 'ok',
      text: exists ? `The home ${config.home} is private` : `The home ${config.home} does not exist yet; the first start creates it private (0700)`,
    },
  ];
}

async function transportFindings(config: ServerConfig, now: Date): Promise<Finding[]> {
  if (config.tlsCert === '') {
    const warning = plainTextWarning(config);
    if (warning) return [{ verdict: 'warning', text: warning }];
    return [{ verdict: 'ok', text: `The API listens on ${config.host} (loopback) without TLS: only this machine can reach it` }];
  }
  try {
    const pair = await loadTlsPair({ cert: config.tlsCert, key: config.tlsKey });
    const left = pair.validTo.getTime() - now.getTime();
    if (left <= 0)
      return [
        { verdict: 'problem', text: `The TLS certificate ${config.tlsCert} expired on ${pair.validTo.toISOString()}: renew it, then send the server SIGHUP` },
      ];
    const where = isLoopbackHost(config.host) ? 'loopback' : config.host;
    if (left < renewSoonMs)
      return [
        { verdict: 'warning', text: `The TLS certificate ${config.tlsCert} expires on ${pair.validTo.toISOString()}: renew it soon (SIGHUP reloads it)` },
      ];
    return [{ verdict: 'ok', text: `HTTPS on ${where} with ${pair.subject}, valid until ${pair.validTo.toISOString()}` }];
  } catch (error) {
    return [{ verdict: 'problem', text: errorText(error) }];
  }
}

export interface DiagnoseOptions {
  now?: Date;
  /** Where the built portal is looked for (default: the package's dist/portal). */
  portalDir?: string;
}

export async function diagnose(config: ServerConfig, options: DiagnoseOptions = {}): Promise<Finding[]> {
  return [
    nodeFinding(),
    ...(await homeFindings(config)),
    await writableFinding(config.home),
    lockFinding(config.home),
    await freeSpaceFinding(config.home),
    ...(await transportFindings(config, options.now ?? new Date())),
    await pythonFinding(config.python),
    await storeFinding(config.home, config.store),
    await portFinding(config.home, config.host, config.port),
    portalFinding(options.portalDir ?? defaultPortalDir),
  ];
}

/** One line per finding; the exit code is 1 when any finding is a problem. */
export function doctorReport(findings: Finding[]): { lines: string[]; exitCode: number } {
  const lines = findings.map((finding) => `${finding.verdict.padEnd(8)}${finding.text}`);
  const problems = findings.filter((finding) => finding.verdict === 'problem').length;
  const warnings = findings.filter((finding) => finding.verdict === 'warning').length;
  lines.push(problems + warnings === 0 ? 'All checks passed.' : `${problems} problem(s), ${warnings} warning(s).`);
  return { lines, exitCode: problems > 0 ? 1 : 0 };
}
