/** Minimal stand-ins for express's request and response, for unit tests of middleware (no sockets). */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Logger } from '@tix/kit';

/** Records what a middleware writes: status, headers, body. */
export class FakeResponse {
  statusCode = 200;
  headersSent = false;
  body: string | undefined;
  ended = false;
  readonly headers = new Map<string, string | number | string[]>();

  setHeader(name: string, value: string | number | string[]): this {
    this.headers.set(name.toLowerCase(), value);
    return this;
  }
  getHeader(name: string) {
    return this.headers.get(name.toLowerCase());
  }
  append(name: string, value: string): this {
    const existing = this.headers.get(name.toLowerCase());
    this.headers.set(
      name.toLowerCase(),
      existing === undefined ? value : [...[existing].flat().map(String), value],
    );
    return this;
  }
  end(chunk?: string): this {
    this.body = chunk;
    this.ended = true;
    this.headersSent = true;
    return this;
  }
  once(): this {
    return this;
  }
  /** The parsed JSON body. */

  json(): any {
    return this.body === undefined ? undefined : JSON.parse(this.body);
  }
}

export interface LogCall {
  level: string;
  fields: unknown;
  message: string | undefined;
}

/** A logger that records calls (child() returns itself). */
export function recordingLogger(calls: LogCall[] = []): Logger & { calls: LogCall[] } {
  const record = (level: string) => (fields: unknown, message?: string) => {
    calls.push({ level, fields, message });
  };
  const logger = {
    calls,
    error: record('error'),
    warn: record('warn'),
    info: record('info'),
    debug: record('debug'),
    child: () => logger,
    isLevelEnabled: () => true,
  };
  return logger as unknown as Logger & { calls: LogCall[] };
}

/** A request with the given parts; `log` records, `correlationId` is fixed. */
export function fakeRequest(
  parts: Omit<Partial<Request>, 'headers'> & { headers?: Record<string, string | undefined> } = {},
): Request {
  return {
    method: 'GET',
    originalUrl: '/',
    url: '/',
    path: '/',
    query: {},
    correlationId: 'test-correlation-id',
    log: recordingLogger(),
    ...parts,
    headers: parts.headers ?? {},
  } as unknown as Request;
}

/** Runs a middleware; resolves with what it passed to next (undefined = next() without error). */
export async function run(
  middleware: RequestHandler,
  request: Request,
  response: FakeResponse = new FakeResponse(),
): Promise<{ nextCalled: boolean; error: unknown; response: FakeResponse }> {
  let nextCalled = false;
  let error: unknown;
  const next: NextFunction = (value?: unknown) => {
    nextCalled = true;
    error = value;
  };
  try {
    await middleware(request, response as unknown as Response, next);
  } catch (thrown) {
    error = thrown;
  }
  return { nextCalled, error, response };
}
