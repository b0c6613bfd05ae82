// Written by scripts/build/residency.ts from src/residency.json (the modules
// of class 'shared'): do not edit; run `npm run residency`. The device build
// makes the same text itself.
//
// Resident modules that cold code and the parts (src/parts.ts) use as they
// are, instead of carrying a copy of their own: the build turns such a module's
// import of one of these into a read from this table, which the loader (or the
// part's caller) hands to it. Plain arrays read by number: a name would be a
// string the engine keeps until it stops, a namespace import an object of
// getters that costs heap for as long as the program runs.
import { createLink, LADDER, LINK_CHECK_MAX_MS } from './agent/link';
import { DEFAULT_BOARD, getBoard } from './board';
import { createHttpClient } from './net/http';
import { crc32 } from './queue/crc32';
import { createServiceClient, devProblem, devSegments, maskSecret } from './service/client';
import { parseHttpDate, parseRetryAfter, RETRY_AFTER_CAP_MS } from './service/http-date';
import { describeBody, errorSignal, pairsOf, parseWriteReply, rootName, shape, unescapeXml } from './service/parse';
import { apiPath, encodeSegment, parseBaseUrl } from './service/url';
import { codeAt, utf8, utf8Length } from './service/utf8';
import { decodeUtf8, isUtf8 } from './utf8';

/** Rows of values, read by number (`__shared[4][3]`). */
export type Shared = readonly (readonly unknown[])[];

/**
 * Made when asked for (a cold module's load, the agent part's start) and let
 * go after: held for good, the table would take about 1 KB of heap.
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
