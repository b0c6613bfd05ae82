// On the device's engine: the harness with OUTPUTS_N outputs (0: the
// baseline), the outputs' cold modules evaluated from their text as the
// loader does. Put in by the build (scripts/measure/engine/outputs-cost.ts):
// OUTPUTS_N, the modules' text, the shared table's rows (src/residency.json).
import * as client from '../../../src/service/client';
import * as parse from '../../../src/service/parse';
import { run } from './outputs-cost.harness';

declare const OUTPUTS_N: number;
declare const OUTPUTS_CODE: string;
declare const READ_CODE: string;
declare const READ_STRINGS: string;
/** Every row of the shared table: its module (path under src/, without '.ts') and its values' names, in order. */
declare const SHARED_ROWS: { key: string; names: string[] }[];

// The shared table as the loader hands it out, with the rows the outputs
// read (the others empty): the same in every program here.
const ns: Record<string, Record<string, unknown>> = { 'service/client': client, 'service/parse': parse };
const shared = SHARED_ROWS.map((r) => (ns[r.key] ? r.names.map((n) => (ns[r.key] as Record<string, unknown>)[n]) : []));
const ev = (code: string): ((...a: unknown[]) => unknown) => (0, eval)(code) as (...a: unknown[]) => unknown;
run(OUTPUTS_N, shared, () => ev(OUTPUTS_CODE)(shared), () => ev(READ_CODE)(shared, JSON.parse(READ_STRINGS)));
