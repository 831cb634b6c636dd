/**
 * Sender authentication with mailauth on a static in-memory DNS (the internet's cannot run here):
 * messages signed in the test with a fresh RSA key, SPF and DMARC records served by the fake.
 */
import { generateKeyPairSync } from 'node:crypto';
import { expect } from 'chai';
import dkimModule from 'mailauth/lib/dkim/sign.js';
import { parseInbound, isRefusal, type AuthResult } from '@tix/threading';
import { trustedAuth } from '../../src/processing/process-message.js';
import {
  boundedResolver,
  verifySender,
  type DnsBounds,
  type DnsResolver,
  type Envelope,
} from '../../src/processing/sender-auth.js';
import { staticResolver, type StaticRecords } from '../../src/testing-dns.js';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PRIVATE = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const PUBLIC = publicKey.export({ type: 'spki', format: 'der' }).toString('base64');

const RECORDS: StaticRecords = {
  'sel._domainkey.example.com': { TXT: [`v=DKIM1; k=rsa; p=${PUBLIC}`] },
  'example.com': { TXT: ['v=spf1 ip4:192.0.2.10 -all'] },
  '_dmarc.example.com': { TXT: ['v=DMARC1; p=reject'] },
};
const SENDER_IP: Envelope = { clientIp: '192.0.2.10', helo: 'mx.example.com', mailFrom: 'alice@example.com' };
const OTHER_IP: Envelope = {
  clientIp: '198.51.100.7',
  helo: 'evil.example.net',
  mailFrom: 'alice@example.com',
};
const BOUNDS: DnsBounds = { timeoutMs: 200, budgetMs: 800, maxLookups: 50 };

function plain(from = 'Alice <alice@example.com>', body = 'The printer is on fire.'): string {
  return [
    `From: ${from}`,
    'To: sup@tix.localhost',
    'Subject: Help',
    'Message-ID: <m1@example.com>',
    'Date: Thu, 03 Dec 2026 12:00:00 +0000',
    '',
    body,
    '',
  ].join('\r\n');
}

async function signed(message: string, domain = 'example.com', selector = 'sel'): Promise<string> {
  const result = await dkimModule.dkimSign(message, {
    signatureData: [{ signingDomain: domain, selector, privateKey: PRIVATE }],
  });
  expect(result.errors).to.deep.equal([]);
  return result.signatures + message;
}

async function verify(
  raw: string,
  envelope: Envelope | null,
  options: { resolver?: DnsResolver; trusted?: string[]; bounds?: DnsBounds } = {},
) {
  const parsed = await parseInbound(Buffer.from(raw));
  if (isRefusal(parsed)) throw new Error(`refused: ${parsed.refused}`);
  const trusted: AuthResult[] = trustedAuth(parsed, options.trusted ?? []);
  return verifySender(Buffer.from(raw), envelope, {
    authservId: 'tix.localhost',
    resolver: options.resolver ?? staticResolver(RECORDS),
    bounds: options.bounds ?? BOUNDS,
    trusted,
    authResultsHeaders: parsed.headers['authentication-results'] ?? [],
  });
}

describe('sender authentication (mailauth, static DNS)', function () {
  this.timeout(20_000);

  it('a signed message from a permitted IP passes SPF, DKIM and DMARC, with the signing domain and policy', async () => {
    const auth = await verify(await signed(plain()), SENDER_IP);
    expect(auth).to.include({
      spf: 'pass',
      dkim: 'pass',
      dmarc: 'pass',
      dkim_domain: 'example.com',
      dmarc_domain: 'example.com',
      dmarc_policy: 'reject',
    });
    expect(auth.source).to.deep.equal({ spf: 'tix', dkim: 'tix', dmarc: 'tix' });
    expect(auth.signatures).to.deep.equal([
      { domain: 'example.com', selector: 'sel', result: 'pass', aligned: true },
    ]);
    expect(auth.summary).to.match(/^Authentication-Results: tix\.localhost;/);
    expect(auth.summary).to.contain('dmarc=pass');
  });

  it('a body changed after signing fails DKIM', async () => {
    const raw = (await signed(plain())).replace('on fire', 'fine now');
    const auth = await verify(raw, SENDER_IP);
    expect(auth.dkim).to.equal('fail');
    expect(auth.signatures?.[0]).to.include({ result: 'neutral', comment: 'body hash did not verify' });
    // SPF still aligns, so DMARC passes on it.
    expect(auth).to.include({ spf: 'pass', dmarc: 'pass' });
  });

  it('mail from an IP the domain does not permit fails SPF', async () => {
    const auth = await verify(await signed(plain()), OTHER_IP);
    expect(auth).to.include({ spf: 'fail', dkim: 'pass', dmarc: 'pass' });
  });

  it('an unsigned message from a wrong IP fails DMARC under p=reject', async () => {
    const auth = await verify(plain(), OTHER_IP);
    expect(auth).to.include({ spf: 'fail', dkim: 'none', dmarc: 'fail', dmarc_policy: 'reject' });
    expect(auth.summary).to.contain('dmarc=fail');
  });

  it('a signature by another domain does not align: DMARC fails for the From domain', async () => {
    const records: StaticRecords = {
      ...RECORDS,
      'sel._domainkey.attacker.example.net': { TXT: [`v=DKIM1; k=rsa; p=${PUBLIC}`] },
    };
    const auth = await verify(await signed(plain(), 'attacker.example.net'), OTHER_IP, {
      resolver: staticResolver(records),
    });
    expect(auth).to.include({ dkim: 'pass', dkim_domain: 'attacker.example.net', dmarc: 'fail' });
  });

  it('a DNS that never answers makes temperror in bounded time, not a hang or a crash', async () => {
    const dead = staticResolver(Object.fromEntries(Object.keys(RECORDS).map((name) => [name, 'timeout'])));
    const started = Date.now();
    const auth = await verify(await signed(plain()), SENDER_IP, { resolver: dead });
    expect(Date.now() - started).to.be.below(BOUNDS.budgetMs + 1_500);
    expect(auth).to.include({ spf: 'temperror', dkim: 'temperror', dmarc: 'temperror' });
    expect(auth.dns!.errors).to.be.greaterThan(0);
  });

  it('a failing DNS (SERVFAIL) is temperror too', async () => {
    const failing = staticResolver({ 'example.com': 'servfail', '_dmarc.example.com': 'servfail' });
    const auth = await verify(plain(), SENDER_IP, { resolver: failing });
    expect(auth).to.include({ spf: 'temperror', dmarc: 'temperror' });
  });

  it('100 DKIM-Signature headers: recorded as fail, signatures capped, DNS lookups capped', async () => {
    const message = plain('Alice <alice@example.com>');
    let headers = '';
    for (let i = 0; i < 100; i++) {
      const one = await dkimModule.dkimSign(message, {
        signatureData: [{ signingDomain: `d${i}.example.org`, selector: 'sel', privateKey: PRIVATE }],
      });
      headers += one.signatures;
    }
    const resolver = staticResolver(RECORDS);
    const auth = await verify(headers + message, OTHER_IP, { resolver });
    expect(auth.dkim).to.equal('fail');
    expect(auth.dmarc).to.equal('fail');
    expect(auth.signatures).to.have.length(10);
    expect(auth.signatures_total).to.equal(100);
    expect(auth.dns!.lookups).to.be.at.most(50);
    expect(resolver.queries.length).to.be.at.most(50);
  });

  it('a garbage DKIM-Signature is recorded as fail, without a crash', async () => {
    const raw =
      'DKIM-Signature: v=1; a=rsa-sha256; d=example.com; s=sel; h=from; bh=AAAA; b=!!!not base64!!!\r\n' +
      'DKIM-Signature: ;;;==;;\x01\r\n' +
      plain();
    const auth = await verify(raw, OTHER_IP);
    expect(auth.dkim).to.equal('fail');
    expect(auth.dmarc).to.equal('fail');
  });

  it('IMAP mail (no envelope): SPF from a trusted relay; its pass aligns DMARC for unsigned mail', async () => {
    const relayHeader =
      'Authentication-Results: mx.relay.example; spf=pass smtp.mailfrom=alice@example.com; dkim=none; dmarc=pass\r\n';
    const trusted = await verify(relayHeader + plain(), null, { trusted: ['mx.relay.example'] });
    expect(trusted).to.include({ spf: 'pass', dkim: 'none', dmarc: 'pass' });
    expect(trusted.source).to.deep.equal({ spf: 'relay', dkim: 'none', dmarc: 'tix' });
    expect(trusted.relay).to.include({ authserv_id: 'mx.relay.example', spf: 'pass' });

    // The same header from a host that is not trusted: SPF none, and DMARC fails (nothing aligns).
    const untrusted = await verify(relayHeader + plain(), null);
    expect(untrusted).to.include({ spf: 'none', dmarc: 'fail' });
    expect(untrusted.source.spf).to.equal('none');
    expect(untrusted.relay).to.equal(undefined);
  });

  it("Tix's own DMARC wins over a trusted relay's pass; the relay's is used when Tix's is temperror", async () => {
    const claim = 'Authentication-Results: mx.relay.example; spf=fail; dkim=pass; dmarc=pass\r\n';
    const own = await verify(claim + plain(), OTHER_IP, { trusted: ['mx.relay.example'] });
    expect(own).to.include({ spf: 'fail', dmarc: 'fail' });
    expect(own.source.dmarc).to.equal('tix');

    const dead = staticResolver({ '_dmarc.example.com': 'servfail' });
    const fallback = await verify(claim + plain(), OTHER_IP, {
      trusted: ['mx.relay.example'],
      resolver: dead,
    });
    expect(fallback.dmarc).to.equal('pass');
    expect(fallback.source.dmarc).to.equal('relay');
  });
});

describe('boundedResolver', () => {
  it('caches a name, stops after the cap and after the budget', async () => {
    let calls = 0;
    const base: DnsResolver = async (name) => {
      calls += 1;
      if (name === 'slow.example') return new Promise(() => undefined);
      return [['v=spf1 -all']];
    };
    let clock = 0;
    const bounded = boundedResolver(base, { timeoutMs: 50, budgetMs: 1_000, maxLookups: 2 }, () => clock);
    await bounded.resolve('a.example', 'TXT');
    await bounded.resolve('A.example', 'txt');
    expect(calls).to.equal(1);
    const slow = await bounded.resolve('slow.example', 'TXT').catch((error: { code?: string }) => error.code);
    expect(slow).to.equal('ETIMEOUT');
    const capped = await bounded.resolve('c.example', 'TXT').catch((error: { code?: string }) => error.code);
    expect(capped).to.equal('ELIMIT');
    // The budget counts from the first lookup.
    const later = boundedResolver(base, { timeoutMs: 50, budgetMs: 100, maxLookups: 10 }, () => clock);
    clock = 500;
    await later.resolve('first.example', 'TXT');
    clock = 700;
    const spent = await later.resolve('d.example', 'TXT').catch((error: { code?: string }) => error.code);
    expect(spent).to.equal('ETIMEOUT');
    expect(bounded.stats).to.deep.equal({ lookups: 2, errors: 1 });
  });
});
