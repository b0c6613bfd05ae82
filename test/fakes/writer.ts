// A scripted stand-in for the service client's write operations: records
// every write and answers from a script (default: 200).
import type { DeviceRef } from '../../src/service/client';
import type { WriteOutcome, Writer } from '../../src/agent/uplink';

export interface Write {
  op: 'value' | 'json' | 'xml';
  deviceId: number;
  body: string;
  /** The uplink said it encoded the body itself (no check by parsing it again). */
  made?: boolean;
}

export function createFakeWriter(answer: (w: Write, n: number) => WriteOutcome = () => ({ kind: 'ok', status: 200, bytesSent: 10 })) {
  const writes: Write[] = [];
  const delivered: Write[] = [];
  const call = async (op: Write['op'], d: DeviceRef, body: string, made?: boolean): Promise<WriteOutcome> => {
    const w: Write = { op, deviceId: d.deviceId, body };
    if (made !== undefined) w.made = made;
    writes.push(w);
    const r = answer(w, writes.length);
    if (r.kind === 'ok') delivered.push(w);
    return r;
  };
  const writer: Writer = {
    writeValue: (d, t) => call('value', d, t),
    writeJson: (d, t, made) => call('json', d, t, made),
    writeXml: (d, t, made) => call('xml', d, t, made),
  };
  return { writer, writes, delivered };
}
