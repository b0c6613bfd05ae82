// Cold module 'test': test(), one reading written and read back.
import { testCommands } from '../console/cmd-service';
import { run } from '../console/run';

export default run(testCommands);
