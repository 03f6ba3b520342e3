import { MidjourneyEntity } from './midjourney/midjourney.entity.js';
import { TaskEntity } from './generic/task.entity.js';
import { CreateMidjourneys1732262408000 } from './migrations/1732262408000-create-midjourneys.js';
import { CreateTasks1732262408100 } from './migrations/1732262408100-create-tasks.js';

export { TaskModule } from './task.module.js';
export { TaskPoller, type PollSummary } from './shared/task-poller.service.js';

export const taskSchema = {
  entities: [MidjourneyEntity, TaskEntity],
  migrations: [CreateMidjourneys1732262408000, CreateTasks1732262408100],
};
