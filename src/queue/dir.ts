// Where the outbox keeps its files, for what reads them without opening the
// outbox (status() before the agent runs, the engine bench's stand-in). The
// outbox itself (src/queue/outbox.ts) owns the layout and names its segments
// the same way; it does not import this, so that the agent part and the rest
// of the resident program do not both carry it.

export const OUTBOX_DIR = 'q';
/** A segment file's name: 'seg-' and its id in 8 digits (outbox.ts, name()). */
export const SEGMENT = /^seg-\d{8}$/;
