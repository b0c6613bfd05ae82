// Resident modules that cold code and the program's parts (src/parts.ts) use
// as they are, instead of carrying a copy of their own: the build
// (scripts/build/build.ts) turns such a module's import of one of these into a read
// from this table, which the loader (or the part's caller) hands to it. A cold
// command then costs only its own code on the heap, and a part shares the
// resident modules' state instead of holding a second one. A module is named
// by its path under src/, without '.ts' (SHARED_NAMES); the table itself is
// read by number.
//
// Plain arrays, listed by hand: a namespace import (`import * as`) would be
// bundled as an object of getters, one arrow function per export, which on
// the device's engine costs about 110 B of heap each for as long as the
// program runs. The build refuses a module whose value exports are not all
// listed here (scripts/build/build.ts, fromResident).
import { createLink, LADDER, LINK_CHECK_MAX_MS } from './agent/link';
import { DEFAULT_BOARD, getBoard } from './board';
import { createHttpClient } from './net/http';
import { crc32 } from './queue/crc32';
import { createServiceClient, devProblem, devSegments, maskSecret } from './service/client';
import { describeBody, errorSignal, pairsOf, parseWriteReply, rootName, shape, unescapeXml } from './service/parse';
import { parseHttpDate, parseRetryAfter, RETRY_AFTER_CAP_MS } from './service/http-date';
import { apiPath, encodeSegment, parseBaseUrl } from './service/url';
import { codeAt, utf8, utf8Length } from './service/utf8';
import { decodeUtf8, isUtf8 } from './utf8';

/**
 * Each shared module's value exports, in the order of its row in
 * sharedTable(); the rows in the order of these keys. The build and the
 * tests read this; the device bundle drops it (nothing there uses it).
 */
export const SHARED_NAMES: Record<string, readonly string[]> = {
  'agent/link': ['createLink', 'LADDER', 'LINK_CHECK_MAX_MS'],
  board: ['DEFAULT_BOARD', 'getBoard'],
  'net/http': ['createHttpClient'],
  'queue/crc32': ['crc32'],
  'service/client': ['createServiceClient', 'devProblem', 'devSegments', 'maskSecret'],
  'service/http-date': ['parseHttpDate', 'parseRetryAfter', 'RETRY_AFTER_CAP_MS'],
  'service/parse': ['describeBody', 'errorSignal', 'pairsOf', 'parseWriteReply', 'rootName', 'shape', 'unescapeXml'],
  'service/url': ['apiPath', 'encodeSegment', 'parseBaseUrl'],
  'service/utf8': ['codeAt', 'utf8', 'utf8Length'],
  utf8: ['decodeUtf8', 'isUtf8'],
};

/** Rows of values, read by number (`__shared[4][3]`). */
export type Shared = readonly (readonly unknown[])[];

/**
 * Made when asked for (a cold module's load, the agent part's start) and
 * let go after: the table would otherwise take about 1 KB of heap for good,
 * while the part and cold code keep only what they read from it. Rows and
 * columns by number, as SHARED_NAMES lists them: a name would be a string
 * the engine keeps until it stops (about 0.9 KB for these), an index is none.
 */
export function sharedTable(): Shared {
  return [
    [createLink, LADDER, LINK_CHECK_MAX_MS],
    [DEFAULT_BOARD, getBoard],
    [createHttpClient],
    [crc32],
    [createServiceClient, devProblem, devSegments, maskSecret],
    [parseHttpDate, parseRetryAfter, RETRY_AFTER_CAP_MS],
    [describeBody, errorSignal, pairsOf, parseWriteReply, rootName, shape, unescapeXml],
    [apiPath, encodeSegment, parseBaseUrl],
    [codeAt, utf8, utf8Length],
    [decodeUtf8, isUtf8],
  ];
}
