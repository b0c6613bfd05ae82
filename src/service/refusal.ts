// What a refusal means for the readings behind it. One about the node's
// configuration or the account holds the device (the operator can fix it; its
// readings wait, the others go on). A status that can be about the record
// (400, 413, 414, 422, or a 2xx whose body reads as an error) holds only when
// the reply names the key, the device, its PIN, the account or the format;
// otherwise the record is rejected, as asking again would block the queue.

/**
 * Words of a reply that name the node's configuration or the account, '|'
 * between them; a leading space keeps a path the reply echoes
 * (/api/updatedevicevalue/...) from naming the device.
 */
const enum W {
  Config = ' key|apikey|auth|forbidden|denied|permission| device| pin|account|credential|format|not found|no such',
}

/** A refusal is a non-2xx answer that is not a retry, or a 2xx whose body reads as an error. */
export function refusalKind(status: number, body: string): 'hold' | 'reject' {
  const record = status === 400 || status === 413 || status === 414 || status === 422 || (status >= 200 && status < 300);
  if (!record) return 'hold';
  const t = ' ' + body.slice(0, 200).toLowerCase();
  const w = (W.Config as string).split('|');
  for (let i = 0; i < w.length; i++) if (t.indexOf(w[i] as string) >= 0) return 'hold';
  return 'reject';
}
