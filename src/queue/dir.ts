/** The outbox's directory on the file store (src/queue/outbox.ts keeps its layout). */
export const OUTBOX_DIR = 'q';
