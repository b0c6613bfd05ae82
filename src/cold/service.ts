// Cold module 'service': test() and provision().
import { serviceCommands } from '../console/cmd-service';
import { run } from '../console/run';

export default run(serviceCommands);
