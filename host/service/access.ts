// Who may use the dashboard (its page, its state and its set-value).
//
// On a loopback listen the dashboard needs no login, so it must answer only
// requests meant for this machine: a page on another site that points its own
// name at 127.0.0.1 (DNS rebinding) is same-origin with itself and sends its
// own name as Host, so the Host header must name the service as 127.0.0.1,
// localhost or [::1] with its port, else 421 (the request was meant for
// another server). Beyond loopback any name may reach the service, so every
// read and write of the dashboard needs the token made at start, sent as
// `Authorization: Bearer <token>`, else 401. On both, a browser request from
// another origin is refused (403): an Origin that is not the page's own
// (`null` included), or fetch metadata saying another site sent it.
// The API under /api/ keeps the spec's own key in the path and is not
// concerned here.

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export interface Refusal {
  status: number;
  message: string;
  headers?: Record<string, string>;
}

export interface DashboardAccess {
  /** The service listens beyond loopback: the dashboard needs the token. */
  exposed: boolean;
  /** The dashboard's token when exposed. */
  token: string | undefined;
  /**
   * Why a dashboard request is refused, or undefined when it may go on.
   * `page` is the static page itself: it holds no data, so it needs no token
   * (it reads the token from its own URL), but it is refused to a foreign Host.
   */
  refusal(req: IncomingMessage, page: boolean): Refusal | undefined;
}

/** True for 127.0.0.0/8, ::1 and their IPv4-mapped forms. */
export function isLoopback(address: string): boolean {
  const a = address.toLowerCase().replace(/^::ffff:/, '');
  return a === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(a);
}

/** The Host values a loopback listen on `address`:`port` answers to. */
function loopbackHosts(address: string, port: number): Set<string> {
  const names = ['127.0.0.1', 'localhost', '[::1]', address.includes(':') ? `[${address.toLowerCase()}]` : address];
  const hosts = new Set<string>();
  for (const n of names) {
    hosts.add(`${n}:${port}`);
    if (port === 80) hosts.add(n); // a browser leaves the default port out
  }
  return hosts;
}

function digest(s: string): Buffer {
  return createHash('sha256').update(s, 'utf8').digest();
}

export function dashboardAccess(address: string, port: number): DashboardAccess {
  const exposed = !isLoopback(address);
  const hosts = loopbackHosts(address, port);
  const token = exposed ? randomBytes(24).toString('base64url') : undefined;
  const tokenDigest = token === undefined ? undefined : digest(token);

  function hostRefusal(req: IncomingMessage): Refusal | undefined {
    if (exposed) return undefined;
    const host = (req.headers.host ?? '').toLowerCase();
    if (hosts.has(host)) return undefined;
    return { status: 421, message: `Host: the dashboard answers only to 127.0.0.1, localhost or [::1] with port ${port}` };
  }

  function originRefusal(req: IncomingMessage): Refusal | undefined {
    const origin = req.headers.origin;
    if (origin !== undefined) {
      let same = false;
      try {
        const u = new URL(origin);
        same = u.protocol === 'http:' && u.host === (req.headers.host ?? '').toLowerCase();
      } catch {
        same = false;
      }
      if (!same) return { status: 403, message: 'Origin: only the dashboard page itself may use the dashboard' };
    }
    const site = req.headers['sec-fetch-site'];
    if (site === 'cross-site' || site === 'same-site') {
      return { status: 403, message: 'Sec-Fetch-Site: only the dashboard page itself may use the dashboard' };
    }
    return undefined;
  }

  function tokenRefusal(req: IncomingMessage): Refusal | undefined {
    if (tokenDigest === undefined) return undefined;
    const m = /^Bearer ([A-Za-z0-9_-]{1,200})$/.exec(req.headers.authorization ?? '');
    // Compared as digests of equal length, in constant time.
    if (m && timingSafeEqual(digest(m[1] as string), tokenDigest)) return undefined;
    return {
      status: 401,
      message: 'Authorization: the dashboard needs the token printed at the service start (open the URL it printed)',
      headers: { 'WWW-Authenticate': 'Bearer realm="dashboard"' },
    };
  }

  return {
    exposed,
    token,
    refusal(req, page) {
      return hostRefusal(req) ?? (page ? undefined : originRefusal(req) ?? tokenRefusal(req));
    },
  };
}
