// Resident modules that cold code uses as they are, instead of carrying its
// own copy: the build (scripts/build.ts) turns a cold module's import of one
// of these into a read from this table, which the loader hands to the module.
// A cold command then costs only its own code on the heap. Keys are the
// module's path under src/, without '.ts'.
//
// Plain objects, listed by hand: a namespace import (`import * as`) would be
// bundled as an object of getters, one arrow function per export, which on
// the device's engine costs about 110 B of heap each for as long as the
// program runs. The build refuses a module whose value exports are not all
// listed here (scripts/build.ts, fromResident).
import { checkPin, DEFAULT_BOARD, getBoard } from './board';
import { crc32 } from './queue/crc32';
import { createServiceClient, devProblem, devSegments, guarded, maskSecret } from './service/client';
import { describeBody, errorSignal, pairsOf, parseWriteReply, rootName, shape, unescapeXml, xmlProblem } from './service/parse';
import { apiPath, encodeSegment, parseBaseUrl } from './service/url';
import { codeAt, utf8, utf8Length } from './service/utf8';

export type Shared = Record<string, Record<string, unknown>>;

export const SHARED: Shared = {
  board: { checkPin, DEFAULT_BOARD, getBoard },
  'queue/crc32': { crc32 },
  'service/client': { createServiceClient, devProblem, devSegments, guarded, maskSecret },
  'service/parse': { describeBody, errorSignal, pairsOf, parseWriteReply, rootName, shape, unescapeXml, xmlProblem },
  'service/url': { apiPath, encodeSegment, parseBaseUrl },
  'service/utf8': { codeAt, utf8, utf8Length },
};
