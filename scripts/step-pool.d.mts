export interface Step {
  name: string;
  cmd: string;
  args: string[];
  /** Names of the steps that must pass first. */
  after: string[];
  /** Print the step's output even when it passes. */
  show?: boolean;
}
export interface StepResult {
  code: number | null;
  output: string;
}
export function runPool(steps: Step[], lanes: number, run?: (step: Step) => Promise<StepResult>): Promise<boolean>;
