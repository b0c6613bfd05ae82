// The configuration device's cold modules as the loader hands them out on a
// board ('remote' kept while the agent runs, 'remote-read' for each read,
// 'remote-apply' for a new document, 'check' when it changes something),
// straight from their sources: for harnesses that run the runtime without a build.
import { startRemote } from '../../src/agent/remote';
import { applyRemote } from '../../src/agent/remote-apply';
import { readRemote } from '../../src/agent/remote-read';
import { CODEC } from '../../src/config/codec';

export const REMOTE_CODE: Record<string, unknown> = { remote: startRemote, 'remote-read': readRemote, 'remote-apply': applyRemote, check: CODEC };
