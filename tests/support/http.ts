/** HTTP helpers for talking to the gateway under test like an integrator would. */
import { fleet } from './fleet.js';

/** The spec's envelope, loosely typed: tests assert on its content. */
export interface Envelope {
  ok: boolean;
  data?: any;
  error?: { code: number; message: string; validation_errors?: Record<string, unknown> };
}

export interface ApiResponse<T = Envelope> {
  status: number;
  headers: Headers;
  body: T;
  /** The raw body text (for malformed-body checks). */
  text: string;
}

export interface RequestOptions {
  method?: string;
  key?: string;
  body?: unknown;
  /** Sent as-is instead of JSON-encoding `body`. */
  rawBody?: string;
  headers?: Record<string, string>;
  /** 'app' talks to the session host instead of the API host. */
  host?: 'api' | 'app';
  /** Another gateway than the shared fleet's (e.g. one a suite started itself). */
  baseUrl?: string;
}

/** Sends a request to the gateway and decodes the JSON envelope. */
export async function request<T = Envelope>(
  path: string,
  options: RequestOptions = {},
): Promise<ApiResponse<T>> {
  const base = options.baseUrl ?? (options.host === 'app' ? fleet().appUrl : fleet().apiUrl);
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  let body: string | undefined = options.rawBody;
  if (body === undefined && options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(`${base}${path}`, { method: options.method ?? 'GET', headers, body });
  const text = await response.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}
