/**
 * One delivery attempt over node:http / node:https (not fetch: it cannot pin the connected address).
 * - Connects only to the vetted addresses when given (a `lookup` that answers them), so the
 *   address checked by the target policy is the address connected to; TLS still verifies the
 *   certificate against the host name.
 * - The timeout covers everything up to the response status; no redirect is followed (node:http
 *   never does), so a 3xx fails the attempt like any non-2xx.
 * - Keep-alive agents, at most `maxSocketsPerHost` sockets per target, so repeated deliveries to
 *   a receiver skip the TCP and TLS handshakes. A request on a reused socket that the receiver had
 *   just closed is retried once on a fresh socket (nothing reached the receiver).
 * - The response body is read for the delivery log up to its excerpt (4 KiB, body-excerpt.ts),
 *   then the socket is dropped; the attempt ends when the body has ended, the excerpt is full or
 *   the timeout passed (the status counts either way).
 */
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { BODY_EXCERPT_BYTES, bodyExcerpt } from './body-excerpt.js';
import type { ResolvedAddress } from './target-policy.js';

export interface AttemptRequest {
  url: URL;
  /** Connect only to these (production); null resolves normally (development). */
  addresses: ResolvedAddress[] | null;
  headers: Record<string, string>;
  body: Buffer;
  timeoutMs: number;
  /**
   * The whole attempt's timeout, which a timeout's error names, when `timeoutMs` is only what is
   * left of it (the target was vetted first); `timeoutMs` otherwise.
   */
  attemptTimeoutMs?: number;
  /** Aborts the attempt (shutdown past its grace period). */
  signal?: AbortSignal;
}

export interface AttemptResponse {
  /** The receiver's status; null when none arrived (timeout, connection failure). */
  responseCode: number | null;
  /** What went wrong when no status arrived; null otherwise. */
  error: string | null;
  /** The start of the receiver's body (body-excerpt.ts); null when no status arrived. */
  responseBody: string | null;
  responseBodyTruncated: boolean;
}

export interface HttpSender {
  send(request: AttemptRequest): Promise<AttemptResponse>;
  /** Closes idle keep-alive sockets. */
  close(): void;
}

/** A `lookup` that answers only `addresses` (whatever name is asked). */
export function pinnedLookup(addresses: ResolvedAddress[]): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all)
      callback(
        null,
        addresses.map(({ address, family }) => ({ address, family })),
      );
    else callback(null, addresses[0]!.address, addresses[0]!.family);
  }) as LookupFunction;
}

function describe(error: unknown): string {
  const { code, message } = error as { code?: string; message?: string };
  const text = message ?? String(error);
  return code && !text.includes(code) ? `${code}: ${text}` : text;
}

/** A sender with keep-alive agents limited to `maxSocketsPerHost` sockets per target. */
export function createHttpSender(options: { maxSocketsPerHost: number }): HttpSender {
  const agentOptions = {
    keepAlive: true,
    maxSockets: options.maxSocketsPerHost,
    scheduling: 'lifo' as const,
  };
  const httpAgent = new http.Agent(agentOptions);
  const httpsAgent = new https.Agent(agentOptions);

  const once = (request: AttemptRequest): Promise<AttemptResponse & { staleSocket: boolean }> =>
    new Promise((resolve) => {
      const { url } = request;
      const secure = url.protocol === 'https:';
      let settled = false;
      const finish = (outcome: AttemptResponse, staleSocket = false) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        request.signal?.removeEventListener('abort', onAbort);
        resolve({ ...outcome, staleSocket });
      };
      const outgoing = (secure ? https : http).request({
        protocol: url.protocol,
        hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
        port: url.port === '' ? undefined : Number(url.port),
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: { ...request.headers, Host: url.host },
        agent: secure ? httpsAgent : httpAgent,
        ...(request.addresses ? { lookup: pinnedLookup(request.addresses) } : {}),
      });
      const timer = setTimeout(() => {
        if (answered) answered();
        outgoing.destroy(new Error(`timeout after ${request.attemptTimeoutMs ?? request.timeoutMs} ms`));
      }, request.timeoutMs);
      const onAbort = () => outgoing.destroy(new Error('aborted: the service is shutting down'));
      if (request.signal?.aborted) onAbort();
      else request.signal?.addEventListener('abort', onAbort, { once: true });

      /** Set once the status arrived: from then on the attempt has its answer, whatever the body does. */
      let answered: (() => void) | undefined;
      outgoing.on('response', (incoming) => {
        const responseCode = incoming.statusCode ?? null;
        const chunks: Buffer[] = [];
        let kept = 0;
        let more = false;
        answered = () => {
          const excerpt = bodyExcerpt(Buffer.concat(chunks), more);
          finish({
            responseCode,
            error: null,
            responseBody: excerpt.text,
            responseBodyTruncated: excerpt.truncated,
          });
        };
        incoming.on('data', (chunk: Buffer) => {
          if (kept <= BODY_EXCERPT_BYTES) {
            chunks.push(chunk);
            kept += chunk.length;
          }
          if (kept > BODY_EXCERPT_BYTES) {
            more = true;
            answered?.();
            incoming.destroy();
          }
        });
        incoming.on('end', () => answered?.());
        incoming.on('close', () => answered?.());
        incoming.on('error', () => undefined);
      });
      outgoing.on('error', (error: NodeJS.ErrnoException) => {
        if (answered) return answered(); // the body was cut short: the status stands
        const stale = outgoing.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE');
        finish({ responseCode: null, error: describe(error), ...NO_BODY }, stale);
      });
      outgoing.end(request.body);
    });

  return {
    async send(request) {
      const first = await once(request);
      if (!first.staleSocket || request.signal?.aborted) return strip(first);
      return strip(await once(request));
    },
    close() {
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
}

const NO_BODY = { responseBody: null, responseBodyTruncated: false };

function strip({
  staleSocket: _stale,
  ...outcome
}: AttemptResponse & { staleSocket: boolean }): AttemptResponse {
  return outcome;
}
