/**
 * Sender authentication (docs/mail.md, "Sender authentication"): the mail service checks DKIM, SPF,
 * DMARC and ARC itself with mailauth, on the stored raw message and the SMTP envelope the listener
 * saw, and combines that with a trusted relay's Authentication-Results where Tix cannot check
 * (SPF of IMAP mail, SPF behind a forwarding relay):
 *
 * - SPF: the trusted relay's result when it gave one (it saw the client at the internet's edge; the
 *   listener only sees the relay), else Tix's own on the SMTP client IP, HELO and MAIL FROM, else
 *   `none` (IMAP mail without a relay's result).
 * - DKIM: Tix's own (the signature is checked on the bytes); the relay's only when Tix's is a
 *   `temperror` (DNS down).
 * - DMARC: Tix's own evaluation for the From domain with that SPF and its DKIM; the relay's only
 *   when Tix's is a `temperror`.
 *
 * DNS goes through an injectable resolver, bounded per message (a timeout per lookup, a budget for
 * the whole message, a cap on lookups): a dead DNS makes `temperror` results, never a hang, a crash
 * or a retry.
 */
// eslint-disable-next-line @typescript-eslint/triple-slash-reference -- mailauth has no types; other packages (tests) compile this file without services/mail/tsconfig.json
/// <reference path="../types/mailauth.d.ts" />
import dns from 'node:dns';
import mailauth, { type AuthenticateResult, type DkimResult, type DmarcOutput } from 'mailauth';
import dmarcModule from 'mailauth/lib/dmarc/index.js';
import type { AuthResult } from '@tix/threading';

/** A DNS lookup as mailauth calls it (node's dns.promises.resolve shape). */
export type DnsResolver = (name: string, rrtype: string) => Promise<unknown>;

export interface DnsOptions {
  /** Name servers (ip or ip:port); empty: the system's. */
  servers: readonly string[];
  /** One lookup's limit. */
  timeoutMs: number;
}

/** Production: node's resolver on MAIL_DNS_SERVERS (or the system's), one try per lookup. */
export function systemResolver(options: DnsOptions): DnsResolver {
  const resolver = new dns.promises.Resolver({ timeout: options.timeoutMs, tries: 1 });
  if (options.servers.length > 0) resolver.setServers([...options.servers]);
  return (name, rrtype) => resolver.resolve(name, rrtype);
}

export interface DnsBounds {
  timeoutMs: number;
  /** The lookups of one kind for one message together (from the first); then they fail at once. */
  budgetMs: number;
  /** Lookups of one kind for one message (cached lookups are free). */
  maxLookups: number;
}

/** DKIM (and ARC) keys looked up per message: more signatures than this are not verified. */
export const MAX_KEY_LOOKUPS = 10;
/** A cap no DMARC check reaches (the From domain and its organizational domain). */
const MAX_DMARC_LOOKUPS = 4;

export interface DnsStats {
  lookups: number;
  errors: number;
}

function dnsError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

/**
 * `base` bounded: a cache, a timeout per lookup, a budget counted from the first lookup, a cap.
 */
export function boundedResolver(
  base: DnsResolver,
  bounds: DnsBounds,
  now: () => number = Date.now,
): { resolve: DnsResolver; stats: DnsStats } {
  let deadline: number | null = null;
  const cache = new Map<string, Promise<unknown>>();
  const stats: DnsStats = { lookups: 0, errors: 0 };
  const lookup = async (name: string, rrtype: string): Promise<unknown> => {
    deadline ??= now() + bounds.budgetMs;
    const left = deadline - now();
    if (left <= 0) throw dnsError('ETIMEOUT', `DNS budget for this message spent (${name} ${rrtype})`);
    if (stats.lookups >= bounds.maxLookups)
      throw dnsError('ELIMIT', `more than ${bounds.maxLookups} DNS lookups for one message`);
    stats.lookups += 1;
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        base(name, rrtype),
        new Promise<never>((_resolve, reject) => {
          timer = setTimeout(
            () => reject(dnsError('ETIMEOUT', `DNS lookup timed out: ${name} ${rrtype}`)),
            Math.min(bounds.timeoutMs, left),
          );
        }),
      ]);
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code !== 'ENOTFOUND' && code !== 'ENODATA') stats.errors += 1;
      throw error;
    } finally {
      clearTimeout(timer);
    }
  };
  return {
    stats,
    resolve: (name, rrtype) => {
      const key = `${rrtype.toUpperCase()} ${name.toLowerCase()}`;
      let answer = cache.get(key);
      if (!answer) {
        answer = lookup(name, rrtype);
        cache.set(key, answer);
      }
      return answer;
    },
  };
}

/**
 * One message's DNS: keys (`._domainkey.`), DMARC (`_dmarc.`) and the rest (SPF) each bounded on
 * their own, so a sender who adds signatures or points SPF at a slow name server of its own cannot
 * spend the lookups or the time the From domain's DMARC record needs (docs/mail.md).
 */
export function messageResolver(
  base: DnsResolver,
  bounds: DnsBounds,
  now: () => number = Date.now,
): { resolve: DnsResolver; stats: DnsStats } {
  const keys = boundedResolver(
    base,
    { ...bounds, maxLookups: Math.min(bounds.maxLookups, MAX_KEY_LOOKUPS) },
    now,
  );
  const dmarc = boundedResolver(base, { ...bounds, maxLookups: MAX_DMARC_LOOKUPS }, now);
  const other = boundedResolver(base, bounds, now);
  const parts = [keys, dmarc, other];
  return {
    resolve: (name, rrtype) => {
      const lower = name.toLowerCase();
      if (lower.includes('._domainkey.')) return keys.resolve(name, rrtype);
      if (lower.startsWith('_dmarc.')) return dmarc.resolve(name, rrtype);
      return other.resolve(name, rrtype);
    },
    get stats() {
      return {
        lookups: parts.reduce((sum, part) => sum + part.stats.lookups, 0),
        errors: parts.reduce((sum, part) => sum + part.stats.errors, 0),
      };
    },
  };
}

/** What the SMTP listener saw (null for IMAP mail). */
export interface Envelope {
  clientIp: string | null;
  helo: string | null;
  mailFrom: string | null;
}

export type AuthSource = 'tix' | 'relay' | 'none';

export interface SignatureResult {
  domain: string;
  selector: string;
  result: string;
  comment?: string;
  aligned: boolean;
}

/**
 * The `auth` object of an inbound message's outcome: `spf`, `dkim`, `dmarc` as before, the rest
 * added (docs/mail.md, "Sender authentication").
 */
export interface SenderAuth {
  spf: string;
  dkim: string;
  dmarc: string;
  /** Who each result comes from. */
  source: { spf: AuthSource; dkim: AuthSource; dmarc: AuthSource };
  /** The domain of the DKIM signature that passed (the aligned one first). */
  dkim_domain?: string;
  /** The From domain DMARC was evaluated for, and its policy (none, quarantine, reject). */
  dmarc_domain?: string;
  dmarc_policy?: string;
  arc?: string;
  /** DKIM signatures, at most MAX_SIGNATURES of them; `signatures_total` when there were more. */
  signatures?: SignatureResult[];
  signatures_total?: number;
  /** The Authentication-Results header Tix's own checks make (mailauth's summary). */
  summary?: string;
  /** The trusted relay's results, when it gave some. */
  relay?: { authserv_id: string; spf: string | null; dkim: string | null; dmarc: string | null };
  dns?: DnsStats;
  /** Why Tix's own checks did not run to the end (they are `temperror` then). */
  error?: string;
}

const MAX_SIGNATURES = 10;
const SUMMARY_MAX = 4000;

export interface VerifyOptions {
  /** Tix's authserv-id in the summary (MAIL_DOMAIN). */
  authservId: string;
  resolver: DnsResolver;
  bounds: DnsBounds;
  /** The trusted relays' results for this message (trustedAuth). */
  trusted: readonly AuthResult[];
  /** The raw Authentication-Results values (for the relay's smtp.mailfrom). */
  authResultsHeaders: readonly string[];
}

const NONE: SenderAuth = {
  spf: 'none',
  dkim: 'none',
  dmarc: 'none',
  source: { spf: 'none', dkim: 'none', dmarc: 'none' },
};

/** The summary of DKIM for agents: pass (one verifies), fail (signed, none verifies), temperror, none. */
export function dkimSummary(results: readonly DkimResult[]): string {
  if (results.length === 0) return 'none';
  const outcomes = results.map((r) => r.status?.result ?? 'neutral');
  if (outcomes.includes('pass')) return 'pass';
  // A body hash that does not verify is a permanent failure (RFC 6376 3.7), reported as fail.
  if (outcomes.includes('fail') || results.some((r) => r.status?.comment === 'body hash did not verify'))
    return 'fail';
  // A signature past MAX_KEY_LOOKUPS is not verified: that is the message's doing, not the DNS's.
  if (results.some((r) => r.status?.result === 'temperror' && !/\bELIMIT\b/.test(String(r.status.comment))))
    return 'temperror';
  return 'fail';
}

function signatureOf(result: DkimResult): SignatureResult {
  const comment = result.status?.comment;
  return {
    domain: String(result.signingDomain ?? '').slice(0, 255),
    selector: String(result.selector ?? '').slice(0, 255),
    result: result.status?.result ?? 'neutral',
    ...(typeof comment === 'string' && comment !== '' ? { comment: comment.slice(0, 200) } : {}),
    aligned: Boolean(result.status?.aligned),
  };
}

function domainOf(address: string | null | undefined): string | null {
  if (!address) return null;
  const at = address.lastIndexOf('@');
  const domain = (at >= 0 ? address.slice(at + 1) : address).replace(/[<>\s]/g, '').toLowerCase();
  return domain === '' ? null : domain;
}

/** The relay's `smtp.mailfrom` (the SPF identity it checked), from its Authentication-Results. */
function relayMailFrom(headers: readonly string[], authservId: string): string | null {
  for (const value of headers) {
    const id = (value.split(';')[0] ?? '').trim().split(/\s+/)[0]?.toLowerCase();
    if (id !== authservId) continue;
    const found = /\bsmtp\.mailfrom\s*=\s*"?([^\s;"]+)/i.exec(value);
    if (found) return found[1] ?? null;
  }
  return null;
}

function dmarcParts(result: DmarcOutput | false | undefined): Partial<SenderAuth> {
  if (!result) return {};
  const policy = result.policy ?? result.p;
  return {
    ...(result.domain ? { dmarc_domain: result.domain } : {}),
    ...(policy ? { dmarc_policy: policy } : {}),
  };
}

/**
 * Verifies one message. Never throws: a failure of the checks themselves is recorded (temperror with
 * `error`), so processing goes on with the relay's results, if any.
 */
export async function verifySender(
  raw: Buffer,
  envelope: Envelope | null,
  options: VerifyOptions,
): Promise<SenderAuth> {
  const relayResult = options.trusted[0];
  const relay = relayResult
    ? {
        authserv_id: relayResult.authservId,
        spf: relayResult.spf,
        dkim: relayResult.dkim,
        dmarc: relayResult.dmarc,
      }
    : undefined;
  const dns = messageResolver(options.resolver, options.bounds);
  const ip = envelope?.clientIp ?? undefined;
  let result: AuthenticateResult;
  try {
    let timer: NodeJS.Timeout | undefined;
    // The resolver's budget ends the checks; this is the net under it (CPU-bound work is not cut).
    result = await Promise.race([
      mailauth.authenticate(raw, {
        mta: options.authservId,
        resolver: dns.resolve,
        disableBimi: true,
        ...(ip ? { ip, helo: envelope?.helo ?? ip } : {}),
        ...(envelope?.mailFrom ? { sender: envelope.mailFrom } : {}),
      }),
      new Promise<never>((_resolve, reject) => {
        timer = setTimeout(
          () => reject(new Error('sender authentication took too long')),
          options.bounds.budgetMs + 5_000,
        );
      }),
    ]).finally(() => clearTimeout(timer));
  } catch (error) {
    const message = String((error as Error)?.message ?? error).slice(0, 500);
    return {
      ...NONE,
      spf: relay?.spf ?? 'temperror',
      dkim: relay?.dkim ?? 'temperror',
      dmarc: relay?.dmarc ?? 'temperror',
      source: {
        spf: relay?.spf ? 'relay' : 'none',
        dkim: relay?.dkim ? 'relay' : 'none',
        dmarc: relay?.dmarc ? 'relay' : 'none',
      },
      ...(relay ? { relay } : {}),
      dns: { ...dns.stats },
      error: message,
    };
  }

  // mailauth answers one `none` entry for an unsigned message.
  const signatures = (result.dkim.results ?? []).filter((r) => r.status?.result !== 'none');
  let dkim = dkimSummary(signatures);
  let dkimSource: AuthSource = signatures.length > 0 ? 'tix' : 'none';
  const passing = signatures.filter((s) => s.status?.result === 'pass');
  const signer = passing.find((s) => s.status?.aligned) ?? passing[0];

  let spf = 'none';
  let spfSource: AuthSource = 'none';
  let dmarcResult: DmarcOutput | false = result.dmarc;
  if (relay?.spf) {
    spf = relay.spf;
    spfSource = 'relay';
    // DMARC again, with the relay's SPF instead of Tix's (which saw the relay, not the sender).
    const headerFrom = result.dkim.headerFrom;
    if (headerFrom && headerFrom.length > 0) {
      const spfDomain =
        spf === 'pass'
          ? domainOf(
              relayMailFrom(options.authResultsHeaders, relay.authserv_id) ??
                (result.dkim.envelopeFrom || null),
            )
          : null;
      try {
        dmarcResult = await dmarcModule.dmarc({
          headerFrom,
          spfDomains: spfDomain ? [spfDomain] : [],
          dkimDomains: passing.map((s) => ({
            id: s.id,
            domain: s.signingDomain,
            aligned: s.status?.aligned,
            underSized: s.status?.underSized,
          })),
          arcResult: result.arc,
          resolver: dns.resolve,
        });
      } catch {
        dmarcResult = { status: { result: 'temperror' } };
      }
    }
  } else if (ip && result.spf) {
    spf = result.spf.status?.result ?? 'temperror';
    spfSource = 'tix';
  }

  let dmarc = dmarcResult ? (dmarcResult.status?.result ?? 'none') : 'none';
  let dmarcSource: AuthSource = dmarcResult ? 'tix' : 'none';
  if (dkim === 'temperror' && relay?.dkim) {
    dkim = relay.dkim;
    dkimSource = 'relay';
  }
  if ((dmarc === 'temperror' || !dmarcResult) && relay?.dmarc) {
    dmarc = relay.dmarc;
    dmarcSource = 'relay';
  }
  const summary = result.headers.split(/\r?\n(?=\S)/).find((h) => /^authentication-results:/i.test(h));
  return {
    spf,
    dkim,
    dmarc,
    source: { spf: spfSource, dkim: dkimSource, dmarc: dmarcSource },
    ...(signer?.signingDomain ? { dkim_domain: signer.signingDomain } : {}),
    ...dmarcParts(dmarcResult),
    ...(result.arc && result.arc.status?.result ? { arc: result.arc.status.result } : {}),
    ...(signatures.length > 0 ? { signatures: signatures.slice(0, MAX_SIGNATURES).map(signatureOf) } : {}),
    ...(signatures.length > MAX_SIGNATURES ? { signatures_total: signatures.length } : {}),
    ...(summary ? { summary: summary.trim().slice(0, SUMMARY_MAX) } : {}),
    ...(relay ? { relay } : {}),
    dns: { ...dns.stats },
  };
}

/** The verified result as the threading library reads it (decideThread's `untrusted`). */
export function asAuthResult(auth: SenderAuth, authservId: string): AuthResult {
  return { authservId, spf: auth.spf, dkim: auth.dkim, dmarc: auth.dmarc };
}
