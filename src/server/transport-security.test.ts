import { describe, expect, it } from 'vitest';
import { isLoopbackHost, plainTextWarning } from './transport-security.ts';

describe('plain-text warning', () => {
  it.each(['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1'])('%s is the loopback: no warning', (host) => {
    expect(isLoopbackHost(host)).toBe(true);
    expect(plainTextWarning({ host, tlsCert: '' })).toBeNull();
  });

  it.each(['0.0.0.0', '::', '192.168.1.10', 'conveyor.example', '128.0.0.1'])('%s without TLS is warned about, with TLS not', (host) => {
    expect(isLoopbackHost(host)).toBe(false);
    expect(plainTextWarning({ host, tlsCert: '' })).toMatch(new RegExp(`^The API listens on ${host.replace(/\./g, '\\.')} without TLS: passwords`));
    expect(plainTextWarning({ host, tlsCert: '/srv/server.crt' })).toBeNull();
  });
});
