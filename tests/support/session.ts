/** A signed-in browser on the session host, as the console is: a cookie jar and the CSRF token. */
import { expect } from 'chai';
import { fleet } from './fleet.js';
import { request, type ApiResponse, type RequestOptions } from './http.js';

export interface BrowserSession {
  /** The user as sign-in answered it. */
  user: { id: number; name: string; email: string; role: string };
  csrfToken: string;
  /** A request to `{app_url}/api<path>` with the session cookie and (unless `csrf: false`) its token. */
  call(
    method: string,
    path: string,
    body?: unknown,
    options?: { csrf?: boolean; headers?: Record<string, string> },
  ): Promise<ApiResponse>;
  /** The headers `call` sends (for multipart uploads and other raw requests). */
  headers(): Record<string, string>;
}

/** The cookie `name=value` a response sets, if any. */
function cookieOf(response: ApiResponse): string | undefined {
  return response.headers.get('set-cookie')?.split(';')[0];
}

/** Signs in through the session host (CSRF token first, then POST /api/auth/login; 200 asserted). */
export async function signIn(email: string, password: string): Promise<BrowserSession> {
  const start = await request('/api/csrf-token', { host: 'app' });
  const anonymous = cookieOf(start)!;
  const login = await request('/api/auth/login', {
    host: 'app',
    method: 'POST',
    body: { email, password },
    headers: { cookie: anonymous, 'x-csrf-token': start.body.data.token as string },
  });
  expect(login.status, login.text).to.equal(200);
  const cookie = cookieOf(login)!;
  expect(cookie, 'sign-in sets a new session cookie').to.not.equal(anonymous);
  const csrfToken = login.body.data.csrf_token as string;
  const headers = () => ({ cookie, 'x-csrf-token': csrfToken });
  return {
    user: login.body.data.user,
    csrfToken,
    headers,
    call: (method, path, body, options = {}) => {
      const sent: Record<string, string> = { cookie, ...options.headers };
      if (options.csrf !== false) sent['x-csrf-token'] = csrfToken;
      const init: RequestOptions = { host: 'app', method, headers: sent };
      if (body !== undefined) init.body = body;
      return request(`/api${path}`, init);
    },
  };
}

/** The session host's base URL (for raw requests such as multipart uploads). */
export function appUrl(): string {
  return fleet().appUrl;
}
