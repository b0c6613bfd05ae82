// A scripted stand-in for the service client's write operations: records
// every write and answers from a script (default: 200).
import type { DeviceRef } from '../../src/service/client';
import type { WriteOutcome, Writer } from '../../src/agent/uplink';

export interface Write {
  op: 'value' | 'json' | 'xml';
  deviceId: number;
  body: string;
}

export function createFakeWriter(answer: (w: Write, n: number) => WriteOutcome = () => ({ kind: 'ok', status: 200, bytesSent: 10 })) {
  const writes: Write[] = [];
  const delivered: Write[] = [];
  const call = async (op: Write['op'], d: DeviceRef, body: string): Promise<WriteOutcome> => {
    const w = { op, deviceId: d.deviceId, body };
    writes.push(w);
    const r = answer(w, writes.length);
    if (r.kind === 'ok') delivered.push(w);
    return r;
  };
  const writer: Writer = {
    writeValue: (d, t) => call('value', d, t),
    writeJson: (d, t) => call('json', d, t),
    writeXml: (d, t) => call('xml', d, t),
  };
  return { writer, writes, delivered };
}
