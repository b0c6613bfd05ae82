// Cold module 'config': set(), unset(), importWifi(): the editor and the
// whole validation of a change.
import { configCommands } from '../console/cmd-config';
import { run } from '../console/run';

export default run(configCommands);
