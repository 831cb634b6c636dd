/**
 * Where a webhook may be sent (the SSRF guard), in one place. Production (NODE_ENV=production): an
 * absolute https URL without credentials whose host resolves only to public unicast addresses:
 * loopback, private (RFC 1918), CGNAT, link-local (cloud metadata included), unique-local,
 * multicast, unspecified, broadcast, documentation, benchmarking, reserved, NAT64 / 6to4 / Teredo
 * and IPv4-mapped forms of any of those are refused. Anything ipaddr.js does not call `unicast` is
 * refused, so a range it learns later is refused too. IPv4 written in decimal, hex or octal is
 * normalised by the URL parser before the check. Development and tests allow http and any address
 * (local receivers; docs/webhooks.md, "Target rules").
 *
 * The check runs at creation (a 422 on `url`) and again before every attempt, and the attempt
 * connects to exactly the addresses this check approved (VettedTarget.addresses; the sender pins
 * them with a custom `lookup`), so a name that resolves differently a moment later (DNS rebinding)
 * cannot redirect the connection.
 */
import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { WEBHOOK_LIMITS } from '@tix/protos';

export type TargetMode = 'production' | 'development';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to every address (A and AAAA), like dns.lookup({ all: true }). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** The system resolver (getaddrinfo, as node:http itself would use). */
export const systemResolver: Resolver = async (hostname) => {
  const found = await dns.promises.lookup(hostname, { all: true, verbatim: true });
  return found.map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 }));
};

export const TARGET_MESSAGES = {
  invalid: 'URL must be an absolute http or https URL',
  tooLong: `URL must be at most ${WEBHOOK_LIMITS.url} characters`,
  httpsRequired: 'URL must use https',
  credentials: 'URL must not contain a user name or password',
  unresolvable: 'URL host cannot be resolved',
  internal: 'URL must not point to a private, loopback, link-local or other internal address',
} as const;

/** A target refused by the policy; `message` is one of TARGET_MESSAGES, `detail` names the address. */
export class TargetRefused extends Error {
  override readonly name = 'TargetRefused';

  constructor(
    message: string,
    readonly detail?: string,
  ) {
    super(message);
  }
}

export interface VettedTarget {
  url: URL;
  /** The addresses the attempt may connect to; null: connect as usual (development). */
  addresses: ResolvedAddress[] | null;
}

/** The host of `url` without IPv6 brackets. */
export function hostnameOf(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/** Why `address` (an IP literal) is not a public unicast address, or null when it is one. */
export function addressProblem(address: string): string | null {
  if (!ipaddr.isValid(address)) return 'not an IP address';
  // process() turns IPv4-mapped IPv6 (::ffff:10.0.0.1) into the IPv4 address it stands for.
  const parsed = ipaddr.process(address);
  const range = parsed.range();
  return range === 'unicast' ? null : range;
}

/** True for whitespace, control characters and lone surrogates: never part of a URL as stored and shown. */
function hasUnsafeCharacters(text: string): boolean {
  for (let index = 0; index < text.length; index += 1) {
    const unit = text.charCodeAt(index);
    if (unit <= 0x20 || unit === 0x7f) return true;
    if (unit >= 0xdc00 && unit <= 0xdfff) return true; // a low surrogate without its high one
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(index + 1);
      if (!(next >= 0xdc00 && next <= 0xdfff)) return true;
      index += 1;
    }
  }
  return false;
}

/** The URL checks that need no network: syntax, scheme, credentials. Throws TargetRefused. */
export function parseTargetUrl(text: string, mode: TargetMode): URL {
  if (text.length > WEBHOOK_LIMITS.url) throw new TargetRefused(TARGET_MESSAGES.tooLong);
  if (hasUnsafeCharacters(text)) throw new TargetRefused(TARGET_MESSAGES.invalid);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new TargetRefused(TARGET_MESSAGES.invalid);
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.hostname === '') {
    throw new TargetRefused(TARGET_MESSAGES.invalid);
  }
  if (mode === 'production' && url.protocol !== 'https:') {
    throw new TargetRefused(TARGET_MESSAGES.httpsRequired);
  }
  if (url.username !== '' || url.password !== '') throw new TargetRefused(TARGET_MESSAGES.credentials);
  return url;
}

/**
 * The full check: parseTargetUrl, then (production) the host's addresses, every one of which must be
 * public. Returns what the attempt may connect to; throws TargetRefused.
 */
export async function vetTarget(text: string, mode: TargetMode, resolver: Resolver): Promise<VettedTarget> {
  const url = parseTargetUrl(text, mode);
  if (mode !== 'production') return { url, addresses: null };
  const host = hostnameOf(url);
  let addresses: ResolvedAddress[];
  if (net.isIP(host) !== 0) {
    addresses = [{ address: host, family: net.isIP(host) === 6 ? 6 : 4 }];
  } else {
    try {
      addresses = await resolver(host);
    } catch (error) {
      throw new TargetRefused(TARGET_MESSAGES.unresolvable, (error as Error).message);
    }
    if (addresses.length === 0) throw new TargetRefused(TARGET_MESSAGES.unresolvable);
  }
  for (const { address } of addresses) {
    const problem = addressProblem(address);
    if (problem !== null) throw new TargetRefused(TARGET_MESSAGES.internal, `${address} (${problem})`);
  }
  return { url, addresses };
}
