// Resident modules that cold code and the program's parts (src/parts.ts) use
// as they are, instead of carrying a copy of their own: the build
// (scripts/build.ts) turns such a module's import of one of these into a read
// from this table, which the loader (or the part's caller) hands to it. A cold
// command then costs only its own code on the heap, and a part shares the
// resident modules' state instead of holding a second one. Keys are the
// module's path under src/, without '.ts'.
//
// Plain objects, listed by hand: a namespace import (`import * as`) would be
// bundled as an object of getters, one arrow function per export, which on
// the device's engine costs about 110 B of heap each for as long as the
// program runs. The build refuses a module whose value exports are not all
// listed here (scripts/build.ts, fromResident).
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

export type Shared = Record<string, Record<string, unknown>>;

/**
 * Made when asked for (a cold module's load, the agent part's start) and
 * let go after: the table would otherwise take about 1 KB of heap for good,
 * while the part and cold code keep only what they read from it.
 */
export function sharedTable(): Shared {
  return {
    'agent/link': { createLink, LADDER, LINK_CHECK_MAX_MS },
    board: { DEFAULT_BOARD, getBoard },
    'net/http': { createHttpClient },
    'queue/crc32': { crc32 },
    'service/client': { createServiceClient, devProblem, devSegments, maskSecret },
    'service/http-date': { parseHttpDate, parseRetryAfter, RETRY_AFTER_CAP_MS },
    'service/parse': { describeBody, errorSignal, pairsOf, parseWriteReply, rootName, shape, unescapeXml },
    'service/url': { apiPath, encodeSegment, parseBaseUrl },
    'service/utf8': { codeAt, utf8, utf8Length },
    utf8: { decodeUtf8, isUtf8 },
  };
}
