import { scryptSync } from 'node:crypto';
import { expect } from 'chai';
import { dummyPasswordHash, hashPassword, verifyPassword } from '../../src/users/password-hash.js';

describe('password hashing (scrypt)', () => {
  it('stores scrypt$16384$8$1$<16-byte salt>$<64-byte key> in base64', async () => {
    const stored = await hashPassword('correct horse');
    const parts = stored.split('$');
    expect(parts.slice(0, 4)).to.deep.equal(['scrypt', '16384', '8', '1']);
    expect(Buffer.from(parts[4]!, 'base64')).to.have.length(16);
    expect(Buffer.from(parts[5]!, 'base64')).to.have.length(64);
    expect(parts).to.have.length(6);
  });

  it('derives exactly scrypt(password, salt, 64, N=16384 r=8 p=1)', async () => {
    const stored = await hashPassword('correct horse');
    const [, , , , salt, hash] = stored.split('$');
    const expected = scryptSync('correct horse', Buffer.from(salt!, 'base64'), 64, { N: 16384, r: 8, p: 1 });
    expect(hash).to.equal(expected.toString('base64'));
  });

  it('verifies the right password and refuses a wrong one', async () => {
    const stored = await hashPassword('correct horse');
    expect(await verifyPassword('correct horse', stored)).to.be.true;
    expect(await verifyPassword('correct horsE', stored)).to.be.false;
    expect(await verifyPassword('', stored)).to.be.false;
  });

  it('salts every hash', async () => {
    const [a, b] = await Promise.all([hashPassword('same password'), hashPassword('same password')]);
    expect(a).not.to.equal(b);
  });

  it('verifies hashes made with other cost parameters (they travel with the hash)', async () => {
    const salt = Buffer.alloc(16, 3);
    const key = scryptSync('legacy pass', salt, 32, { N: 1024, r: 8, p: 1 });
    const stored = `scrypt$1024$8$1$${salt.toString('base64')}$${key.toString('base64')}`;
    expect(await verifyPassword('legacy pass', stored)).to.be.true;
    expect(await verifyPassword('other pass', stored)).to.be.false;
  });

  it('answers false, never throws, for malformed or out-of-bounds stored hashes', async () => {
    const good = await hashPassword('pw123456');
    const [, , , , salt, hash] = good.split('$');
    for (const stored of [
      '',
      'plain-text',
      `bcrypt$16384$8$1$${salt}$${hash}`,
      `scrypt$16384$8$1$${salt}`,
      `scrypt$1000$8$1$${salt}$${hash}`, // N not a power of two
      `scrypt$${2 ** 24}$8$1$${salt}$${hash}`, // N too large to be ours
      `scrypt$16384$0$1$${salt}$${hash}`,
      `scrypt$16384$8$99$${salt}$${hash}`,
      `scrypt$16384$8$1$$${hash}`,
      `scrypt$16384$8$1$${salt}$AAAA`,
    ]) {
      expect(await verifyPassword('pw123456', stored), stored).to.be.false;
    }
  });

  it('has one dummy hash per process, a real scrypt hash that no password is known for', async () => {
    const dummy = await dummyPasswordHash();
    expect(await dummyPasswordHash()).to.equal(dummy);
    expect(dummy).to.match(/^scrypt\$16384\$8\$1\$/);
    expect(await verifyPassword('', dummy)).to.be.false;
  });
});
