import { expect } from 'chai';
import {
  addressProblem,
  parseTargetUrl,
  TARGET_MESSAGES,
  TargetRefused,
  vetTarget,
  type Resolver,
} from '../../src/delivery/target-policy.js';

async function refusedWith(work: Promise<unknown>): Promise<TargetRefused> {
  const error = await work.then(
    () => expect.fail('expected a refusal'),
    (caught: unknown) => caught,
  );
  expect(error).to.be.instanceOf(TargetRefused);
  return error as TargetRefused;
}

describe('target policy: addresses', () => {
  const refused: [string, string][] = [
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.5.4', 'private'],
    ['192.168.0.1', 'private'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['169.254.169.254', 'linkLocal'],
    ['0.0.0.0', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['224.0.0.1', 'multicast'],
    ['192.0.2.10', 'reserved'],
    ['198.51.100.1', 'reserved'],
    ['203.0.113.7', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['fd00:ec2::254', 'uniqueLocal'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:169.254.169.254', 'linkLocal'],
    ['64:ff9b::a00:1', 'rfc6052'],
    ['2002:a00:1::', '6to4'],
    ['2001:db8::1', 'reserved'],
  ];
  for (const [address, range] of refused) {
    it(`refuses ${address} (${range})`, () => {
      expect(addressProblem(address)).to.equal(range);
    });
  }
  for (const address of ['93.184.215.14', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8']) {
    it(`allows the public address ${address}`, () => {
      expect(addressProblem(address)).to.equal(null);
    });
  }
  it('calls a non-address what it is', () => {
    expect(addressProblem('example.com')).to.equal('not an IP address');
  });
});

describe('target policy: URLs', () => {
  it('accepts http and https in development, https only in production', () => {
    expect(parseTargetUrl('http://127.0.0.1:8080/x', 'development').href).to.equal('http://127.0.0.1:8080/x');
    expect(parseTargetUrl('https://example.com/x', 'production').host).to.equal('example.com');
    expect(parseTargetUrl('https://example.com/caf\u00e9/\u{1F600}', 'production').pathname).to.equal(
      '/caf%C3%A9/%F0%9F%98%80',
    );
    expect(() => parseTargetUrl('http://example.com/x', 'production'))
      .to.throw(TargetRefused)
      .with.property('message', TARGET_MESSAGES.httpsRequired);
  });
  for (const text of [
    '',
    'nope',
    '/relative',
    'ftp://example.com/',
    'javascript:alert(1)',
    'file:///etc/passwd',
    'http://',
    'http://example.com/a\u0000b',
    'http://example.com/a b',
    ' http://example.com/',
    'http://example.com/\ud800',
  ]) {
    it(`refuses ${JSON.stringify(text)} as not an absolute http(s) URL`, () => {
      expect(() => parseTargetUrl(text, 'development')).to.throw(TARGET_MESSAGES.invalid);
    });
  }
  it('refuses credentials and over-long URLs', () => {
    expect(() => parseTargetUrl('https://u:p@example.com/', 'development')).to.throw(
      TARGET_MESSAGES.credentials,
    );
    expect(() => parseTargetUrl('https://u@example.com/', 'development')).to.throw(
      TARGET_MESSAGES.credentials,
    );
    expect(() => parseTargetUrl(`https://example.com/${'a'.repeat(2048)}`, 'development')).to.throw(
      TARGET_MESSAGES.tooLong,
    );
  });
});

describe('target policy: vetTarget', () => {
  const resolver =
    (answers: Record<string, string[]>): Resolver =>
    (hostname) => {
      const found = answers[hostname];
      if (!found) return Promise.reject(new Error(`getaddrinfo ENOTFOUND ${hostname}`));
      return Promise.resolve(found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
    };

  it('development: no resolution, no address check', async () => {
    const vetted = await vetTarget('http://localhost:3000/h', 'development', () => expect.fail('resolved'));
    expect(vetted.addresses).to.equal(null);
    expect(vetted.url.port).to.equal('3000');
  });

  it('production: returns every address of a public host, to connect to exactly those', async () => {
    const vetted = await vetTarget(
      'https://hooks.example.com/in',
      'production',
      resolver({ 'hooks.example.com': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'] }),
    );
    expect(vetted.addresses).to.deep.equal([
      { address: '93.184.215.14', family: 4 },
      { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 },
    ]);
  });

  it('production: refuses a host with any internal address, naming it', async () => {
    const error = await refusedWith(
      vetTarget(
        'https://a.example.com/',
        'production',
        resolver({ 'a.example.com': ['93.184.215.14', '10.9.8.7'] }),
      ),
    );
    expect(error.message).to.equal(TARGET_MESSAGES.internal);
    expect(error.detail).to.equal('10.9.8.7 (private)');
  });

  it('production: IP literals in any spelling are checked without resolving', async () => {
    const never: Resolver = () => expect.fail('resolved');
    for (const url of [
      'https://2130706433/',
      'https://0x7f000001/',
      'https://0177.0.0.1/',
      'https://127.1/',
      'https://[::ffff:7f00:1]/',
    ]) {
      const error = await refusedWith(vetTarget(url, 'production', never));
      expect(error.message, url).to.equal(TARGET_MESSAGES.internal);
    }
    const allowed = await vetTarget('https://93.184.215.14:8443/', 'production', never);
    expect(allowed.addresses).to.deep.equal([{ address: '93.184.215.14', family: 4 }]);
  });

  it('production: a host that does not resolve (or resolves to nothing) is refused', async () => {
    expect(
      (await refusedWith(vetTarget('https://nx.example.com/', 'production', resolver({})))).message,
    ).to.equal(TARGET_MESSAGES.unresolvable);
    expect(
      (
        await refusedWith(
          vetTarget('https://empty.example.com/', 'production', resolver({ 'empty.example.com': [] })),
        )
      ).message,
    ).to.equal(TARGET_MESSAGES.unresolvable);
  });
});
