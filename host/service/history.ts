// A device's history for the dashboard: the kept writes as rows (time, the
// charted field's number, the write as stored) and the same rows as CSV for
// download. A configuration device's writes are shown with their PINs and
// secrets masked, as its card shows the document.

import { maskDocument } from './config-doc';
import type { Device, HistoryEntry } from './store';

export interface HistoryRow {
  at: string;
  /** The charted field's number in this write, null when it has none. */
  value: number | null;
  content: string;
}

export interface History {
  deviceId: number;
  name: string;
  format: string;
  /** The charted field ('' for a Value device), null when nothing numeric was seen. */
  field: string | null;
  unit: string | null;
  /** Writes kept (the oldest are dropped past the service's history limits). */
  kept: number;
  /** Writes ever made. */
  writes: number;
  /** Oldest first. */
  rows: HistoryRow[];
}

/** A configuration document's write with its PINs and secrets masked; other text unchanged. */
export function maskedContent(content: string): string {
  try {
    return JSON.stringify(maskDocument(JSON.parse(content)));
  } catch {
    return content;
  }
}

export function historyOf(
  dev: Device,
  field: string | null,
  unit: string | null,
  numberOf: (e: HistoryEntry) => number | null,
  isConfig: boolean,
): History {
  return {
    deviceId: dev.id,
    name: dev.name,
    format: dev.format,
    field,
    unit,
    kept: dev.history.length,
    writes: dev.writes,
    rows: dev.history.map((e) => ({ at: e.at, value: numberOf(e), content: isConfig ? maskedContent(e.content) : e.content })),
  };
}

/**
 * One CSV cell (RFC 4180): quoted when it holds a comma, quote, line break or
 * edge space; a text a spreadsheet would run as a formula (= + - @ first,
 * unless it is a plain number) gets a leading apostrophe.
 */
export function csvCell(s: string): string {
  let t = s;
  if (/^[=+\-@\t\r]/.test(t) && !/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t)) t = "'" + t;
  return /[",\r\n]|^\s|\s$/.test(t) ? '"' + t.replace(/"/g, '""') + '"' : t;
}

/** The history as CSV: a header, then one line per kept write, oldest first, CRLF line ends. */
export function historyCsv(h: History): string {
  const label = (h.field ? h.field : 'value') + (h.unit ? ` (${h.unit})` : '');
  const lines = [['time (UTC)', label, 'stored text'].map(csvCell).join(',')];
  for (const r of h.rows) lines.push([r.at, r.value === null ? '' : String(r.value), r.content].map(csvCell).join(','));
  return lines.join('\r\n') + '\r\n';
}
