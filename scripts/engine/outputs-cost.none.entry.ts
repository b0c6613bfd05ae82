// On the device's engine: the harness alone, the baseline of outputs-cost.
// It holds the resident functions the outputs' code calls (on a board they
// are in the resident program whether outputs run or not).
import { devSegments, maskSecret } from '../../src/service/client';
import { describeBody, errorSignal } from '../../src/service/parse';
import { run } from './outputs-cost.harness';

(globalThis as unknown as Record<string, unknown>).held = [devSegments, maskSecret, describeBody, errorSignal];
run(undefined, 0);
