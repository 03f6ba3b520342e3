import { registerNamespace } from '@console/kit';
import { TASK_LOG_NS, taskLogMessages } from './messages';

export { TASK_LOG_NS, taskLogMessages };

// The drawing and task log pages keep their words in their own namespace (registered once, on import).
registerNamespace(TASK_LOG_NS, taskLogMessages);
