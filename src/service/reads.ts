// Read-back, API key generation and device creation: only console commands
// (cold code) use them, so they are not in the resident program.
import { DATA_FORMATS } from '../model';
import type { DataFormat } from '../model';
import type { HttpClient } from '../net/types';
import type { Log } from '../ports/ports';
import type { DeviceRef, Outcome, ServiceClient } from './client';
import { createServiceClient, devProblem, devSegments } from './client';
import type { Found } from './parse';
import { describeBody, errorSignal, parseWriteReply } from './parse';
import { parseApiKey, parseDeviceCreated, parseJsonRead, parseValueRead, parseXmlRead } from './parse-reads';
import { xmlProblem } from './xml-check';

/**
 * A reply that signals an error becomes a reject. Here, not in the service
 * client: what the resident program shares with cold code stays on the heap.
 */
function guarded<T>(f: (body: string, shown: string, secrets: string[]) => Found<T> & { odd?: boolean }) {
  return (body: string, shown: string, secrets: string[]): Found<T> & { odd?: boolean } => {
    const error = errorSignal(body);
    return error ? { ok: false, error, note: describeBody(body, shown) } : f(body, shown, secrets);
  };
}

export interface ServiceOps extends ServiceClient {
  readValue(dev: DeviceRef): Promise<Outcome<string>>;
  readJson(dev: DeviceRef): Promise<Outcome<unknown>>;
  readXml(dev: DeviceRef): Promise<Outcome<string>>;
  generateApiKey(email: string, password: string): Promise<Outcome<{ apiKey: string }>>;
  createDevice(apiKey: string, name: string, cryptoName: string, format: DataFormat): Promise<Outcome<{ deviceId?: number; devicePin?: number }>>;
}

/** Every operation of the spec on top of a write client. */
export function withReads(c: ServiceClient): ServiceOps {
  function read<T>(op: string, dev: DeviceRef, parse: (body: string, shown: string) => Found<T>): Promise<Outcome<T>> {
    return c.call({ op, segments: devSegments(dev), secrets: [dev.apiKey], problem: devProblem(dev), read: parse });
  }
  return {
    writeValue: (dev, text) => c.writeValue(dev, text),
    writeJson: (dev, json) => c.writeJson(dev, json),
    writeXml(dev, xml) {
      // The client leaves XML unchecked (the uplink's is its own): a console write is checked here.
      const p = typeof xml === 'string' && xml.trim() && !devProblem(dev) ? xmlProblem(xml) : undefined;
      if (!p) return c.writeXml(dev, xml);
      return c.call({ op: 'updatedevicexml', segments: devSegments(dev), secrets: [dev.apiKey], problem: 'xml is not well-formed: ' + p, read: parseWriteReply });
    },
    call: (x) => c.call(x),
    readValue(dev) {
      return read('showdevicevalue', dev, parseValueRead);
    },
    readJson(dev) {
      return read('showdevicejson', dev, parseJsonRead);
    },
    readXml(dev) {
      return read('showdevicexml', dev, parseXmlRead);
    },
    generateApiKey(email, password) {
      return c.call({
        op: 'generateapikey',
        segments: [
          ['email', email],
          ['password', password],
        ],
        secrets: [password],
        whole: [password],
        read: guarded((body, _shown, secrets) => {
          const k = parseApiKey(body);
          if (k.apiKey === undefined) return { ok: false, error: 'no API key in the reply', note: k.note };
          secrets.push(k.apiKey);
          return { ok: true, value: { apiKey: k.apiKey }, note: k.note };
        }),
      });
    },
    createDevice(apiKey, name, cryptoName, format) {
      return c.call({
        op: 'createuserdevice',
        segments: [
          ['apiKey', apiKey],
          ['name', name],
          ['cryptoName', cryptoName],
          ['format', format],
        ],
        secrets: [apiKey],
        problem: DATA_FORMATS.indexOf(format) < 0 ? 'format must be one of ' + DATA_FORMATS.join(', ') : undefined,
        read: guarded((body) => {
          const d = parseDeviceCreated(body);
          return {
            ok: true,
            value: { deviceId: d.deviceId, devicePin: d.devicePin },
            note: d.note,
            odd: d.deviceId === undefined || d.devicePin === undefined,
          };
        }),
      });
    },
  };
}

/** createServiceClient with every operation (console, host tools, tests). */
export function createServiceOps(o: { http: HttpClient; baseUrl: string; log?: Log }): { ok: true; client: ServiceOps } | { ok: false; error: string } {
  const made = createServiceClient(o);
  return made.ok ? { ok: true, client: withReads(made.client) } : made;
}
