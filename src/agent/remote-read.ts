// One read of the configuration's device (the cold module 'remote-read',
// loaded for each read and let go, as an output's read is): the document
// through the service client, its CRC, and, only when it is one not seen
// before, the cold module 'remote-apply' (src/agent/remote-apply.ts) for
// what it does. A read that finds the same document again loads nothing
// more and writes nothing.
import { devSegments } from '../service/client';
import type { ApplyRemote, ReadRemote } from './remote';
import { R, canonical, docCrc, readSeen, replaceFile } from './remote-state';
import type { WriteOutcome } from './uplink';

export const readRemote: ReadRemote = function (rt, load, x, client) {
  const files = rt.p.files;
  const log = rt.p.log;
  const cfg = rt.config();
  const id = cfg.remote.id;
  const key = cfg.service.apiKey;
  // The period after an apply is over.
  files.remove(R.Wait);
  return client
    .call<string>({
      op: 'showdevicejson',
      segments: devSegments({ apiKey: key, deviceId: id, devicePin: cfg.remote.pin }),
      secrets: [key],
      read: (body) => ({ ok: true, value: canonical(body), note: '' }),
    })
    .then((r): WriteOutcome => {
      if (x.off) return r;
      // Not read now: again after the backoff.
      if (r.kind === 'retry') x.due = true;
      else if (r.kind !== 'ok') {
        // Refused (the device or its PIN): said once, kept until it reads again.
        const why = 'unreadable: ' + r.reason;
        if (x.seen === why) return r;
        x.seen = why;
        const prev = readSeen(files);
        if (!prev || prev.id !== id || prev.outcome !== why) {
          log.error('remote: device ' + id + ' not read: ' + r.reason);
          replaceFile(files, R.Seen, JSON.stringify({ id, crc: null, outcome: why, ignored: [], at: null }));
        }
      } else {
        const crc = docCrc(r.value);
        if (crc === x.seen) return r;
        // This boot's first read: the document settled before (remote.seen) needs nothing.
        const prev = readSeen(files);
        if (prev && prev.id === id && prev.crc === crc && prev.outcome !== (R.PendingOutcome as string)) x.seen = crc;
        else {
          const m = load<ApplyRemote>('remote-apply');
          if (m.ok) m.value(rt, load, x, r.value, r.date);
          // Not loaded (the heap is short): again at the next read, said once a reason.
          else if (m.error.split(' (')[0] !== x.error) log.error('remote: ' + m.error);
          if (!m.ok) x.error = m.error.split(' (')[0];
        }
      }
      return r;
    });
};
