import type { SchedulerRegistry } from '@nestjs/schedule';

/**
 * Runs `job` every `ms` as an interval registered with @nestjs/schedule, so every periodic job of the
 * gateway is listed in one registry and cleared by it at shutdown. The timer does not keep the process
 * alive, and a job's failure (thrown or rejected) goes to `onError` instead of becoming an unhandled
 * rejection. A name already registered is replaced, so a module started twice keeps one timer.
 */
export function scheduleEvery(
  registry: SchedulerRegistry,
  name: string,
  ms: number,
  job: () => unknown,
  onError: (error: Error) => void,
): void {
  const run = () => {
    try {
      const result = job();
      if (result instanceof Promise) result.catch(onError);
    } catch (error) {
      onError(error as Error);
    }
  };
  const timer = setInterval(run, ms);
  timer.unref();
  cancelScheduled(registry, name);
  registry.addInterval(name, timer);
}

/** Stops a job started by scheduleEvery; nothing happens when it is not (or no longer) registered. */
export function cancelScheduled(registry: SchedulerRegistry, name: string): void {
  if (registry.doesExist('interval', name)) registry.deleteInterval(name);
}
