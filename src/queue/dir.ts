// Where the outbox keeps its files, for readers that do not open it. outbox.ts
// names them the same way without importing this, so the agent part and the
// rest of the resident program do not both carry it.

export const OUTBOX_DIR = 'q';
/** A segment file's name: 'seg-' and its id in 8 digits (outbox.ts, name()). */
export const SEGMENT = /^seg-\d{8}$/;
