/**
 * A static in-memory DNS for tests of sender authentication (the internet's DNS cannot run here):
 * names map to records by type (TXT as strings, split into 255-byte chunks as DNS does), or to
 * `'timeout'` (the lookup never answers) or `'servfail'`. Anything else is ENOTFOUND, as a real
 * resolver answers a name that does not exist.
 */
import type { DnsResolver } from './processing/sender-auth.js';

export type StaticRecords = Record<
  string,
  Partial<Record<'TXT' | 'A' | 'AAAA' | 'MX' | 'PTR', string[]>> | 'timeout' | 'servfail'
>;

function dnsError(code: string, name: string, rrtype: string): Error {
  return Object.assign(new Error(`query${rrtype} ${code} ${name}`), { code, hostname: name });
}

export function staticResolver(records: StaticRecords = {}): DnsResolver & { queries: string[] } {
  const queries: string[] = [];
  const lookup = async (name: string, rrtype: string): Promise<unknown> => {
    const type = rrtype.toUpperCase();
    queries.push(`${type} ${name.toLowerCase()}`);
    const entry = records[name.toLowerCase()];
    if (entry === 'timeout') return new Promise(() => undefined);
    if (entry === 'servfail') throw dnsError('ESERVFAIL', name, type);
    const values = entry?.[type as keyof typeof entry];
    if (!values || values.length === 0) throw dnsError(entry ? 'ENODATA' : 'ENOTFOUND', name, type);
    if (type === 'TXT') return values.map((value) => value.match(/.{1,255}/gs) ?? ['']);
    if (type === 'MX') return values.map((exchange, priority) => ({ exchange, priority }));
    return [...values];
  };
  return Object.assign(lookup, { queries });
}
