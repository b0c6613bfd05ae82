// Contract of the HTTP client (src/net/http.ts). Outcomes are values: the
// client never throws and never rejects for network failures.

export interface HttpRequest {
  method: 'GET' | 'POST';
  host: string;
  port: number;
  /** Already percent-encoded path (with query, if any). */
  path: string;
  /** Sent as UTF-8 with Content-Length in bytes. */
  body?: string;
  contentType?: string;
}

/** 'encoding': the reply was not well-formed UTF-8 (never handed to the runtime's decoder). */
export type HttpFailure = 'connect' | 'timeout' | 'reset' | 'too-large' | 'protocol' | 'encoding';

export interface HttpStats {
  exchanges: number;
  /** Failed exchanges by kind since start. */
  failures: Partial<Record<HttpFailure, number>>;
}

export type HttpResult =
  | {
      kind: 'response';
      status: number;
      /** Reason phrase, '' when the server sent none. */
      reason: string;
      /** Header names lower-cased; values intact (they may contain ':'). */
      headers: Record<string, string>;
      /** Body decoded from UTF-8 (after de-chunking). */
      body: string;
      /** Bytes of the request as written to the socket. */
      bytesSent: number;
    }
  | { kind: 'failure'; failure: HttpFailure; reason: string; bytesSent: number };

export interface HttpClient {
  request(req: HttpRequest): Promise<HttpResult>;
  stats(): HttpStats;
}

export interface HttpClientOptions {
  /** Deadline for the TCP handshake. Default 5000. */
  connectTimeoutMs?: number;
  /** Deadline for the whole exchange, connect included. Default 15000. */
  timeoutMs?: number;
  /** Largest response (status line + headers + body) accepted. Default 8192. */
  maxResponseBytes?: number;
}
