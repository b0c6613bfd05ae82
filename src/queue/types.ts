// The outbox contract: readings wait here, oldest first, until the service
// acknowledged them; outbox.ts on flash, memory.ts in RAM as the fallback.

/** One reading on its way to a device of the service. */
export interface OutboxRecord {
  /** From Outbox.nextSeq(); increasing in push order. */
  seq: number;
  /** Configured device name the payload is for. */
  device: string;
  /** Encoded reading, sent as is. */
  payload: string;
  /** Whole ms since boot when sampled. */
  uptimeMs: number;
  bootId: number;
  /** Whole ms since the epoch, when the clock was known at sampling time. */
  wallMs?: number;
}

export interface OutboxStats {
  /** Records waiting. */
  depth: number;
  /** Bytes those records take in their stored (framed) form. */
  bytes: number;
  /** Oldest records given up to stay under the byte (or record) bound. */
  dropped: number;
  /** Records the service refused, taken out of the queue. */
  rejected: number;
  /** Reason given with the latest rejection. */
  lastReject?: string;
  /** What nextSeq() returns next. */
  nextSeq: number;
}

export interface Outbox {
  /**
   * Stores one record behind the others (its seq comes from nextSeq()).
   * Drops the oldest records first when it would not fit. Returns false only
   * when the record could not be stored.
   */
  push(rec: OutboxRecord): boolean;
  /** Up to n oldest records, oldest first, left in place. */
  peek(n: number): OutboxRecord[];
  /** Removes the k oldest records once the service acknowledged them. */
  ack(k: number): void;
  /** Takes the oldest record out because the service refused it; counts it and keeps the reason. */
  reject(reason: string): void;
  /**
   * n records counted as dropped reached the service after all: they were in
   * flight when a full outbox dropped them. Keeps the drop count equal to
   * the readings that were really lost. Saved with the next ack.
   */
  undrop(n: number): void;
  /** A new bound on stored bytes, applied at once (oldest dropped to fit); absent where the bound is a count. */
  setMaxBytes?(n: number): void;
  /** Held devices' lanes an earlier boot left (their names): the lanes' code is loaded at the start then. */
  found?: string[];
  /** Makes (or opens again) a held device's lane: an outbox of its own, unbounded itself, without lanes. */
  openLane?(device: string): Outbox | undefined;
  /** Whether this outbox and its lanes, `s` together, are past the bound with `bytes` more. */
  full?(s: OutboxStats, bytes: number): boolean;
  /**
   * A held device's lane (put in place by src/agent/held.ts): its records set
   * aside in order, within this outbox's bound and counts. Made when `make`;
   * otherwise undefined unless it holds records.
   */
  lane?(this: void, device: string, make?: boolean): Outbox | undefined;
  /** The devices whose lanes hold records. */
  lanes?(this: void): string[];
  /** Depth and bytes of this outbox and its lanes together; drops and rejections of both. */
  stats(): OutboxStats;
  /** Returns the next sequence number and advances it; never goes back, across reboots too. */
  nextSeq(): number;
}
