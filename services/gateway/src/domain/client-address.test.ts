import type { IncomingMessage } from 'node:http';
import { clientAddress, parseTrustProxy, TrustProxyError } from './client-address';

function from(peer: string, xff?: string): IncomingMessage {
  return {
    socket: { remoteAddress: peer },
    connection: { remoteAddress: peer },
    headers: xff === undefined ? {} : { 'x-forwarded-for': xff },
  } as unknown as IncomingMessage;
}

describe('TRUST_PROXY and the client address', () => {
  it('trusts nobody by default: the TCP peer is the client, X-Forwarded-For is ignored', () => {
    const trust = parseTrustProxy('false');
    expect(clientAddress(from('203.0.113.9', '198.51.100.1'), trust)).toBe('203.0.113.9');
  });

  it('takes the address the trusted loopback proxy saw', () => {
    const trust = parseTrustProxy('loopback');
    expect(clientAddress(from('127.0.0.1', '198.51.100.1'), trust)).toBe('198.51.100.1');
    // a spoofed header from an untrusted peer changes nothing
    expect(clientAddress(from('203.0.113.9', '198.51.100.1'), trust)).toBe('203.0.113.9');
  });

  it('with a hop count, takes the address the last trusted hop appended (a client cannot prepend its way in)', () => {
    const trust = parseTrustProxy('1');
    // the ingress appended the real client (198.51.100.7) after the client's spoofed value
    expect(clientAddress(from('10.0.3.4', '1.2.3.4, 198.51.100.7'), trust)).toBe('198.51.100.7');
  });

  it('with CIDR lists and names, trusts only those peers', () => {
    const trust = parseTrustProxy('10.0.0.0/8, loopback');
    expect(clientAddress(from('10.1.2.3', '198.51.100.7'), trust)).toBe('198.51.100.7');
    expect(clientAddress(from('192.0.2.1', '198.51.100.7'), trust)).toBe('192.0.2.1');
    // a chain through two trusted proxies: the first untrusted address from the right
    expect(clientAddress(from('127.0.0.1', '198.51.100.7, 10.9.9.9'), trust)).toBe('198.51.100.7');
  });

  it('refuses a value express would not accept, naming the setting', () => {
    expect(() => parseTrustProxy('not-an-address')).toThrow(TrustProxyError);
    expect(() => parseTrustProxy('10.0.0.0/33')).toThrow(/TRUST_PROXY/);
  });
});
