// The outputs' code as a part of its own (src/parts.ts): a board with no
// output configured lets it go at boot, so outputs cost its heap only where
// they are used.
import { createOutputs } from './outputs';

export default createOutputs;
