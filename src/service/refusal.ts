// What a refusal from the service means for the readings behind it: the one
// table of it (README, "When the service refuses").
//
//   answer                                     outcome  why
//   401, 403, 404, 409, 410, 3xx,              hold     it names the node's configuration or the
//   any other 4xx not below                             account (key, device, PIN, format, URL):
//                                                       the operator can fix it, every reading waits
//   400, 413, 414, 422 naming the key, the     hold     the same, said with a record's status
//   device, its PIN, the account or the format
//   400, 413, 414, 422 otherwise               reject   the record itself is refused: asking again
//                                                       gets the same answer and blocks the queue
//   2xx whose body reads as an error           hold     naming the key, the device, ... (as above)
//   2xx whose body reads as an error           reject   otherwise (e.g. "invalid data")
//
// A held device's readings stay queued: its delivery pauses and is tried
// again with the backoff, up to a slow steady retry; other devices go on.

/**
 * Words of a reply that name the node's configuration or the account, '|'
 * between them; a leading space keeps a path the reply echoes
 * (/api/updatedevicevalue/...) from naming the device.
 */
const enum W {
  Config = ' key|apikey|auth|forbidden|denied|permission| device| pin|account|credential|token|format|not found|no such',
}

/**
 * 'hold' when a refusal (a non-2xx answer that is not a retry, or a 2xx
 * whose body reads as an error) is about the node's configuration or the
 * account; 'reject' when it is about the record.
 */
export function refusalKind(status: number, body: string): 'hold' | 'reject' {
  const record = status === 400 || status === 413 || status === 414 || status === 422 || (status >= 200 && status < 300);
  if (!record) return 'hold';
  const t = ' ' + body.slice(0, 200).toLowerCase();
  const w = (W.Config as string).split('|');
  for (let i = 0; i < w.length; i++) if (t.indexOf(w[i] as string) >= 0) return 'hold';
  return 'reject';
}
