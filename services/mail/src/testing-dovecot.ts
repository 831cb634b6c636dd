/**
 * A private dovecot (Debian's dovecot-imapd) for tests: a temporary folder with its config, a
 * passwd-file with one test user, maildirs, on a free loopback port, run as the current user
 * (`dovecot -F -c <conf>`), stopped and removed by stop().
 *
 * With `oauth2`, dovecot also takes OAuth2 bearer tokens (XOAUTH2, OAUTHBEARER) and checks each at
 * sign-in with the provider's introspection endpoint (dovecot 2.3's oauth2 passdb,
 * `introspection_mode = post`): a token the endpoint answers `active: true` for, naming the user in
 * `username`, signs the user in. The password keeps working (the passwd-file passdb comes first).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmod, chown, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
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
  /** dovecot's log (logins name their method: `method=XOAUTH2`). */
  log(): Promise<string>;
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

export interface TestDovecotOptions {
  user?: string;
  password?: string;
  oauth2?: {
    /** The provider's token introspection endpoint (RFC 7662), posted `token=<token>`. */
    introspectionUrl: string;
    /** Default `plain login xoauth2 oauthbearer`. */
    mechanisms?: string;
  };
}

export async function startTestDovecot(options: TestDovecotOptions = {}): Promise<TestDovecot> {
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
  if (options.oauth2)
    await writeFile(
      path.join(directory, 'oauth2.conf'),
      [
        'introspection_mode = post',
        `introspection_url = ${options.oauth2.introspectionUrl}`,
        'username_attribute = username',
        'active_attribute = active',
        'active_value = true',
        '',
      ].join('\n'),
    );
  // The mail folders must belong to the user the mail processes run as (the test's uid).
  const conf = [
    `base_dir = ${directory}/run`,
    `state_dir = ${directory}/state`,
    `log_path = ${directory}/dovecot.log`,
    'protocols = imap',
    'listen = 127.0.0.1',
    'ssl = no',
    'disable_plaintext_auth = no',
    // A refused token answers at once (the default delays failures by 2 s).
    ...(options.oauth2 ? ['auth_failure_delay = 0'] : []),
    `auth_mechanisms = ${options.oauth2 ? (options.oauth2.mechanisms ?? 'plain login xoauth2 oauthbearer') : 'plain login'}`,
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
    ...(options.oauth2
      ? [
          'passdb {',
          '  driver = oauth2',
          '  mechanisms = xoauth2 oauthbearer',
          `  args = ${directory}/oauth2.conf`,
          '}',
        ]
      : []),
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
    log: () => readFile(path.join(directory, 'dovecot.log'), 'utf8').catch(() => ''),
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
