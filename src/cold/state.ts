// Cold module 'state': status(), sensors(), save(), discard(), resume(),
// maintenance(), reboot().
import { stateCommands } from '../console/cmd-config';
import { run } from '../console/run';

export default run(stateCommands);
