/**
 * A private dovecot (Debian's dovecot-imapd) for tests: a temporary folder with its config, a
 * passwd-file with one test user, maildirs, on a free loopback port, run as the current user
 * (`dovecot -F -c <conf>`), stopped and removed by stop().
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmod, chown, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ImapFlow } from 'imapflow';
import { freePort } from '@tix/kit/testing';

export interface TestDovecot {
  host: string;
  port: number;
  user: string;
  password: string;
  /** A connected IMAP client signed in as the test user (the caller logs out). */
  client(): Promise<ImapFlow>;
  /** APPENDs each message to the test user's INBOX, as mail arriving there. */
  append(messages: Iterable<Buffer | string>): Promise<void>;
  stop(): Promise<void>;
}

async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('data', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
      socket.setTimeout(500, () => {
        socket.destroy();
        resolve(false);
      });
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`dovecot did not listen on ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function startTestDovecot(
  options: { user?: string; password?: string } = {},
): Promise<TestDovecot> {
  const user = options.user ?? 'tester';
  const password = options.password ?? 'test-password';
  const directory = await mkdtemp(path.join(os.tmpdir(), 'tix-test-dovecot-'));
  // The auth process (dovecot's internal user when run as root) reads the passwd-file in here.
  await chmod(directory, 0o755);
  const port = await freePort();
  const { username, uid: ownUid, gid: ownGid } = os.userInfo();
  // dovecot delivers no mail as uid 0: as root, the mail belongs to Debian's dovecot user.
  const idOf = (flag: string) =>
    Number(spawnSync('id', [flag, 'dovecot'], { encoding: 'utf8' }).stdout.trim());
  const uid = ownUid === 0 ? idOf('-u') : ownUid;
  const gid = ownUid === 0 ? idOf('-g') : ownGid;
  for (const folder of ['mail', 'home']) {
    await mkdir(path.join(directory, folder));
    await chown(path.join(directory, folder), uid, gid);
  }
  await writeFile(path.join(directory, 'passwd'), `${user}:{PLAIN}${password}::::::\n`);
  // The mail folders must belong to the user the mail processes run as (the test's uid).
  const conf = [
    `base_dir = ${directory}/run`,
    `state_dir = ${directory}/state`,
    `log_path = ${directory}/dovecot.log`,
    'protocols = imap',
    'listen = 127.0.0.1',
    'ssl = no',
    'disable_plaintext_auth = no',
    'auth_mechanisms = plain login',
    // dovecot refuses to run its login processes as root: as root, Debian's dovecot/dovenull users.
    `default_internal_user = ${ownUid === 0 ? 'dovecot' : username}`,
    `default_login_user = ${ownUid === 0 ? 'dovenull' : username}`,
    `mail_location = maildir:${directory}/mail/%u`,
    `first_valid_uid = ${uid}`,
    `first_valid_gid = ${gid}`,
    'service imap-login {',
    `  inet_listener imap {\n    address = 127.0.0.1\n    port = ${port}\n  }`,
    '  inet_listener imaps {\n    port = 0\n  }',
    '}',
    'service anvil {\n  chroot =\n}',
    'service imap-login {\n  chroot =\n}',
    'passdb {',
    '  driver = passwd-file',
    `  args = scheme=PLAIN ${directory}/passwd`,
    '}',
    'userdb {',
    '  driver = static',
    `  args = uid=${uid} gid=${gid} home=${directory}/home/%u`,
    '}',
    '',
  ].join('\n');
  await writeFile(path.join(directory, 'dovecot.conf'), conf);
  const child: ChildProcess = spawn('dovecot', ['-F', '-c', path.join(directory, 'dovecot.conf')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  try {
    await waitForPort(port, 10_000);
  } catch (error) {
    child.kill('SIGTERM');
    throw new Error(`${(error as Error).message}: ${stderr}`);
  }
  const client = async () => {
    const imap = new ImapFlow({
      host: '127.0.0.1',
      port,
      secure: false,
      auth: { user, pass: password },
      logger: false,
    });
    await imap.connect();
    return imap;
  };
  return {
    host: '127.0.0.1',
    port,
    user,
    password,
    client,
    async append(messages) {
      const imap = await client();
      try {
        for (const message of messages) await imap.append('INBOX', message);
      } finally {
        await imap.logout();
      }
    },
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      await rm(directory, { recursive: true, force: true });
    },
  };
}
