// Resident modules that cold code uses as they are, instead of carrying its
// own copy: the build (scripts/build.ts) turns a cold module's import of one
// of these into a read from this table, which the loader hands to the module.
// A cold command then costs only its own code on the heap. Keys are the
// module's path under src/, without '.ts'.
import * as board from './board';
import * as crc32 from './queue/crc32';
import * as client from './service/client';
import * as parse from './service/parse';
import * as url from './service/url';
import * as serviceUtf8 from './service/utf8';

export type Shared = Record<string, unknown>;

export const SHARED: Shared = {
  board,
  'queue/crc32': crc32,
  'service/client': client,
  'service/parse': parse,
  'service/url': url,
  'service/utf8': serviceUtf8,
};
